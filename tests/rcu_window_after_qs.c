/*
 * The off-by-one window.  A grace period g is running; the reader's CPU
 * has already passed its quiescent state for g, and a reader starts right
 * after it.  The updater's CPU still owes g (it does not switch), so g is
 * still running when the updater removes the element the reader holds and
 * queues its callback (or takes a polled cookie).  g cannot protect that
 * reader: the callback must wait for the grace period after g, and so
 * must the cookie.  A callback tagged with g itself ((s + 2) & ~1 for the
 * snapshot), one merged into an older segment, or one taken as ready once
 * its grace period has merely started, is invoked while the reader still
 * holds the element -- every time, because the test waits for exactly
 * that state instead of hoping for it.
 *
 * A callback queued before g started (A) sits in the wait segment when
 * the element's callback (B) arrives, and one more (C) follows it, so the
 * segments hold two grace periods at once, as in a busy kernel.
 */
#include "rcu_window.h"

static struct {
	unsigned long gp;	/* updater: the grace period g */
	int go;			/* updater: g is running, find your quiescent state */
	int holding;		/* reader: inside, on the element */
	int release;		/* updater: let go */
	int done;		/* reader: left */
	int freed;		/* B's callback ran */
	int id;
	int died, hung, missed;	/* the reader's findings */
} q;

static struct win_elem *q_ptr;
static struct rcu_head q_a, q_c;

static void q_noop_cb(struct rcu_head *rh) { (void)rh; }

static void q_free_cb(struct rcu_head *rh)
{
	kfree(container_of(rh, struct win_elem, rh));
	smp_store_release(&q.freed, 1);
}

static int q_reader(void *arg)
{
	int me = smp_processor_id();
	struct win_elem *p;
	struct rcu_stats s;
	u64 t0 = ktime_get_ns();

	(void)arg;
	while (!smp_load_acquire(&q.go) && win_budget_left(t0))
		cond_resched();
	/* Pass our quiescent state for g, and start reading right after it. */
	for (;;) {
		cond_resched();
		rcu_get_stats(&s);
		if (s.gp_seq == q.gp && !cpumask_test_cpu(me, &s.qs_mask))
			break;
		if (s.gp_seq != q.gp || !win_budget_left(t0)) {
			q.missed = 1;	/* g ended without the updater: already broken */
			break;
		}
	}
	rcu_read_lock();
	p = rcu_dereference(q_ptr);
	if (p && win_elem_live(p, q.id)) {
		smp_store_release(&q.holding, 1);
		while (!smp_load_acquire(&q.release)) {
			if (!win_elem_live(p, q.id) || !win_budget_left(t0))
				break;
			udelay(2);
		}
		q.died = !win_elem_live(p, q.id);
		q.hung = !win_budget_left(t0);
	} else {
		q.missed = 1;
	}
	rcu_read_unlock();
	smp_store_release(&q.done, 1);
	return 0;
}

static bool b_ran(void *arg) { (void)arg; return smp_load_acquire(&q.freed); }

static bool cookies_done(void *arg)
{
	unsigned long *c = arg;

	return poll_state_synchronize_rcu(c[0]) || poll_state_synchronize_rcu(c[1]);
}

/*
 * Sets up the window on cpu and returns with the reader holding the
 * element, g running and this CPU still owing it; NULL if it could not.
 */
static struct task_struct *q_open_window(int cpu, int id)
{
	struct task_struct *t;
	struct rcu_stats s;
	u64 t0 = ktime_get_ns();

	memset(&q, 0, sizeof(q));
	q.id = id;
	rcu_assign_pointer(q_ptr, win_elem_new(id));
	if (!q_ptr)
		return NULL;
	t = kthread_run_on_cpu(q_reader, NULL, cpu, "q_reader");
	if (!t)
		return NULL;
	/* Best effort: start from no grace period, so A waits for an earlier one than B. */
	rcu_get_stats(&s);
	while ((s.gp_seq & 1) && win_budget_left(t0)) {
		msleep(1);
		rcu_get_stats(&s);
	}
	call_rcu(&q_a, q_noop_cb);	/* starts g (or joins the one running) */
	rcu_get_stats(&s);
	q.gp = s.gp_seq;
	smp_store_release(&q.go, 1);
	/* Busy, never switching: this CPU keeps owing g. */
	t0 = ktime_get_ns();
	while (!smp_load_acquire(&q.holding) && !smp_load_acquire(&q.done) &&
	       win_budget_left(t0))
		udelay(5);
	return t;
}

/* Lets the reader go, waits for it, and reports; true if nothing went wrong. */
static bool q_close_window(struct task_struct *t, int cpu, enum win_wait res,
			   const char *how)
{
	bool ok;

	smp_store_release(&q.release, 1);
	kthread_stop(t);
	ok = res != WIN_HUNG && !q.died && !q.hung && !q.missed;
	if (!ok)
		ktest_info("reader on CPU%d after its quiescent state in g=%ld, %s: %s%s%s",
			   cpu, (long)q.gp, how, q.died ? "its element was freed under it" : "",
			   q.missed ? "g ended while this CPU still owed it" : "",
			   q.hung || res == WIN_HUNG ? "a wait ran out of budget" : "");
	return ok;
}

/*
 * How the updater retires B, the element the reader holds, once the window
 * is open (how names it in a report); true if nothing went wrong.  It ends
 * with rcu_barrier(), so every callback of the round has run.
 */
typedef bool q_retire_fn(struct task_struct *t, int cpu, struct win_elem *b,
			 const char *how);

/* B by call_rcu(), and C after it: both must wait for the grace period after g. */
static bool q_retire_by_call_rcu(struct task_struct *t, int cpu, struct win_elem *b,
				 const char *how)
{
	enum win_wait res;
	bool ok;

	call_rcu(&b->rh, q_free_cb);	/* B: must wait for the grace period after g */
	call_rcu(&q_c, q_noop_cb);	/* C: later, same grace period as B */
	res = win_wait_gp_blocked(cpu, b_ran, NULL);
	ok = q_close_window(t, cpu, res, how);
	rcu_barrier();			/* A, B and C are free again */
	KEXPECT(smp_load_acquire(&q.freed));
	return ok;
}

/* B freed as soon as one of two polled cookies, taken in g, says it may be. */
static bool q_retire_by_polling(struct task_struct *t, int cpu, struct win_elem *b,
				const char *how)
{
	unsigned long c[2];
	enum win_wait res;
	bool ok;

	c[0] = get_state_synchronize_rcu();
	c[1] = start_poll_synchronize_rcu();
	res = win_wait_gp_blocked(cpu, cookies_done, c);
	if (res == WIN_DONE)
		kfree(b);		/* the cookie said so: a real user frees now */
	ok = q_close_window(t, cpu, res, how);
	if (res != WIN_DONE) {
		cond_synchronize_rcu(c[1]);
		ok &= poll_state_synchronize_rcu(c[0]) && poll_state_synchronize_rcu(c[1]);
		kfree(b);
	}
	rcu_barrier();
	return ok;
}

/* The window once on each reader CPU, with B retired by retire(). */
static void q_window_on_each_reader_cpu(q_retire_fn *retire, const char *how)
{
	int cpus[NR_CPUS], n, failed = 0;
	long live = kmalloc_live_objects();

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the reader and the updater run at once");
	run_on(0);
	n = win_reader_cpus(cpus);
	for (int i = 0; i < n; i++) {
		struct task_struct *t = q_open_window(cpus[i], i + 1);
		struct win_elem *b = q_ptr;

		KASSERT(t != NULL);
		RCU_INIT_POINTER(q_ptr, NULL);
		failed += !retire(t, cpus[i], b, how);
	}
	KEXPECT_EQ(failed, 0);
	KEXPECT_EQ(kmalloc_live_objects(), live);
}

KTEST(rcu_window_reader_after_qs_call_rcu)
{
	q_window_on_each_reader_cpu(q_retire_by_call_rcu, "call_rcu()");
}

KTEST(rcu_window_reader_after_qs_polled)
{
	q_window_on_each_reader_cpu(q_retire_by_polling, "polled cookies");
}

/*
 * The same window, again and again while the grace-period number crosses
 * its wrap, when the kernel starts it close enough below the wrap (as
 * Linux does, so that a boot of a few hundred grace periods crosses it):
 * cookies and callbacks compare modulo the counter, and one that compares
 * plainly, or keeps too few bits, reads done too early or never.  Far
 * from the wrap it runs a few windows and says so.
 */
#define WRAP_REACH	4096UL	/* grace periods: crossing further off would take too long */

KTEST(rcu_window_reader_after_qs_polled_across_the_wrap)
{
	struct rcu_stats s;
	unsigned long start, to_wrap, rounds;
	bool crossed = false;
	long live = kmalloc_live_objects();
	int failed = 0;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the reader and the updater run at once");
	run_on(0);
	rcu_get_stats(&s);
	start = s.gp_seq;
	to_wrap = (0UL - start) / 2;	/* grace periods until gp_seq wraps to 0 */
	rounds = to_wrap <= WRAP_REACH ? WRAP_REACH : 4;
	for (unsigned long r = 0; r < rounds && !crossed; r++) {
		int cpu = num_online_cpus() - 1;
		struct task_struct *t = q_open_window(cpu, (int)r + 1);
		struct win_elem *b = q_ptr;

		KASSERT(t != NULL);
		RCU_INIT_POINTER(q_ptr, NULL);
		failed += !q_retire_by_polling(t, cpu, b, "polled cookies near the wrap");
		rcu_get_stats(&s);
		crossed = s.gp_seq < start;
	}
	ktest_info("gp_seq went from %ld to %ld: %s", (long)start, (long)s.gp_seq,
		   crossed ? "crossed the wrap" :
		   to_wrap > WRAP_REACH ? "it starts far from the wrap, nothing to cross" :
		   "did not reach the wrap");
	KEXPECT_EQ(failed, 0);
	if (to_wrap <= WRAP_REACH)
		KEXPECT(crossed);
	KEXPECT_EQ(kmalloc_live_objects(), live);
}
