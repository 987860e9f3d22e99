/*
 * rcu_barrier() against a CPU whose rcuc thread is in the middle of a
 * batch.  rcuc takes the ready callbacks off the lists before it invokes
 * them, so at that moment they are in no segment: a barrier that looks
 * only at what is queued, or only at what still waits for a grace period,
 * misses them.  On the last CPU c:
 *
 *   X, Y   queued by a task that keeps c (passing quiescent states) until
 *          both are ready: one batch; X is running (held) when
 *          rcu_barrier() is called, Y behind it, ready and not invoked;
 *   Z      queued while X runs; its grace period ends meanwhile (X reports
 *          quiescent states): ready, on c's lists, not invoked;
 *   W      queued last; X passes no quiescent state from then on, so W
 *          still waits for its grace period when the barrier comes to c.
 *
 * Every one of them holds (a callback that runs after the barrier's marker
 * holds while the woken caller returns) until the barrier is done with
 * c's part: its caller is queued on c to put its marker there (it waits
 * for rcuc, as it must), or it sleeps with every other CPU's marker run
 * (a callback we queue behind each of them has run: a correct barrier
 * then waits for c alone), or it returned (the bug).
 */
#include "rcu_window.h"

enum { BB_X, BB_Y, BB_Z, BB_W, BB_N };

static struct {
	struct rcu_head rh[BB_N];
	int started[BB_N], finished[BB_N];
	int queued[BB_N];			/* which of them this case queues */
	int cpu;				/* c */
	struct task_struct *caller;
	int returned, others_done;
	int finished_at_return[BB_N];
	bool returned_while_held, hung;
	struct irq_work work;
	int work_done;
	int which;				/* what the irq_work queues: BB_Z or BB_W */
} bb;

static const char *const bb_names[BB_N] = { "X (running)", "Y (behind X in its batch)",
					    "Z (ready, not in the batch)",
					    "W (waiting for its grace period)" };

/* The caller's hop to c waits behind rcuc: a correct barrier puts its marker after us. */
static bool bb_caller_queued_here(void)
{
	return win_task_queued_on(READ_ONCE(bb.caller), bb.cpu);
}

static void bb_held(struct rcu_head *rh)
{
	int i = rh - bb.rh;
	u64 t0 = ktime_get_ns();

	smp_store_release(&bb.started[i], 1);
	while (!smp_load_acquire(&bb.returned) && !bb_caller_queued_here() &&
	       !(smp_load_acquire(&bb.others_done) && win_task_waits(READ_ONCE(bb.caller)))) {
		if (!win_budget_left(t0)) {
			bb.hung = true;
			break;
		}
		/* Grace periods go on (we hold no reader), but W's waits for the barrier. */
		if (i != BB_X || !smp_load_acquire(&bb.work_done) || bb.which != BB_W)
			rcu_note_context_switch();
		udelay(2);
	}
	if (smp_load_acquire(&bb.returned))
		bb.returned_while_held = true;
	smp_store_release(&bb.finished[i], 1);
}

/* Has gp_seq reached snap (wrap-safe)? */
static bool bb_gp_reached(unsigned long snap)
{
	struct rcu_stats s;

	rcu_get_stats(&s);
	return (long)(s.gp_seq - snap) >= 0;
}

/*
 * Waits until the callbacks queued before the call are ready: a full grace
 * period after the number read now (rcu_seq_snap()'s rule, no earlier than
 * theirs), which our request makes sure of.  spin: keep the CPU, passing
 * quiescent states.
 */
static bool bb_wait_ready(bool spin)
{
	struct rcu_stats s;
	unsigned long snap;
	u64 t0 = ktime_get_ns();

	rcu_get_stats(&s);
	snap = (s.gp_seq + 3) & ~1UL;
	start_poll_synchronize_rcu();
	while (!bb_gp_reached(snap)) {
		if (!win_budget_left(t0))
			return false;
		if (spin) {
			rcu_note_context_switch();
			udelay(2);
		} else {
			msleep(1);
		}
	}
	return true;
}

/*
 * Keeps c until X and Y are both ready, so that rcuc takes them in one
 * batch when we exit (call_rcu() asks for a grace period as it queues X,
 * so Y waits for the one after).  No preemption (PREEMPT=1): rcuc must
 * not run before.
 */
static int bb_hog(void *arg)
{
	(void)arg;
	preempt_disable();
	call_rcu(&bb.rh[BB_X], bb_held);
	if (bb.queued[BB_Y])
		call_rcu(&bb.rh[BB_Y], bb_held);
	bb.hung |= !bb_wait_ready(true);
	preempt_enable();
	return 0;
}

/* On c, in an interrupt: rcuc is busy there. */
static void bb_queue_on_c(struct irq_work *work)
{
	(void)work;
	call_rcu(&bb.rh[bb.which], bb_held);
	smp_store_release(&bb.work_done, 1);
}

static bool bb_queue(int which)
{
	bb.which = which;
	bb.work_done = 0;
	bb.work.func = bb_queue_on_c;
	bb.work.lazy = false;
	for (u64 t0 = ktime_get_ns(); !irq_work_queue_on(&bb.work, bb.cpu); msleep(1))
		if (!win_budget_left(t0))
			return false;
	return WIN_WAIT(smp_load_acquire(&bb.work_done));
}

static int bb_caller_fn(void *arg)
{
	(void)arg;
	rcu_barrier();
	for (int i = 0; i < BB_N; i++)
		bb.finished_at_return[i] = READ_ONCE(bb.finished[i]);
	smp_store_release(&bb.returned, 1);
	return 0;
}

static void bb_case(bool y, bool z, bool w)
{
	struct task_struct *hog;

	run_on(0);
	memset(&bb, 0, sizeof(bb));
	bb.cpu = num_online_cpus() - 1;
	bb.queued[BB_X] = 1;
	bb.queued[BB_Y] = y;
	bb.queued[BB_Z] = z;
	bb.queued[BB_W] = w;
	hog = kthread_run_on_cpu(bb_hog, NULL, bb.cpu, "bb_hog");
	KASSERT(hog);
	KASSERT(WIN_WAIT(smp_load_acquire(&bb.started[BB_X])));
	kthread_stop(hog);
	if (z) {
		/* Z's grace period ends while X holds rcuc (X passes quiescent states). */
		KASSERT(bb_queue(BB_Z));
		KASSERT(bb_wait_ready(false));
	}
	if (w)
		KASSERT(bb_queue(BB_W));
	WRITE_ONCE(bb.caller, kthread_run_on_cpu(bb_caller_fn, NULL, 0, "bb_caller"));
	KASSERT(bb.caller);
	win_barrier_watch(&bb.caller, &bb.returned, bb.cpu, &bb.others_done);
	kthread_stop(bb.caller);
	for (int i = 0; i < BB_N; i++) {
		if (!bb.queued[i])
			continue;
		KEXPECT(WIN_WAIT(smp_load_acquire(&bb.finished[i])));
		if (!bb.finished_at_return[i])
			ktest_info("rcu_barrier() returned before %s on CPU%d had %s", bb_names[i],
				   bb.cpu, bb.started[i] ? "returned" : "run");
		KEXPECT(bb.finished_at_return[i]);
	}
	KEXPECT(!bb.returned_while_held);
	KEXPECT(!bb.hung);
}

#define BB_NEEDS_TWO_CPUS()	WIN_NEEDS_CPUS(2, "needs two CPUs: the held batch keeps its CPU")

KTEST(rcu_window_barrier_waits_for_a_running_batch)
{
	BB_NEEDS_TWO_CPUS();
	bb_case(true, false, false);
}

KTEST(rcu_window_barrier_waits_for_ready_callbacks_behind_a_running_batch)
{
	BB_NEEDS_TWO_CPUS();
	bb_case(true, true, false);
}

KTEST(rcu_window_barrier_waits_for_every_callback_behind_a_running_batch)
{
	BB_NEEDS_TWO_CPUS();
	bb_case(true, true, true);
}
