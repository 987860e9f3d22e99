/*
 * rcu_barrier() returns after every callback queued before it has run,
 * wherever the callback is when the barrier looks at its CPU: in the
 * `next` or `wait` segment waiting for its grace period, there with its
 * grace period over but not yet moved on, in `done`, in the batch rcuc
 * has taken off the lists and is running, or further back in that batch,
 * where rcuc has not got to yet.  The barrier may look from afar (before
 * it moves to the CPU) or on the CPU itself (after run_on()): each place
 * below is held from before the call until the barrier has been on that
 * CPU and gone.  On the last CPU c:
 *
 *   X      the head of a batch of BB_BATCH callbacks that a task keeping c
 *          (and passing quiescent states) queues until all are ready, so
 *          that rcuc takes them at once: X runs, and holds, when
 *          rcu_barrier() is called; it lets go once the barrier's caller
 *          is queued on c (it waits for rcuc, as it must).
 *   T      the batch's last, behind rcuc's cond_resched() after every
 *          RCU_CB_BATCH (16) callbacks: there the caller, queued, runs on c
 *          and decides about c while T is in no list, only in rcuc's batch;
 *   Z      queued while X runs; its grace period ends meanwhile: ready,
 *          in `next` (not yet moved on), or in `done` once W is queued;
 *   W      queued next; X passes no quiescent state from then on, so W
 *          still waits for its grace period when the caller decides: in
 *          `next`, or in `wait` once V is queued;
 *   V      queued last, once W's grace period has started: it waits for the
 *          one after, in `next`, behind W in `wait`.
 *
 * Every one of them but the batch's middle holds when it runs (one that
 * runs after the barrier's marker holds while the woken caller returns)
 * until the barrier is done with c: it sleeps with every other CPU's
 * marker run (a callback we queue behind each of them has run: a correct
 * barrier then waits for c alone), or it returned (the bug).  Before the
 * call, the test checks that each callback is where the case says
 * (white-box: kernel/rcu/rcu.h's lists of c).
 */
#include "rcu_window.h"
#include "rcu/rcu.h"
#include "rq.h"	/* runqueues[]: the caller's enqueue on c is over */

#define BB_YIELD_EVERY	16			/* RCU_CB_BATCH in kernel/rcu/callbacks.c */
#define BB_BATCH	(BB_YIELD_EVERY + 1)	/* X, the middle, T */
enum { BB_X = 0, BB_T = BB_BATCH - 1, BB_Z, BB_W, BB_V, BB_N };
enum bb_place { BB_IN_BATCH, BB_IN_DONE, BB_IN_WAIT, BB_IN_NEXT };
static const char *const bb_place_names[] = { "in no list (rcuc's batch)", "in done", "in wait",
					      "in next" };

static struct {
	struct rcu_head rh[BB_N];
	int started[BB_N], finished[BB_N];
	int queued[BB_N];			/* which of Z, W, V this case queues */
	enum bb_place want[BB_N];		/* where the case puts them */
	int cpu;				/* c */
	struct task_struct *caller;
	int returned, others_done;
	int finished_at_return[BB_N];
	bool returned_while_held, hung, window_missed;
	int abandoned;				/* the case failed before the barrier: let go */
	struct irq_work work;
	int work_done;
	int w_queued;				/* W is queued, waiting for w_gp */
	unsigned long w_gp;
	int which;				/* what the irq_work queues: BB_Z, BB_W, BB_V */
} bb;

static const char *bb_name(int i)
{
	return i == BB_X ? "X (running)" : i == BB_T ? "T (in the batch, past rcuc's yield)" :
	       i == BB_Z ? "Z (ready, on the lists)" : i == BB_W ? "W (waiting for its grace period)" :
	       i == BB_V ? "V (waiting for the grace period after W's)" :
	       "a callback in the middle of the batch";
}

/* The caller's hop to c waits behind rcuc: a correct barrier puts its marker after us. */
static bool bb_caller_queued_here(void)
{
	return win_task_queued_on(READ_ONCE(bb.caller), bb.cpu);
}

/*
 * The same, and its enqueue over: X lets go only then.  The hop's
 * enqueue_locked() sets the task's CPU first and joins the queue after,
 * all under c's run-queue lock, so seeing c there is not yet being in
 * the queue: with the enqueuing vCPU stopped by the host in between,
 * rcuc's yield after BB_YIELD_EVERY callbacks found the queue empty and
 * ran T first (the window missed, once in a loaded CI run).  Taking and
 * dropping that lock after seeing c waits the enqueue out.
 */
static bool bb_caller_enqueued_here(void)
{
	struct rq *rq = &runqueues[bb.cpu];
	unsigned long flags;

	if (!bb_caller_queued_here())
		return false;
	spin_lock_irqsave(&rq->lock, flags);
	spin_unlock_irqrestore(&rq->lock, flags);
	return true;
}

/* The barrier is done with c: it returned (the bug), or waits for c alone. */
static bool bb_barrier_past_c(void)
{
	return smp_load_acquire(&bb.returned) ||
	       (smp_load_acquire(&bb.others_done) && win_task_waits(READ_ONCE(bb.caller)));
}

/*
 * May X report its quiescent state now?  Only to a grace period that is
 * running, still waits for c, and is not W's (W's waits for the barrier).
 * Such a grace period cannot end before X's report (nobody else reports
 * for c while X holds it), so the one rcu_note_context_switch() then
 * finds is still this one.  A report made on anything less can land in
 * the wrong grace period: with c's report for gp already in, gp may end
 * and W's begin between this check and the report (a vCPU the host
 * stops for a moment opens that window: 2 failures in 4 loaded runs),
 * and one made while none runs can find W's begun by W's own call_rcu()
 * in an interrupt on c.  Either ends W's grace period at once, and W
 * waits for nothing when the caller decides.
 */
static bool bb_x_may_report(void)
{
	unsigned long gp = READ_ONCE(rcu_state.gp_seq);
	bool waits_for_c;

	if (!(gp & 1))
		return false;
	smp_rmb();	/* the mask of gp or later, as note_qs() reads it */
	waits_for_c = cpumask_test_cpu(bb.cpu, &rcu_state.qs_mask);
	smp_rmb();	/* and gp still running after it: the mask was gp's */
	if (!waits_for_c || READ_ONCE(rcu_state.gp_seq) != gp)
		return false;
	return !smp_load_acquire(&bb.w_queued) || gp != bb.w_gp - 1;
}

/*
 * X's quiescent state, given where bb_x_may_report() allows it; an
 * expedited grace period (anybody's) always gets it, as a switch gives it.
 */
static void bb_x_report(void)
{
	if (bb_x_may_report()) {
		rcu_note_context_switch();
		return;
	}
	smp_mb();	/* as [cs_qs_mb]: X holds no reader, but say so in order */
	rcu_exp_note_qs();
}

static void bb_held(struct rcu_head *rh)
{
	int i = rh - bb.rh;
	u64 t0 = ktime_get_ns();

	smp_store_release(&bb.started[i], 1);
	if (i == BB_T && bb_caller_queued_here())
		bb.window_missed = true;	/* rcuc did not yield before T: see BB_YIELD_EVERY */
	while (!bb_barrier_past_c() && !(i == BB_X && bb_caller_enqueued_here()) &&
	       !bb.window_missed && !smp_load_acquire(&bb.abandoned)) {
		if (!win_budget_left(t0)) {
			bb.hung = true;
			break;
		}
		/* Grace periods go on (we hold no reader), but W's waits for the barrier. */
		if (i == BB_X)
			bb_x_report();
		else
			rcu_note_context_switch();
		udelay(2);
	}
	if (smp_load_acquire(&bb.returned))
		bb.returned_while_held = true;
	smp_store_release(&bb.finished[i], 1);
}

/* The batch's middle: counted, not held. */
static void bb_count(struct rcu_head *rh)
{
	int i = rh - bb.rh;

	smp_store_release(&bb.started[i], 1);
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
 * Keeps c until the whole batch is ready, so that rcuc takes it at once
 * when we exit.  No preemption (PREEMPT=1): rcuc must not run before.
 */
static int bb_hog(void *arg)
{
	(void)arg;
	preempt_disable();
	for (int i = 0; i < BB_BATCH; i++)
		call_rcu(&bb.rh[i], i == BB_X || i == BB_T ? bb_held : bb_count);
	bb.hung |= !bb_wait_ready(true);
	preempt_enable();
	return 0;
}

/* On c, in an interrupt: rcuc is busy there. */
static void bb_queue_on_c(struct irq_work *work)
{
	(void)work;
	call_rcu(&bb.rh[bb.which], bb_held);
	if (bb.which == BB_W) {
		bb.w_gp = rcu_data[bb.cpu].next.gp;
		smp_store_release(&bb.w_queued, 1);
	}
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

/* Where callback i is now: on one of c's lists, or in none (rcuc's batch). */
static enum bb_place bb_where(int i)
{
	struct rcu_data *rdp = &rcu_data[bb.cpu];
	struct rcu_segment *segs[] = { &rdp->done, &rdp->wait, &rdp->next };

	for (int k = 0; k < 3; k++)
		for (struct rcu_head *h = READ_ONCE(segs[k]->head); h; h = READ_ONCE(h->next))
			if (h == &bb.rh[i])
				return BB_IN_DONE + k;
	return BB_IN_BATCH;
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

/*
 * A step of the case that failed: the held callbacks let go (else c's
 * rcuc would hold them, and every later grace period, for their whole
 * budget), then the test stops there.
 */
#define BB_ASSERT(cond)							\
	do {								\
		if (!ktest_check(!!(cond), __FILE__, __LINE__, #cond)) {	\
			smp_store_release(&bb.abandoned, 1);		\
			return;						\
		}							\
	} while (0)

/* Z, W, V queued or not, and where each must be when the barrier is called. */
static void bb_case(bool z, bool w, bool v)
{
	struct task_struct *hog;
	int late = 0;

	run_on(0);
	rcu_barrier();		/* c holds our callbacks only */
	memset(&bb, 0, sizeof(bb));
	bb.cpu = num_online_cpus() - 1;
	for (int i = 0; i < BB_BATCH; i++)
		bb.queued[i] = 1;
	bb.queued[BB_Z] = z;
	bb.queued[BB_W] = w;
	bb.queued[BB_V] = v;
	bb.want[BB_Z] = w ? BB_IN_DONE : BB_IN_NEXT;
	bb.want[BB_W] = v ? BB_IN_WAIT : BB_IN_NEXT;
	bb.want[BB_V] = BB_IN_NEXT;
	hog = kthread_run_on_cpu(bb_hog, NULL, bb.cpu, "bb_hog");
	KASSERT(hog);
	BB_ASSERT(WIN_WAIT(smp_load_acquire(&bb.started[BB_X])));
	kthread_stop(hog);
	if (z) {
		/* Z's grace period ends while X holds rcuc (X passes quiescent states). */
		BB_ASSERT(bb_queue(BB_Z));
		BB_ASSERT(bb_wait_ready(false));
	}
	if (w)
		BB_ASSERT(bb_queue(BB_W));	/* (its call_rcu() moves Z on to `done`) */
	if (v) {
		/*
		 * Once W's grace period runs (and waits for X's CPU), V needs
		 * the next one.  Asked for from here: c's rcuc, which would ask
		 * for it, runs X, and nobody else may need one meanwhile.
		 */
		start_poll_synchronize_rcu();
		BB_ASSERT(WIN_WAIT(READ_ONCE(rcu_state.gp_seq) == bb.w_gp - 1));
		BB_ASSERT(bb_queue(BB_V));	/* (W moves on to `wait`) */
	}
	for (int i = 0; i < BB_N; i++) {
		enum bb_place at = bb_where(i);

		if (!bb.queued[i] || at == bb.want[i])
			continue;
		ktest_info("%s is %s, not %s: the case is not what it says", bb_name(i),
			   bb_place_names[at], bb_place_names[bb.want[i]]);
		KEXPECT(at == bb.want[i]);
	}
	WRITE_ONCE(bb.caller, kthread_run_on_cpu(bb_caller_fn, NULL, 0, "bb_caller"));
	BB_ASSERT(bb.caller);
	win_barrier_watch(&bb.caller, &bb.returned, bb.cpu, &bb.others_done);
	kthread_stop(bb.caller);
	for (int i = 0; i < BB_N; i++) {
		if (!bb.queued[i])
			continue;
		KEXPECT(WIN_WAIT(smp_load_acquire(&bb.finished[i])));
		if (!bb.finished_at_return[i] && late++ < 4)
			ktest_info("rcu_barrier() returned before %s on CPU%d had %s", bb_name(i),
				   bb.cpu, bb.started[i] ? "returned" : "run");
		KEXPECT(bb.finished_at_return[i]);
	}
	if (bb.window_missed)
		ktest_info("rcuc did not yield after %d callbacks of its batch: the caller never "
			   "ran on CPU%d with T still to come (see BB_YIELD_EVERY)", BB_YIELD_EVERY,
			   bb.cpu);
	KEXPECT(!bb.window_missed);
	KEXPECT(!bb.returned_while_held);
	KEXPECT(!bb.hung);
}

#define BB_NEEDS_TWO_CPUS()	WIN_NEEDS_CPUS(2, "needs two CPUs: the held batch keeps its CPU")

/* X and T only: c's lists are empty. */
KTEST(rcu_window_barrier_waits_for_a_running_batch)
{
	BB_NEEDS_TWO_CPUS();
	bb_case(false, false, false);
}

/* Z in `next`, ready. */
KTEST(rcu_window_barrier_waits_for_ready_callbacks_behind_a_running_batch)
{
	BB_NEEDS_TWO_CPUS();
	bb_case(true, false, false);
}

/* Z in `done`, W in `next` waiting. */
KTEST(rcu_window_barrier_waits_for_every_callback_behind_a_running_batch)
{
	BB_NEEDS_TWO_CPUS();
	bb_case(true, true, false);
}

/* Z in `done`, W in `wait` for a grace period that runs, V in `next` for the one after. */
KTEST(rcu_window_barrier_waits_for_callbacks_in_every_list)
{
	BB_NEEDS_TWO_CPUS();
	bb_case(true, true, true);
}
