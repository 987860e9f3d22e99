/*
 * SRCU's barrier and cleanup against its grace-period thread (srcu_gp, on
 * CPU 0), with the thread held exactly where a subtle bug shows:
 *
 *  - srcu_barrier() returns only once every callback queued before it has
 *    returned: one the thread is still running (held there), ones behind
 *    it in the same batch (ready, not yet invoked), and one queued
 *    meanwhile that waits for a grace period of its own.  A callback that
 *    has only started is not done: the thread stops counting it as
 *    pending before it invokes it (srcu_gp_end()).
 *  - cleanup_srcu_struct() returns only once the thread is done with the
 *    domain: not while it runs the domain's last callback, nor while it
 *    is switched out between that callback and taking the domain off its
 *    list (it yields every 16 callbacks: SW_YIELD_EVERY), nor while a
 *    seam holds it there (srcu_retire_hook).  Or it refuses, with its
 *    warning, and leaves the domain as it is.
 *
 * Each hold ends on an event, never on a time: the call returned (the
 * bug), or its caller sleeps inside it -- a correct SRCU waits there for
 * what we hold, and nothing more can happen until we let go.  A cleanup
 * that gives the thread a while instead of waiting until it lets go also
 * sleeps, so the holds of srcu_gp after the domain's last callback last
 * longer: until cleanup's caller has slept and woken SW_HOLD_WAKES times
 * (cleanup polls), or slept through SW_HOLD_TICKS ticks of its own CPU
 * without waking, both counted, which a wait that is usually long enough
 * (a tick, ten polls) does not survive.  The holder
 * keeps CPU 0 (where srcu_gp runs) and the caller runs on the last CPU: two
 * CPUs at least.
 */
#include "rcu_window.h"

/* srcu_gp_end() calls cond_resched() after every 16th callback of a batch. */
#define SW_YIELD_EVERY	16
/* What cleanup's caller must sleep through before a hold ends: so many polls, or ticks. */
#define SW_HOLD_WAKES	12
#define SW_HOLD_TICKS	24

static struct srcu_struct sw_srcu;
DEFINE_STATIC_SRCU(sw_other);		/* a pass of srcu_gp over another domain */

struct sw_cb {
	struct rcu_head rh;
	int started, finished;
};

static struct {
	struct sw_cb cb[SW_YIELD_EVERY];	/* cb[0]: held (barrier); the last: wakes the blocker */
	struct sw_cb later;			/* queued while cb[0] is held */
	struct task_struct *caller;		/* calls srcu_barrier() or cleanup_srcu_struct() */
	struct task_struct *thread;		/* srcu_gp, as the callbacks saw it */
	struct completion blocker_go;
	int calling, returned;			/* the caller is inside the call; it returned */
	int holding;				/* the blocker (or the seam) holds CPU 0 */
	bool in_window;				/* ...while srcu_gp was switched out inside our pass */
	bool seam_armed;			/* srcu_retire_hook holds srcu_gp in sw_srcu */
	int seam_left;
	bool returned_while_held, hung;
} sw;

/* Is the caller asleep inside the call (waiting, as a correct SRCU must, for what we hold)? */
static bool sw_caller_asleep(void)
{
	return smp_load_acquire(&sw.calling) && READ_ONCE(sw.caller->state) == TASK_BLOCKED;
}

/*
 * Has the caller, since we first saw it asleep, woken SW_HOLD_WAKES times
 * (its switches), or slept through SW_HOLD_TICKS ticks of its CPU without
 * waking?  Counted, not timed: a host that stalls that CPU stalls its
 * ticks too.  seen[0], seen[1]: its switches and ticks then (0: not yet).
 */
static bool sw_caller_slept_long(u64 *seen)
{
	u64 switches = READ_ONCE(sw.caller->switches);
	u64 ticks = READ_ONCE(cpus[sw.caller->cpu].ticks);

	if (!sw_caller_asleep())
		return false;
	if (!seen[1]) {
		seen[0] = switches;
		seen[1] = ticks + 1;
	}
	return switches - seen[0] >= SW_HOLD_WAKES ||
	       (switches == seen[0] && ticks + 1 - seen[1] >= SW_HOLD_TICKS);
}

/*
 * Holds the CPU until the call returned or its caller sleeps in it (with
 * `patient`, long: sw_caller_slept_long()).  A quiescent state for
 * classic RCU now and then: we hold no reader, and every other CPU's grace
 * periods go on.  Preemption off (PREEMPT=1): the hold must not end on a
 * tick.
 */
static void sw_hold(bool patient)
{
	u64 t0 = ktime_get_ns(), seen[2] = { 0, 0 };

	preempt_disable();
	while (!smp_load_acquire(&sw.returned) &&
	       !(patient ? sw_caller_slept_long(seen) : sw_caller_asleep())) {
		if (!win_budget_left(t0)) {
			sw.hung = true;
			break;
		}
		rcu_note_context_switch();
		udelay(2);
	}
	sw.returned_while_held = smp_load_acquire(&sw.returned);
	preempt_enable();
}

static void sw_count(struct rcu_head *rh)
{
	struct sw_cb *c = container_of(rh, struct sw_cb, rh);

	smp_store_release(&c->started, 1);
	smp_store_release(&c->finished, 1);
}

/*
 * Each callback of the barrier's tests: held until srcu_barrier() returned
 * or sleeps.  The first is still running when srcu_barrier() is called; a
 * later one that runs only after the barrier's own marker (callbacks out
 * of order) holds while the woken caller returns.
 */
static void sw_held(struct rcu_head *rh)
{
	struct sw_cb *c = container_of(rh, struct sw_cb, rh);

	sw.thread = current;
	smp_store_release(&c->started, 1);
	sw_hold(false);
	smp_store_release(&c->finished, 1);
}

/* The last callback of cleanup's batch: lets the blocker in when srcu_gp yields after it. */
static void sw_wake_blocker(struct rcu_head *rh)
{
	sw.thread = current;
	complete(&sw.blocker_go);
	sw_count(rh);
}

/* Queued on CPU 0 with srcu_gp unable to run there: they form one batch. */
static void sw_queue_batch(int n, rcu_callback_t each, rcu_callback_t last)
{
	int home = smp_processor_id();

	run_on(0);
	preempt_disable();
	for (int i = 0; i < n; i++)
		call_srcu(&sw_srcu, &sw.cb[i].rh, i == n - 1 && last ? last : each ? each : sw_count);
	preempt_enable();
	run_on(home);
}

static void sw_reset(void)
{
	memset(&sw, 0, sizeof(sw));
	init_completion(&sw.blocker_go);
	sw.caller = current;
	init_srcu_struct(&sw_srcu);
}

#define SW_NEEDS_TWO_CPUS()							\
	do {									\
		WIN_NEEDS_CPUS(2, "needs two CPUs: the held callback keeps CPU 0");	\
		run_on(num_online_cpus() - 1);					\
	} while (0)

/*
 * srcu_barrier() while the thread runs the first of `batch` callbacks
 * (held), the others behind it ready, and, with `later`, one more queued
 * meanwhile that needs another grace period.
 */
static void sw_barrier_case(int batch, bool later)
{
	int started, finished, later_finished;

	sw_reset();
	sw_queue_batch(batch, sw_held, NULL);
	KASSERT(WIN_WAIT(smp_load_acquire(&sw.cb[0].started)));
	if (later)
		call_srcu(&sw_srcu, &sw.later.rh, sw_held);
	smp_store_release(&sw.calling, 1);
	srcu_barrier(&sw_srcu);
	started = finished = 0;
	for (int i = 0; i < batch; i++) {
		started += READ_ONCE(sw.cb[i].started);
		finished += READ_ONCE(sw.cb[i].finished);
	}
	started += READ_ONCE(sw.later.started);
	later_finished = READ_ONCE(sw.later.finished);
	smp_store_release(&sw.returned, 1);
	KEXPECT(WIN_WAIT(smp_load_acquire(&sw.cb[0].finished)));
	if (finished != batch || (later && !later_finished))
		ktest_info("srcu_barrier() returned with %d of %d callbacks started, %d finished%s",
			   started, batch + later, finished + later_finished,
			   sw.returned_while_held ? " (the first still running)" : "");
	KEXPECT(!sw.returned_while_held);
	KEXPECT(!sw.hung);
	KEXPECT_EQ(finished, batch);
	if (later)
		KEXPECT(later_finished);
	srcu_barrier(&sw_srcu);
	cleanup_srcu_struct(&sw_srcu);
}

KTEST(srcu_window_barrier_waits_for_a_callback_still_running)
{
	SW_NEEDS_TWO_CPUS();
	sw_barrier_case(1, false);
}

KTEST(srcu_window_barrier_waits_for_the_rest_of_a_running_batch)
{
	SW_NEEDS_TWO_CPUS();
	sw_barrier_case(4, false);
}

KTEST(srcu_window_barrier_waits_for_one_queued_behind_a_running_batch)
{
	SW_NEEDS_TWO_CPUS();
	sw_barrier_case(4, true);
}

/*
 * After cleanup_srcu_struct() returned, the domain is the caller's to free:
 * poison it, and make the thread go through its list again.  A thread that
 * still held it (listed, or in the middle of a pass) now reads garbage.
 */
static void sw_poison_and_pass(void)
{
	memset(&sw_srcu, 0x6b, sizeof(sw_srcu));
	synchronize_srcu(&sw_other);
}

/* What cleanup_srcu_struct() left as it returned. */
struct sw_after {
	bool finished;		/* the callback we watch had returned */
	bool listed;		/* the domain was still on srcu_gp's list */
	unsigned long magic;	/* SRCU_MAGIC: it refused */
};

/* Calls cleanup_srcu_struct(), watching `last`, and says the call returned. */
static struct sw_after sw_cleanup(const struct sw_cb *last)
{
	struct sw_after a;

	smp_store_release(&sw.calling, 1);
	cleanup_srcu_struct(&sw_srcu);
	a.finished = READ_ONCE(last->finished);
	a.listed = READ_ONCE(sw_srcu.on_list);
	a.magic = READ_ONCE(sw_srcu.magic);
	smp_store_release(&sw.returned, 1);
	return a;
}

/* What cleanup_srcu_struct() may do: refuse (warned, left as is) or finish the thread's part. */
static void sw_check_cleanup(struct sw_after a)
{
	KEXPECT(!sw.returned_while_held);
	KEXPECT(!sw.hung);
	if (a.magic == SRCU_MAGIC) {
		ktest_info("cleanup_srcu_struct() refused: the domain stays");
		srcu_barrier(&sw_srcu);
		cleanup_srcu_struct(&sw_srcu);
		KEXPECT_EQ(sw_srcu.magic, 0);
		return;
	}
	if (!a.finished || a.listed)
		ktest_info("cleanup_srcu_struct() returned while srcu_gp still used the domain "
			   "(its callback %s, the domain %s)", a.finished ? "returned" : "running",
			   a.listed ? "still listed" : "off the list");
	KEXPECT(a.finished);
	KEXPECT(!a.listed);
	if (a.finished && !a.listed && !sw.returned_while_held)
		sw_poison_and_pass();	/* (not after a failure: the kernel must live to report it) */
}

/* cleanup_srcu_struct() while the thread runs the domain's last callback. */
KTEST(srcu_window_cleanup_waits_for_a_callback_still_running)
{
	struct sw_after a;

	SW_NEEDS_TWO_CPUS();
	sw_reset();
	sw_queue_batch(1, sw_held, NULL);
	KASSERT(WIN_WAIT(smp_load_acquire(&sw.cb[0].started)));
	a = sw_cleanup(&sw.cb[0]);
	KEXPECT(WIN_WAIT(smp_load_acquire(&sw.cb[0].finished)));
	sw_check_cleanup(a);
}

/*
 * The blocker: woken by the batch's last callback, it runs on CPU 0 when
 * srcu_gp yields right after that callback, and keeps it there, still in
 * its pass over our domain, until cleanup_srcu_struct() returned or sleeps.
 */
static int sw_blocker(void *arg)
{
	(void)arg;
	wait_for_completion(&sw.blocker_go);
	sw.in_window = READ_ONCE(sw.thread->state) == TASK_RUNNING;	/* switched out, not asleep */
	smp_store_release(&sw.holding, 1);
	sw_hold(true);
	return 0;
}

/* cleanup_srcu_struct() after the last callback returned, before srcu_gp let go of the domain. */
KTEST(srcu_window_cleanup_waits_for_the_thread_to_let_go)
{
	struct task_struct *blocker;
	struct sw_after a;

	SW_NEEDS_TWO_CPUS();
	sw_reset();
	blocker = kthread_run_on_cpu(sw_blocker, NULL, 0, "sw_blocker");
	KASSERT(blocker);
	sw_queue_batch(SW_YIELD_EVERY, NULL, sw_wake_blocker);
	KASSERT(WIN_WAIT(smp_load_acquire(&sw.holding)));
	if (!sw.in_window)
		ktest_info("srcu_gp did not yield inside its pass after %d callbacks: "
			   "the window was missed (see SW_YIELD_EVERY)", SW_YIELD_EVERY);
	KEXPECT(sw.in_window);
	a = sw_cleanup(&sw.cb[SW_YIELD_EVERY - 1]);
	kthread_stop(blocker);
	sw_check_cleanup(a);
}

/*
 * The seam: srcu_gp, done with our domain and about to let go of it
 * (srcu_retire()), is held there until cleanup_srcu_struct() returned or
 * its caller slept long (sw_caller_slept_long()).
 */
static void sw_seam(struct srcu_struct *ssp)
{
	if (ssp != &sw_srcu || !READ_ONCE(sw.seam_armed))
		return;
	WRITE_ONCE(sw.seam_armed, false);
	sw.thread = current;
	smp_store_release(&sw.holding, 1);
	sw_hold(true);
	smp_store_release(&sw.seam_left, 1);
}

KTEST(srcu_window_cleanup_waits_for_the_thread_held_inside_the_domain)
{
	struct sw_after a;

	SW_NEEDS_TWO_CPUS();
	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no seam in srcu_gp");
	sw_reset();
	WRITE_ONCE(sw.seam_armed, true);
	WRITE_ONCE(srcu_retire_hook, sw_seam);
	call_srcu(&sw_srcu, &sw.cb[0].rh, sw_count);
	KASSERT(WIN_WAIT(smp_load_acquire(&sw.holding)));
	a = sw_cleanup(&sw.cb[0]);
	KEXPECT(WIN_WAIT(smp_load_acquire(&sw.seam_left)));
	WRITE_ONCE(srcu_retire_hook, NULL);
	sw_check_cleanup(a);
}
