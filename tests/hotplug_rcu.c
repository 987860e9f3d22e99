/*
 * RCU across CPU hotplug: the leaving CPU's callbacks move in order and
 * still wait for their grace periods, grace periods keep ending, and
 * synchronize_rcu(), the polled API and rcu_barrier() stay correct while
 * CPUs go down and come back.  Every test leaves every CPU online again.
 * (The rcu.inject= words offline_* each fail one of these: docs/rcu.md.)
 */
#include "ktest.h"

static int hpr_last_cpu(void)
{
	int cpu, last = 0;

	for_each_online_cpu(cpu)
		last = cpu;
	return last;
}

/* Generous bounds, counted in sleeps, that grow with the CPU count. */
static int hpr_patience(void)
{
	return 3000 * num_online_cpus();
}

#define HPR_NCBS	8
static struct rcu_head hpr_heads[HPR_NCBS];
static int hpr_order[HPR_NCBS];
static atomic_t hpr_ran;

static void hpr_record(struct rcu_head *head)
{
	int i = atomic_inc_return_relaxed(&hpr_ran) - 1;

	if (i < HPR_NCBS)
		hpr_order[i] = head - hpr_heads;
}

/*
 * The second half is queued by the leaving CPU in its last moments (the
 * test's cpu_dying_hook): they cannot have run there, so the CPU goes
 * offline holding them.
 */
static void hpr_queue_second_half(int cpu)
{
	(void)cpu;
	for (int i = HPR_NCBS / 2; i < HPR_NCBS; i++)
		call_rcu(&hpr_heads[i], hpr_record);
}

KTEST(hotplug_rcu_callbacks_of_a_leaving_cpu_run_in_order)
{
	int cpu = hpr_last_cpu();

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	atomic_set(&hpr_ran, 0);
	memset(hpr_order, -1, sizeof(hpr_order));
	KASSERT_EQ(run_on(cpu), 0);
	for (int i = 0; i < HPR_NCBS / 2; i++)
		call_rcu(&hpr_heads[i], hpr_record);
	KASSERT_EQ(run_on(0), 0);
	WRITE_ONCE(cpu_dying_hook, hpr_queue_second_half);
	KEXPECT_EQ(remove_cpu(cpu), 0);
	WRITE_ONCE(cpu_dying_hook, NULL);
	/* They went to a CPU that stays: rcu_barrier() (which skips cpu) waits for them. */
	rcu_barrier();
	KEXPECT_EQ(atomic_read(&hpr_ran), HPR_NCBS);
	for (int i = 0; i < HPR_NCBS; i++)
		KEXPECT_EQ(hpr_order[i], i);
	KEXPECT_EQ(add_cpu(cpu), 0);
	rcu_barrier();		/* (callbacks left behind, with the fault injected, run now) */
}

/* A reader that holds its CPU (it never yields) inside rcu_read_lock() until released. */
static bool hpr_holding, hpr_release;

static int hpr_holder_fn(void *arg)
{
	(void)arg;
	rcu_read_lock();
	WRITE_ONCE(hpr_holding, true);
	while (!READ_ONCE(hpr_release))
		cpu_relax();
	rcu_read_unlock();
	return 0;
}

static bool hpr_wait_for(bool *flag)
{
	for (int i = 0; i < hpr_patience(); i++) {
		if (READ_ONCE(*flag))
			return true;
		msleep(1);
	}
	return false;
}

static bool hpr_freed;

static void hpr_free_cb(struct rcu_head *head)
{
	(void)head;
	WRITE_ONCE(hpr_freed, true);
}

/*
 * CPU 1 holds a reader; a callback queued on the last CPU waits for a
 * grace period that needs CPU 1.  The last CPU goes down and its callback
 * moves: it must still wait for the reader, however long we watch.
 */
KTEST(hotplug_rcu_moved_callbacks_still_wait_for_their_grace_period)
{
	static struct rcu_head rh;
	struct task_struct *holder;
	int cpu = hpr_last_cpu();

	if (num_online_cpus() < 3)
		KTEST_SKIP("needs three CPUs: a reader on one, another that goes down, and ours");
	hpr_holding = hpr_release = hpr_freed = false;
	holder = kthread_run_on_cpu(hpr_holder_fn, NULL, 1, "hpr_holder");
	KASSERT(holder != NULL);
	KASSERT(hpr_wait_for(&hpr_holding));
	KASSERT_EQ(run_on(cpu), 0);
	call_rcu(&rh, hpr_free_cb);
	KASSERT_EQ(run_on(0), 0);
	KEXPECT_EQ(remove_cpu(cpu), 0);
	/* A hundred ticks of ours and more: a broken move invokes it at once. */
	for (int i = 0; i < 100 && !READ_ONCE(hpr_freed); i++)
		msleep(1);
	KEXPECT(!READ_ONCE(hpr_freed));
	WRITE_ONCE(hpr_release, true);
	kthread_stop(holder);
	rcu_barrier();
	KEXPECT(READ_ONCE(hpr_freed));
	KEXPECT_EQ(add_cpu(cpu), 0);
}

/*
 * synchronize_rcu() and a polled cookie while CPU 1 holds a reader and
 * another CPU goes down and comes back twice: neither may end before the
 * reader does.
 */
struct hpr_sync {
	bool done;
};

static int hpr_sync_fn(void *arg)
{
	struct hpr_sync *s = arg;

	synchronize_rcu();
	WRITE_ONCE(s->done, true);
	return 0;
}

KTEST(hotplug_rcu_synchronize_rcu_waits_for_a_held_reader_while_cpus_come_and_go)
{
	static struct hpr_sync s;
	struct task_struct *holder, *syncer;
	unsigned long cookie;
	int cpu = hpr_last_cpu();

	if (num_online_cpus() < 3)
		KTEST_SKIP("needs three CPUs: a reader on one, another that goes down, and ours");
	hpr_holding = hpr_release = false;
	s.done = false;
	holder = kthread_run_on_cpu(hpr_holder_fn, NULL, 1, "hpr_holder");
	KASSERT(holder != NULL);
	KASSERT(hpr_wait_for(&hpr_holding));
	cookie = start_poll_synchronize_rcu();
	syncer = kthread_run_on_cpu(hpr_sync_fn, &s, cpu, "hpr_sync");
	KASSERT(syncer != NULL);
	for (int round = 0; round < 2; round++) {
		KEXPECT_EQ(remove_cpu(cpu), 0);
		KEXPECT_EQ(add_cpu(cpu), 0);
	}
	for (int i = 0; i < 50; i++)
		msleep(1);
	KEXPECT(!READ_ONCE(s.done));
	KEXPECT(!poll_state_synchronize_rcu(cookie));
	WRITE_ONCE(hpr_release, true);
	kthread_stop(holder);
	KEXPECT(hpr_wait_for(&s.done));
	kthread_stop(syncer);
	cond_synchronize_rcu(cookie);
	KEXPECT(poll_state_synchronize_rcu(cookie));
}

/* The on/off thread of the tests below: one CPU down and up, rounds times. */
struct hpr_onoff {
	int cpu, rounds, errors;
	bool done;
};

static int hpr_onoff_fn(void *arg)
{
	struct hpr_onoff *o = arg;

	for (int i = 0; i < o->rounds; i++) {
		o->errors += remove_cpu(o->cpu) != 0;
		msleep(1);
		o->errors += add_cpu(o->cpu) != 0;
		msleep(1);
	}
	WRITE_ONCE(o->done, true);
	return 0;
}

static atomic_t hpr_queued, hpr_invoked;

static void hpr_count_cb(struct rcu_head *head)
{
	atomic_inc(&hpr_invoked);
	kfree(head);
}

/*
 * rcu_barrier() while a CPU goes down and comes back: after each call,
 * every callback queued before it (on every CPU we could reach, the one
 * going down included) has run.
 */
KTEST(hotplug_rcu_barrier_across_hotplug)
{
	static struct hpr_onoff o;
	struct task_struct *t;
	int rounds = 0;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	memset(&o, 0, sizeof(o));
	o.cpu = hpr_last_cpu();
	o.rounds = 10;
	atomic_set(&hpr_queued, 0);
	atomic_set(&hpr_invoked, 0);
	t = kthread_run_on_cpu(hpr_onoff_fn, &o, 0, "hpr_onoff");
	KASSERT(t != NULL);
	while (!READ_ONCE(o.done) || rounds < 3) {
		int cpu, queued;

		for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
			struct rcu_head *h;

			if (run_on(cpu))
				continue;	/* offline, or went offline meanwhile */
			for (int i = 0; i < 4; i++) {
				h = kmalloc(sizeof(*h), GFP_KERNEL);
				KASSERT(h != NULL);
				atomic_inc(&hpr_queued);
				call_rcu(h, hpr_count_cb);
			}
		}
		queued = atomic_read(&hpr_queued);
		rcu_barrier();
		KEXPECT_EQ(atomic_read(&hpr_invoked), queued);
		rounds++;
	}
	kthread_stop(t);
	KEXPECT_EQ(o.errors, 0);
	KEXPECT(cpu_online(o.cpu));
}

/*
 * A grace period that starts after the leaving CPU's last context switch,
 * while it is still online, waits for it: only the leaving CPU's own
 * report (rcu_report_dead()) can end it.  The hook runs on that CPU in
 * exactly that window and holds it there until such a grace period runs.
 */
static struct rcu_head hpr_window_head;
static bool hpr_window_seen;

static void hpr_noop_cb(struct rcu_head *head)
{
	(void)head;
}

static void hpr_dying_hook(int cpu)
{
	/* A bound only a broken grace-period machine could reach. */
	u64 end = ktime_get_ns() + 60 * NSEC_PER_SEC;

	call_rcu(&hpr_window_head, hpr_noop_cb);	/* moves with our other callbacks */
	while (!rcu_cpu_owes_qs(cpu) && ktime_get_ns() < end)
		cpu_relax();
	WRITE_ONCE(hpr_window_seen, rcu_cpu_owes_qs(cpu));
}

KTEST(hotplug_rcu_leaving_cpu_reports_its_quiescent_state)
{
	static struct rcu_head rh;
	int cpu = hpr_last_cpu(), waited = 0;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	hpr_window_seen = hpr_freed = false;
	WRITE_ONCE(cpu_dying_hook, hpr_dying_hook);
	KEXPECT_EQ(remove_cpu(cpu), 0);
	WRITE_ONCE(cpu_dying_hook, NULL);
	KEXPECT(hpr_window_seen);	/* a grace period waited for the leaving CPU */
	call_rcu(&rh, hpr_free_cb);
	while (!READ_ONCE(hpr_freed) && waited++ < 500 * num_online_cpus())
		msleep(1);
	KEXPECT(READ_ONCE(hpr_freed));	/* grace periods go on without it */
	KEXPECT_EQ(add_cpu(cpu), 0);
	if (READ_ONCE(hpr_freed))
		rcu_barrier();
}

/*
 * Grace periods keep ending while a CPU goes down and comes back again
 * and again, with callbacks queued from two other CPUs: a leaving CPU that a
 * grace period waits for must report for itself, or that grace period
 * (and every callback after it) waits forever.
 */
static bool hpr_flood_stop;
static atomic_t hpr_flood_cbs;

static void hpr_flood_cb(struct rcu_head *head)
{
	atomic_dec(&hpr_flood_cbs);
	kfree(head);
}

static int hpr_flood_fn(void *arg)
{
	u64 burst = ktime_get_ns();

	(void)arg;
	while (!READ_ONCE(hpr_flood_stop)) {
		struct rcu_head *h = kmalloc(sizeof(*h), GFP_KERNEL);

		if (h && atomic_read(&hpr_flood_cbs) < 64) {
			atomic_inc(&hpr_flood_cbs);
			call_rcu(h, hpr_flood_cb);
		} else {
			kfree(h);
		}
		worker_pause(&burst);
	}
	return 0;
}

KTEST(hotplug_rcu_grace_periods_keep_ending_across_hotplug)
{
	static struct workers flood;
	static struct rcu_head rh;
	int cpu = hpr_last_cpu(), stuck = 0;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	hpr_flood_stop = false;
	atomic_set(&hpr_flood_cbs, 0);
	KASSERT(workers_start_others(&flood, 2, hpr_flood_fn, NULL, 0, "hpr_flood/%d"));
	for (int round = 0; round < 6 && !stuck; round++) {
		KEXPECT_EQ(remove_cpu(cpu), 0);
		hpr_freed = false;
		call_rcu(&rh, hpr_free_cb);
		if (!hpr_wait_for(&hpr_freed)) {
			ktest_info("round %d: no grace period ended with CPU%d offline", round, cpu);
			stuck++;
		}
		KEXPECT_EQ(add_cpu(cpu), 0);
	}
	KEXPECT_EQ(stuck, 0);
	WRITE_ONCE(hpr_flood_stop, true);
	workers_stop(&flood);
	if (!stuck)
		rcu_barrier();
}

/*
 * SRCU across hotplug: a reader sleeps inside srcu_read_lock() on a CPU
 * that goes down; it wakes on another CPU and unlocks there.  Its domain's
 * grace period waits for it all along: the counters are summed over every
 * possible CPU, online or not.
 */
DEFINE_STATIC_SRCU(hpr_srcu);
static bool hpr_srcu_locked, hpr_srcu_release, hpr_srcu_synced;
static int hpr_srcu_unlock_cpu = -1;

static int hpr_srcu_reader_fn(void *arg)
{
	int idx = srcu_read_lock(&hpr_srcu);

	(void)arg;
	WRITE_ONCE(hpr_srcu_locked, true);
	while (!READ_ONCE(hpr_srcu_release))
		msleep(1);
	WRITE_ONCE(hpr_srcu_unlock_cpu, smp_processor_id());
	srcu_read_unlock(&hpr_srcu, idx);
	return 0;
}

static int hpr_srcu_sync_fn(void *arg)
{
	(void)arg;
	synchronize_srcu(&hpr_srcu);
	WRITE_ONCE(hpr_srcu_synced, true);
	return 0;
}

KTEST(hotplug_rcu_srcu_reader_sleeping_on_a_leaving_cpu_is_waited_for)
{
	struct task_struct *reader, *syncer;
	int cpu = hpr_last_cpu();

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	hpr_srcu_locked = hpr_srcu_release = hpr_srcu_synced = false;
	reader = kthread_run_on_cpu(hpr_srcu_reader_fn, NULL, cpu, "hpr_srcu_r");
	KASSERT(reader != NULL);
	KASSERT(hpr_wait_for(&hpr_srcu_locked));
	KEXPECT_EQ(remove_cpu(cpu), 0);
	syncer = kthread_run_on_cpu(hpr_srcu_sync_fn, NULL, 0, "hpr_srcu_s");
	KASSERT(syncer != NULL);
	for (int i = 0; i < 50; i++)
		msleep(1);
	KEXPECT(!READ_ONCE(hpr_srcu_synced));
	WRITE_ONCE(hpr_srcu_release, true);
	KEXPECT(hpr_wait_for(&hpr_srcu_synced));
	KEXPECT(READ_ONCE(hpr_srcu_unlock_cpu) != cpu);	/* it moved, and unlocked elsewhere */
	kthread_stop(reader);
	kthread_stop(syncer);
	KEXPECT_EQ(add_cpu(cpu), 0);
}

/*
 * Stall detection across hotplug: with the leaving CPU's report broken
 * (rcu.inject=offline_no_qs), the grace period that waits for it is
 * reported, naming the CPU as offline.  Bringing the CPU back ends it:
 * its first context switch reports.
 */
KTEST_EXPECT_WARN(hotplug_rcu_stall_names_an_offline_cpu_that_owes_its_qs,
		  "went down without reporting its quiescent state",
		  "rcu.inject=offline_no_qs rcu_cpu_stall_timeout=3")
{
	struct rcu_stats s0, s;
	int cpu = hpr_last_cpu();

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	rcu_get_stats(&s0);
	hpr_window_seen = false;
	WRITE_ONCE(cpu_dying_hook, hpr_dying_hook);
	KEXPECT_EQ(remove_cpu(cpu), 0);
	WRITE_ONCE(cpu_dying_hook, NULL);
	KEXPECT(hpr_window_seen);
	do {
		msleep(10);
		rcu_get_stats(&s);
	} while (s.stall_reports == s0.stall_reports);
	KEXPECT_EQ(add_cpu(cpu), 0);
}

/*
 * synchronize_rcu_expedited() while a CPU goes down and comes back, again
 * and again.  With every other CPU offline it has nobody to wait for and
 * returns without sleeping, so the loop yields each time: otherwise it
 * would keep CPU0, which the on/off thread shares, to itself (a
 * non-preemptive kernel; the stall warning names such a loop).
 */
static int hpr_exp_fn(void *arg)
{
	struct hpr_onoff *o = arg;

	while (!READ_ONCE(o->done)) {
		synchronize_rcu_expedited();
		cond_resched();
	}
	return 0;
}

KTEST(hotplug_rcu_expedited_across_hotplug)
{
	static struct hpr_onoff o;
	struct task_struct *onoff, *exp;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	memset(&o, 0, sizeof(o));
	o.cpu = hpr_last_cpu();
	o.rounds = 10;
	exp = kthread_run_on_cpu(hpr_exp_fn, &o, 0, "hpr_exp");
	KASSERT(exp != NULL);
	onoff = kthread_run_on_cpu(hpr_onoff_fn, &o, 0, "hpr_onoff");
	KASSERT(onoff != NULL);
	KEXPECT(hpr_wait_for(&o.done));
	kthread_stop(onoff);
	kthread_stop(exp);
	KEXPECT_EQ(o.errors, 0);
}

/*
 * A CPU coming online starts with no reader that a grace period could
 * miss.  The arriving CPU's very first act, in the test's
 * cpu_starting_hook (online, interrupts off, before its idle loop has
 * run), is a reader that picks up element A and holds it; an asynchronous
 * grace period is in flight as the CPU arrives.  Then A is replaced and
 * each kind of grace period starts while that reader holds it:
 * call_rcu(), a synchronize_rcu() tour, then an expedited grace period.
 * None may end before the reader does.  (rcu.inject=online_starts_idle
 * leaves the arriving CPU marked idle: call_rcu()'s and the expedited
 * grace period report for it; tour_skip_cpu makes the tour skip it.)
 *
 * The expedited caller spins until its IPI is taken, which the reader's
 * CPU does only once the reader ends and its interrupts are on: with two
 * CPUs nothing else of ours could run, so the reader itself watches.  Once
 * the expedited grace period has started, it waits a hundred of CPU 0's
 * ticks, notes whether the grace periods ended, and then ends.  For the
 * same reason the tour's thread exists before the reader starts: creating
 * a thread sends IPIs that wait for every CPU.
 */
struct hpr_elem {
	bool freed;
	struct rcu_head rh;
};
static struct hpr_elem hpr_a, hpr_b;
static struct hpr_elem *hpr_ptr;
static struct hpr_arrival {
	bool reading;		/* the hook's reader holds what it read */
	struct hpr_elem *saw;	/* what it read */
	bool exp_phase;		/* the test is about to start an expedited grace period */
	unsigned long exp_base;	/* rcu_stats.exp_started before it */
	bool exp_started;	/* the reader saw that grace period start */
	bool exp_done;		/* synchronize_rcu_expedited() returned */
	bool exp_done_early;	/* ...while the reader held A */
	bool tour_done_early, freed_early;
} hpr_arr;
static bool hpr_tour_go, hpr_tour_done;

static void hpr_arrival_reader_hook(int cpu)
{
	u64 end = ktime_get_ns() + 60 * NSEC_PER_SEC;	/* only a broken test waits this long */
	struct hpr_elem *p;
	struct rcu_stats s;
	u64 ticks0;

	(void)cpu;
	rcu_read_lock();
	p = rcu_dereference(hpr_ptr);
	WRITE_ONCE(hpr_arr.saw, p);
	WRITE_ONCE(hpr_arr.reading, true);
	do {
		cpu_relax();
		rcu_get_stats(&s);
	} while ((!READ_ONCE(hpr_arr.exp_phase) || s.exp_started == READ_ONCE(hpr_arr.exp_base)) &&
		 ktime_get_ns() < end);
	WRITE_ONCE(hpr_arr.exp_started, s.exp_started != hpr_arr.exp_base);
	ticks0 = READ_ONCE(cpus[0].ticks);
	while (READ_ONCE(cpus[0].ticks) < ticks0 + 100 && ktime_get_ns() < end)
		cpu_relax();
	WRITE_ONCE(hpr_arr.exp_done_early, READ_ONCE(hpr_arr.exp_done));
	WRITE_ONCE(hpr_arr.tour_done_early, READ_ONCE(hpr_tour_done));
	WRITE_ONCE(hpr_arr.freed_early, READ_ONCE(p->freed));
	rcu_read_unlock();
}

static void hpr_elem_free_cb(struct rcu_head *head)
{
	WRITE_ONCE(container_of(head, struct hpr_elem, rh)->freed, true);
}

static int hpr_tour_fn(void *arg)
{
	(void)arg;
	while (!READ_ONCE(hpr_tour_go))
		msleep(1);
	synchronize_rcu();
	WRITE_ONCE(hpr_tour_done, true);
	return 0;
}

KTEST(hotplug_rcu_arriving_cpus_first_reader_is_waited_for)
{
	static struct rcu_head in_flight;
	struct task_struct *tour;
	struct rcu_stats s;
	int cpu = 1;	/* the CPU after ours: tour_skip_cpu's victim */
	int i;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	KASSERT_EQ(run_on(0), 0);
	memset(&hpr_a, 0, sizeof(hpr_a));
	memset(&hpr_b, 0, sizeof(hpr_b));
	memset(&hpr_arr, 0, sizeof(hpr_arr));
	hpr_tour_go = hpr_tour_done = hpr_freed = false;
	rcu_assign_pointer(hpr_ptr, &hpr_a);
	tour = kthread_run_on_cpu(hpr_tour_fn, NULL, 0, "hpr_tour");
	KASSERT(tour != NULL);
	KASSERT_EQ(remove_cpu(cpu), 0);
	WRITE_ONCE(cpu_starting_hook, hpr_arrival_reader_hook);
	call_rcu(&in_flight, hpr_free_cb);	/* a grace period in flight as it arrives */
	KEXPECT_EQ(add_cpu(cpu), 0);
	WRITE_ONCE(cpu_starting_hook, NULL);
	KASSERT(hpr_wait_for(&hpr_arr.reading));
	KEXPECT(READ_ONCE(hpr_arr.saw) == &hpr_a);
	rcu_assign_pointer(hpr_ptr, &hpr_b);

	/* call_rcu(): until its grace period waits for the reader's CPU (or, broken, ends). */
	call_rcu(&hpr_a.rh, hpr_elem_free_cb);
	for (i = 0; i < hpr_patience() && !rcu_cpu_owes_qs(cpu) && !READ_ONCE(hpr_a.freed); i++)
		msleep(1);
	/* synchronize_rcu(): until the tour is queued there (or, broken, ends). */
	WRITE_ONCE(hpr_tour_go, true);
	for (i = 0; i < hpr_patience() && READ_ONCE(tour->cpu) != cpu && !READ_ONCE(hpr_tour_done); i++)
		msleep(1);
	/* A hundred ticks of ours and more: a grace period that missed the reader ends in a few. */
	for (i = 0; i < 100; i++)
		msleep(1);
	KEXPECT(!READ_ONCE(hpr_a.freed));	/* call_rcu() */
	KEXPECT(!READ_ONCE(hpr_tour_done));	/* synchronize_rcu() */

	/* synchronize_rcu_expedited(), here: the reader ends itself (see above). */
	rcu_get_stats(&s);
	WRITE_ONCE(hpr_arr.exp_base, s.exp_started);
	WRITE_ONCE(hpr_arr.exp_phase, true);
	synchronize_rcu_expedited();
	WRITE_ONCE(hpr_arr.exp_done, true);
	KEXPECT(hpr_wait_for(&hpr_tour_done));
	kthread_stop(tour);
	KEXPECT(READ_ONCE(hpr_arr.exp_started));
	KEXPECT(!READ_ONCE(hpr_arr.exp_done_early));	/* synchronize_rcu_expedited() */
	KEXPECT(!READ_ONCE(hpr_arr.tour_done_early));
	KEXPECT(!READ_ONCE(hpr_arr.freed_early));
	rcu_barrier();
	KEXPECT(READ_ONCE(hpr_a.freed));
	KEXPECT(READ_ONCE(hpr_freed));		/* the one in flight ended too */
	KEXPECT(cpu_online(cpu));
}
