/*
 * SRCU (kernel/rcu/srcu.c): readers that sleep -- in msleep(), on a
 * completion, moving to another CPU -- and the grace periods that wait for
 * them; domains that do not wait for each other; classic RCU not waiting
 * for SRCU readers; call_srcu() and srcu_barrier(); the checking build's
 * reports.  srcu.inject=no_flip (grace periods that never flip the index)
 * must make the sleeping-reader tests fail, on any number of CPUs: unlike
 * a classic reader, an SRCU reader can be inside while its own CPU runs
 * the updater.  The torture test is tests/srcutorture.c.
 */
#include "ktest.h"
#include "demo.h"

/* The report line the demo shows from a recording (kernel/demo/40_srcu.c). */
extern const char srcu_demo_panic_line[];

DEFINE_STATIC_SRCU(srcu_a);
DEFINE_STATIC_SRCU(srcu_b);

/* The generous bound for waits that only run out when SRCU is broken. */
static u64 srcu_test_timeout_ns(void)
{
	return (u64)(10 + 5 * num_online_cpus()) * NSEC_PER_SEC;
}

/* A reader that sleeps inside srcu_read_lock(): for sleep_ms, or until *go completes. */
struct sleeper {
	struct srcu_struct *ssp;
	struct completion *go;		/* NULL: msleep(sleep_ms) instead */
	int sleep_ms;
	int move_to;			/* >= 0: run_on() that CPU while inside */
	int idx;
	bool in, left;
	struct task_struct *task;
};

static int sleeper_fn(void *arg)
{
	struct sleeper *s = arg;
	int idx = srcu_read_lock(s->ssp);

	s->idx = idx;
	WRITE_ONCE(s->in, true);
	if (s->move_to >= 0)
		run_on(s->move_to);	/* the unlock runs on another CPU than the lock */
	if (s->go)
		wait_for_completion(s->go);
	else
		msleep(s->sleep_ms);
	WRITE_ONCE(s->left, true);	/* before the unlock, which srcu_unlock_mb orders after it */
	srcu_read_unlock(s->ssp, idx);
	return 0;
}

/* Starts the reader on the last CPU (this one, on one CPU) and waits until it is inside. */
static bool start_sleeper(struct sleeper *s)
{
	u64 end = ktime_get_ns() + srcu_test_timeout_ns();

	s->in = s->left = false;
	s->task = kthread_run_on_cpu(sleeper_fn, s, num_online_cpus() - 1, "srcu_sleeper");
	while (s->task && !READ_ONCE(s->in) && ktime_get_ns() < end)
		msleep(1);
	return s->task && READ_ONCE(s->in);
}

/* An updater in a thread of its own: synchronize_srcu(ssp), then what the reader was doing. */
struct updater {
	struct srcu_struct *ssp;
	struct sleeper *reader;
	bool done, reader_left;
	struct task_struct *task;
};

static int updater_fn(void *arg)
{
	struct updater *u = arg;

	synchronize_srcu(u->ssp);
	u->reader_left = READ_ONCE(u->reader->left);
	WRITE_ONCE(u->done, true);
	return 0;
}

static void start_updater(struct updater *u, struct srcu_struct *ssp, struct sleeper *reader)
{
	*u = (struct updater){ .ssp = ssp, .reader = reader };
	u->task = kthread_run_on_cpu(updater_fn, u, 0, "srcu_updater");
}

static bool wait_flag(const bool *flag)
{
	u64 end = ktime_get_ns() + srcu_test_timeout_ns();

	while (!READ_ONCE(*flag) && ktime_get_ns() < end)
		msleep(1);
	return READ_ONCE(*flag);
}

KTEST(srcu_synchronize_waits_for_a_reader_sleeping_in_msleep)
{
	static struct sleeper s;
	unsigned long gps = srcu_batches_completed(&srcu_a);

	s = (struct sleeper){ .ssp = &srcu_a, .sleep_ms = 100, .move_to = -1 };
	KASSERT(start_sleeper(&s));
	synchronize_srcu(&srcu_a);
	/* The reader began before the grace period: it must have ended. */
	KEXPECT(READ_ONCE(s.left));
	KEXPECT(srcu_batches_completed(&srcu_a) > gps);
	kthread_stop(s.task);
}

KTEST(srcu_synchronize_waits_for_a_reader_blocked_on_a_completion)
{
	static struct sleeper s;
	static struct updater u;
	static DECLARE_COMPLETION(go);

	reinit_completion(&go);
	s = (struct sleeper){ .ssp = &srcu_a, .go = &go, .move_to = -1 };
	KASSERT(start_sleeper(&s));
	start_updater(&u, &srcu_a, &s);
	KASSERT(u.task);
	msleep(50);
	/* However long the reader sleeps, synchronize_srcu() is still waiting. */
	KEXPECT(!READ_ONCE(u.done));
	complete(&go);
	kthread_stop(u.task);
	KEXPECT(u.reader_left);
	kthread_stop(s.task);
}

KTEST(srcu_waits_for_a_reader_that_moved_to_another_cpu)
{
	static struct sleeper s;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the reader unlocks on another CPU than it locked on");
	s = (struct sleeper){ .ssp = &srcu_a, .sleep_ms = 50, .move_to = 0 };
	KASSERT(start_sleeper(&s));
	synchronize_srcu(&srcu_a);
	KEXPECT(READ_ONCE(s.left));
	kthread_stop(s.task);
	/* Its lock counted on one CPU and its unlock on another: the sums still balance. */
	synchronize_srcu(&srcu_a);
}

/*
 * A reader that enters while a grace period waits for the first rank
 * takes the other rank; the next grace period must wait for it there.
 */
static struct sleeper late;
static struct completion late_go;

static int release_late_reader(void *arg)
{
	(void)arg;
	msleep(50);
	complete(&late_go);
	return 0;
}

KTEST(srcu_waits_for_a_reader_in_either_rank)
{
	static struct sleeper first;
	static struct updater u;
	static DECLARE_COMPLETION(first_go);
	struct task_struct *releaser;
	unsigned long rank;
	u64 end;

	if (srcu_injected(SRCU_INJECT_NO_FLIP))
		KTEST_SKIP("srcu.inject=no_flip: there is only one rank");
	reinit_completion(&first_go);
	init_completion(&late_go);
	first = (struct sleeper){ .ssp = &srcu_b, .go = &first_go, .move_to = -1 };
	KASSERT(start_sleeper(&first));
	rank = READ_ONCE(srcu_b.completed) & 1;
	start_updater(&u, &srcu_b, &first);
	KASSERT(u.task);
	/* Its grace period flips the index and waits for the first reader's rank. */
	end = ktime_get_ns() + srcu_test_timeout_ns();
	while ((READ_ONCE(srcu_b.completed) & 1) == rank && ktime_get_ns() < end)
		msleep(1);
	late = (struct sleeper){ .ssp = &srcu_b, .go = &late_go, .move_to = -1 };
	KASSERT(start_sleeper(&late));
	KEXPECT(late.idx != first.idx);
	complete(&first_go);
	releaser = kthread_run_on_cpu(release_late_reader, NULL, 0, "srcu_release");
	KASSERT(releaser);
	synchronize_srcu(&srcu_b);	/* began while the late reader was inside */
	KEXPECT(READ_ONCE(late.left));
	kthread_stop(releaser);
	kthread_stop(u.task);
	KEXPECT(u.reader_left);
	kthread_stop(first.task);
	kthread_stop(late.task);
}

/* A callback that completes a completion. */
struct cb_done {
	struct rcu_head rh;
	bool ran;
};

static void note_done(struct rcu_head *rh)
{
	WRITE_ONCE(container_of(rh, struct cb_done, rh)->ran, true);
}

KTEST(srcu_domains_do_not_wait_for_each_other)
{
	static struct sleeper s;
	static struct updater u;
	static DECLARE_COMPLETION(go);
	static struct cb_done cb;

	reinit_completion(&go);
	s = (struct sleeper){ .ssp = &srcu_a, .go = &go, .move_to = -1 };
	KASSERT(start_sleeper(&s));
	start_updater(&u, &srcu_a, &s);	/* a grace period of a, waiting for its reader */
	KASSERT(u.task);
	msleep(10);
	/* b's grace periods go on meanwhile: synchronously and with a callback. */
	synchronize_srcu(&srcu_b);
	cb.ran = false;
	call_srcu(&srcu_b, &cb.rh, note_done);
	KEXPECT(wait_flag(&cb.ran));
	KEXPECT(!READ_ONCE(s.left));
	KEXPECT(!READ_ONCE(u.done));
	complete(&go);
	kthread_stop(u.task);
	KEXPECT(u.reader_left);
	kthread_stop(s.task);
}

KTEST(synchronize_rcu_does_not_wait_for_a_sleeping_srcu_reader)
{
	static struct sleeper s;
	static DECLARE_COMPLETION(go);
	static struct cb_done cb;

	reinit_completion(&go);
	s = (struct sleeper){ .ssp = &srcu_a, .go = &go, .move_to = -1 };
	KASSERT(start_sleeper(&s));
	/* The sleeping reader has switched away: a quiescent state for classic RCU. */
	synchronize_rcu();
	cb.ran = false;
	call_rcu(&cb.rh, note_done);
	rcu_barrier();
	KEXPECT(cb.ran);
	KEXPECT(!READ_ONCE(s.left));
	complete(&go);
	kthread_stop(s.task);
}

#define NCB	16

static struct order_cb {
	struct rcu_head rh;
	int runs;
	int seq;			/* when it ran */
	bool reader_left;		/* what the reader was doing then */
} order_cbs[NR_CPUS][NCB];
static atomic_t order_seq;
static struct sleeper *order_reader;

static void order_cb_fn(struct rcu_head *rh)
{
	struct order_cb *c = container_of(rh, struct order_cb, rh);

	c->runs++;
	c->seq = atomic_inc_return(&order_seq);
	c->reader_left = READ_ONCE(order_reader->left);
}

struct doomed {
	long payload;
	struct rcu_head rh;
};

static void free_doomed(struct rcu_head *rh)
{
	kfree(container_of(rh, struct doomed, rh));
}

KTEST(call_srcu_waits_for_readers_and_srcu_barrier_for_callbacks)
{
	static struct sleeper s;
	int cpu, home = smp_processor_id();
	long live;

	s = (struct sleeper){ .ssp = &srcu_a, .sleep_ms = 50, .move_to = -1 };
	order_reader = &s;
	atomic_set(&order_seq, 0);
	KASSERT(start_sleeper(&s));
	live = kmalloc_live_objects();		/* the reader's task included */
	for_each_online_cpu(cpu) {
		run_on(cpu);
		for (int i = 0; i < NCB; i++) {
			order_cbs[cpu][i].runs = 0;
			call_srcu(&srcu_a, &order_cbs[cpu][i].rh, order_cb_fn);
		}
		for (int i = 0; i < 4; i++) {
			struct doomed *d = kmalloc(sizeof(*d), GFP_KERNEL);

			KASSERT(d);
			call_srcu(&srcu_a, &d->rh, free_doomed);
		}
	}
	run_on(home);
	srcu_barrier(&srcu_a);
	for_each_online_cpu(cpu) {
		for (int i = 0; i < NCB; i++) {
			KEXPECT_EQ(order_cbs[cpu][i].runs, 1);
			KEXPECT(order_cbs[cpu][i].reader_left);
			if (i)	/* in the order they were queued */
				KEXPECT(order_cbs[cpu][i].seq > order_cbs[cpu][i - 1].seq);
		}
	}
	KEXPECT_EQ(kmalloc_live_objects(), live);
	srcu_barrier(&srcu_a);		/* nothing queued: returns, and runs nothing twice */
	KEXPECT_EQ(order_cbs[0][0].runs, 1);
	kthread_stop(s.task);
}

KTEST(srcu_read_locks_nest_and_release_in_any_order)
{
	int a1, a2, b;

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no per-task record");
	KEXPECT(!srcu_read_lock_held(&srcu_a));
	a1 = srcu_read_lock(&srcu_a);
	a2 = srcu_read_lock(&srcu_a);
	b = srcu_read_lock(&srcu_b);
	KEXPECT_EQ(current->srcu_nesting, 3);
	srcu_read_unlock(&srcu_a, a1);		/* not the innermost: allowed */
	KEXPECT(srcu_read_lock_held(&srcu_a));
	srcu_read_unlock(&srcu_b, b);
	KEXPECT(!srcu_read_lock_held(&srcu_b));
	srcu_read_unlock(&srcu_a, a2);
	KEXPECT(!srcu_read_lock_held(&srcu_a));
	KEXPECT_EQ(current->srcu_nesting, 0);
}

static int *srcu_gp_int;

KTEST(srcu_dereference_outside_its_reader_warns_and_goes_on)
{
	static char out[512];
	static int x = 7;
	int *p, idx;

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no read-side checks");
	rcu_assign_pointer(srcu_gp_int, &x);
	idx = srcu_read_lock(&srcu_a);
	console_capture(out, sizeof(out));
	p = srcu_dereference(srcu_gp_int, &srcu_a);		/* inside: no warning */
	console_capture(NULL, 0);
	srcu_read_unlock(&srcu_a, idx);
	KEXPECT(p == &x);
	KEXPECT(strstr(out, "suspicious RCU usage") == NULL);

	idx = srcu_read_lock(&srcu_b);			/* the wrong domain */
	console_capture(out, sizeof(out));
	p = srcu_dereference(srcu_gp_int, &srcu_a);
	console_capture(NULL, 0);
	srcu_read_unlock(&srcu_b, idx);
	KEXPECT(p == &x);
	KEXPECT(strstr(out, "WARNING: suspicious RCU usage") != NULL);
	KEXPECT(strstr(out, "srcu_dereference() outside srcu_read_lock()") != NULL);
}

KTEST(srcu_init_use_and_cleanup_a_dynamic_domain)
{
	struct holder {
		int payload;
		struct srcu_struct srcu;
	} *o = kmalloc(sizeof(*o), GFP_KERNEL);
	static struct cb_done cb;
	int idx;

	KASSERT(o);
	KEXPECT_EQ(init_srcu_struct(&o->srcu), 0);
	KEXPECT(!strcmp(o->srcu.name, "o->srcu"));
	idx = srcu_read_lock(&o->srcu);
	msleep(1);
	srcu_read_unlock(&o->srcu, idx);
	synchronize_srcu(&o->srcu);
	cb.ran = false;
	call_srcu(&o->srcu, &cb.rh, note_done);
	srcu_barrier(&o->srcu);
	KEXPECT(cb.ran);
	KEXPECT(srcu_batches_completed(&o->srcu) >= 2);
	cleanup_srcu_struct(&o->srcu);
	kfree(o);
}

/* ---- The demo (kernel/demo/40_srcu.c) ---- */

static char demo_out[16384];

KTEST(demo_srcu)
{
	const struct demo *d = demo_find("srcu");
	int pace = demo_set_pace(0);
	bool color = demo_set_color(false);
	bool ok;

	KASSERT(d);
	console_capture(demo_out, sizeof(demo_out));
	ok = demo_run(d);
	console_capture(NULL, 0);
	demo_set_pace(pace);
	demo_set_color(color);
	KEXPECT(ok);
	KEXPECT(strstr(demo_out, "demo srcu: done") != NULL);
	KEXPECT(strstr(demo_out, srcu_demo_panic_line) != NULL);
	KEXPECT(strstr(demo_out, "synchronize_srcu() returned after the reader left") != NULL);
	KEXPECT(strstr(demo_out, "synchronize_rcu() returned while the SRCU reader slept") != NULL);
}

/* ---- Misuse, in the checking build: each in a boot of its own ---- */

#define SKIP_IF_PRODUCTION()						\
	do {								\
		if (!CONFIG_RCU_CHECKING)				\
			KTEST_SKIP("production build: no SRCU record");	\
	} while (0)

KTEST_EXPECT_PANIC(misuse_srcu_unbalanced_unlock,
		   "BUG: srcu_read_unlock(&srcu_a, 0) without a matching srcu_read_lock()")
{
	SKIP_IF_PRODUCTION();
	srcu_read_unlock(&srcu_a, 0);
}

KTEST_EXPECT_PANIC(misuse_srcu_index_from_another_domain,
		   "with an index from another domain: 0 came from srcu_read_lock(&srcu_a)")
{
	int idx;

	SKIP_IF_PRODUCTION();
	idx = srcu_read_lock(&srcu_a);
	srcu_read_unlock(&srcu_b, idx);
}

KTEST_EXPECT_PANIC(misuse_synchronize_srcu_inside_its_own_reader,
		   "BUG: synchronize_srcu(&srcu_a) inside srcu_read_lock(&srcu_a)")
{
	SKIP_IF_PRODUCTION();
	srcu_read_lock(&srcu_a);
	synchronize_srcu(&srcu_a);	/* would wait for itself forever */
}

static void never_runs(struct rcu_head *rh)
{
	(void)rh;
}

KTEST_EXPECT_WARN(misuse_cleanup_srcu_struct_with_a_reader_or_a_callback,
		  "cleanup_srcu_struct(&dyn) with 1 readers still inside it")
{
	static struct srcu_struct dyn;
	static struct rcu_head rh;
	static char out[1024];
	int idx;

	init_srcu_struct(&dyn);
	idx = srcu_read_lock(&dyn);
	cleanup_srcu_struct(&dyn);		/* warns, and keeps it */
	srcu_read_unlock(&dyn, idx);
	/*
	 * A callback pending: the grace-period thread runs on CPU 0, as we
	 * do, and nothing here sleeps before cleanup_srcu_struct() looks.
	 */
	run_on(0);
	call_srcu(&dyn, &rh, never_runs);
	console_capture(out, sizeof(out));
	cleanup_srcu_struct(&dyn);
	console_capture(NULL, 0);
	KEXPECT(strstr(out, "cleanup_srcu_struct(&dyn) with 1 callbacks pending") != NULL);
	srcu_barrier(&dyn);
	cleanup_srcu_struct(&dyn);		/* now it goes */
	KEXPECT(dyn.magic == 0);
}
