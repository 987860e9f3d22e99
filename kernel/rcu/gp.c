/*
 * Asynchronous grace periods, driven by the context-switch hook, in the
 * style of classic RCU: one global grace-period number (rcu_seq), a mask
 * of the CPUs that still owe the running grace period a quiescent state,
 * and per-CPU callback lists split by the grace period they wait for.
 *
 *   call_rcu()            queues the callback on this CPU's `next` segment,
 *                         tagged with the grace period that must complete
 *                         (rcu_seq_snap), and makes sure one will start.
 *   context switch        rcu_note_context_switch(): this CPU passed a
 *                         quiescent state; the CPU that clears the last bit
 *                         ends the grace period and wakes the rcuc threads.
 *   idle                  an extended quiescent state: a grace period that
 *                         starts while a CPU sleeps does not wait for it.
 *   rcuc/N                a kernel thread per CPU moves finished segments
 *                         to `done` and invokes them, outside every lock.
 *
 * synchronize_rcu() does not use any of this: it is the article's run_on()
 * tour (kernel/rcu/sync.c).
 */
#include "kernel.h"
#include "irq.h"
#include "rcu.h"

struct rcu_segment {
	struct rcu_head *head, **tail;
	unsigned long gp;		/* the grace period it waits for */
};

struct rcu_data {
	struct rcu_segment done;	/* ready to invoke */
	struct rcu_segment wait;	/* waiting for wait.gp */
	struct rcu_segment next;	/* waiting for next.gp (later than wait.gp) */
	long ncbs;			/* callbacks queued here, all segments */
	bool idle;			/* in the idle extended quiescent state */
	bool irq_from_idle;		/* an interrupt took us out of idle */
	bool cb_work;			/* rcuc has work: set before waking it */
	struct task_struct *cb_thread;
	unsigned long long cbs_invoked;
};

struct rcu_state rcu_state = {
	.lock = __SPIN_LOCK_UNLOCKED(rcu_state.lock),
};
static struct rcu_data rcu_data[NR_CPUS];
static void seg_init(struct rcu_segment *s)
{
	s->head = NULL;
	s->tail = &s->head;
}

static bool seg_empty(const struct rcu_segment *s)
{
	return s->head == NULL;
}

/* Appends all of src to dst (keeping dst's gp) and empties src. */
static void seg_splice(struct rcu_segment *dst, struct rcu_segment *src)
{
	if (seg_empty(src))
		return;
	*dst->tail = src->head;
	dst->tail = src->tail;
	seg_init(src);
}

/*
 * Two passes of advance_callbacks(): the first may finish wait and move
 * next up into it, the second may then find that next's grace period has
 * ended too.
 */
#define ADVANCE_PASSES	2

/* Moves finished segments forward; this CPU, interrupts off. */
static void advance_callbacks(struct rcu_data *rdp)
{
	/* Acquire: pairs with the release in rcu_gp_end(); the readers are done. */
	unsigned long cur = smp_load_acquire(&rcu_state.gp_seq);

	for (int pass = 0; pass < ADVANCE_PASSES; pass++) {
		/* (fault injection seg_done_early: one less, the grace period's start) */
		if (!seg_empty(&rdp->wait) &&
		    rcu_seq_done(cur, rdp->wait.gp - rcu_injected(RCU_INJECT_SEG_DONE_EARLY)))
			seg_splice(&rdp->done, &rdp->wait);
		/* next joins wait when wait is empty or waits for the same grace period. */
		if (!seg_empty(&rdp->next) &&
		    (seg_empty(&rdp->wait) || rdp->wait.gp == rdp->next.gp)) {
			seg_splice(&rdp->wait, &rdp->next);
			rdp->wait.gp = rdp->next.gp;
		} else if (!seg_empty(&rdp->next) && rcu_injected(RCU_INJECT_SEG_MERGE)) {
			seg_splice(&rdp->wait, &rdp->next);	/* fault injection: wait's earlier gp */
		}
	}
}

static void wake_cb_thread(int cpu)
{
	struct rcu_data *rdp = &rcu_data[cpu];

	if (!rdp->cb_thread)
		return;
	WRITE_ONCE(rdp->cb_work, true);
	smp_mb();	/* pairs with the barrier in rcu_cb_thread(): no lost wake-up */
	wake_up_process(rdp->cb_thread);
}

/* After a grace period ended: every CPU with callbacks may have work. */
static void wake_cb_threads(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (READ_ONCE(rcu_data[cpu].ncbs))
			wake_cb_thread(cpu);
}

static bool rcu_gp_start(void);

/* Ends the running grace period; rcu_state.lock held. */
static void rcu_gp_end(void)
{
	/* Release: every quiescent-state report is ordered before the new number. */
	smp_store_release(&rcu_state.gp_seq, rcu_state.gp_seq + 1);
	rcu_state.gps_completed++;
	trace_record(TR_GP_END, rcu_state.gp_seq, 0);
	if (rcu_state.gp_needed) {
		rcu_state.gp_needed = false;
		rcu_gp_start();
	}
}

/* Clears cpu's bit if it still owes grace period gp; rcu_state.lock held. */
static bool report_qs_locked(int cpu, unsigned long gp)
{
	unsigned long seq = rcu_state.gp_seq;

	if (seq != gp || !(rcu_state.qs_mask & (1UL << cpu)))
		return false;
	WRITE_ONCE(rcu_state.qs_mask, rcu_state.qs_mask & ~(1UL << cpu));
	if (rcu_state.qs_mask)
		return false;
	rcu_gp_end();
	return true;
}

/*
 * Starts a grace period; rcu_state.lock held.  Returns true if it ended
 * at once (every CPU idle).  The mask is written before the number
 * (smp_wmb, pairing with the smp_rmb in rcu_note_context_switch()), so a
 * CPU that sees the new number sees its bit.
 */
static bool rcu_gp_start(void)
{
	int cpu;
	unsigned long mask = 0;

	for_each_online_cpu(cpu)
		mask |= 1UL << cpu;
	if (rcu_injected(RCU_INJECT_MASK_SKIP_CPU) && num_online_cpus() > 1)
		mask &= ~(1UL << (63 - __builtin_clzl(mask)));	/* fault injection: the last CPU */
	WRITE_ONCE(rcu_state.qs_mask, mask);
	smp_wmb();
	WRITE_ONCE(rcu_state.gp_seq, rcu_state.gp_seq + 1);
	rcu_state.gp_start_ns = ktime_get_ns();
	trace_record(TR_GP_START, rcu_state.gp_seq, 0);
	/*
	 * Full barrier between publishing the grace period and reading the
	 * idle flags.  Pairs with the smp_mb() in rcu_idle_enter(), which
	 * writes its flag and then reads the grace period: either we see the
	 * CPU idle and report for it, or it sees the new grace period and
	 * reports itself; never neither.  It also orders the updater's
	 * removal (before call_rcu()) before any idle CPU wakes and reads.
	 */
	smp_mb();
	for_each_online_cpu(cpu) {
		if (READ_ONCE(rcu_data[cpu].idle) &&
		    report_qs_locked(cpu, rcu_state.gp_seq))
			return true;
	}
	return false;
}

void rcu_request_gp(void)
{
	unsigned long flags;
	bool ended = false;

	spin_lock_irqsave(&rcu_state.lock, flags);
	if (rcu_state.gp_seq & 1)
		rcu_state.gp_needed = true;
	else
		ended = rcu_gp_start();
	spin_unlock_irqrestore(&rcu_state.lock, flags);
	if (ended)
		wake_cb_threads();
}

static void rcu_report_qs(int cpu, unsigned long gp)
{
	unsigned long flags;
	bool ended;

	spin_lock_irqsave(&rcu_state.lock, flags);
	ended = report_qs_locked(cpu, gp);
	spin_unlock_irqrestore(&rcu_state.lock, flags);
	if (ended)
		wake_cb_threads();
}

/* Reports this CPU's quiescent state if the running grace period wants it. */
static void note_qs(void)
{
	int cpu = smp_processor_id();
	unsigned long gp = READ_ONCE(rcu_state.gp_seq);

	if (!(gp & 1))
		return;
	smp_rmb();	/* pairs with the smp_wmb() in rcu_gp_start(): the mask is gp's */
	if (READ_ONCE(rcu_state.qs_mask) & (1UL << cpu)) {
		trace_record(TR_QS, gp, 0);
		rcu_report_qs(cpu, gp);
	}
}

/*
 * The context-switch hook: this CPU is outside every read-side critical
 * section.  Cheap when no grace period waits for this CPU: a barrier and
 * two loads.
 */
void rcu_note_context_switch(void)
{
	/*
	 * Full barrier: the accesses of the readers this CPU ran before the
	 * switch are ordered before our report, and so before the end of the
	 * grace period and every callback after it.  Pairs with the barrier
	 * in rcu_gp_start() and the acquire in advance_callbacks().
	 */
	smp_mb();
	note_qs();
}

void rcu_idle_enter(void)
{
	struct rcu_data *rdp = &rcu_data[smp_processor_id()];

	WRITE_ONCE(rdp->idle, true);
	smp_mb();	/* pairs with the smp_mb() in rcu_gp_start() */
	note_qs();
}

void rcu_idle_exit(void)
{
	struct rcu_data *rdp = &rcu_data[smp_processor_id()];

	if (!rcu_injected(RCU_INJECT_IDLE_EXIT_FORGETS))	/* fault injection: stays "idle" */
		WRITE_ONCE(rdp->idle, false);
	/*
	 * Leaving the extended quiescent state: from here on a grace period
	 * that starts waits for us; and one that saw us idle ordered its
	 * updater's removal before our flag's write (pairs with rcu_gp_start()).
	 */
	smp_mb();
}

/* An interrupt on an idle CPU leaves idle before its handler may read RCU data. */
void rcu_irq_enter(void)
{
	struct rcu_data *rdp = &rcu_data[smp_processor_id()];

	if (rcu_injected(RCU_INJECT_IRQ_STAYS_IDLE))
		return;		/* fault injection: the handler runs in the idle state */
	if (this_cpu()->irq_depth == 1 && READ_ONCE(rdp->idle)) {
		rcu_idle_exit();
		rdp->irq_from_idle = true;
	}
}

void rcu_irq_exit(void)
{
	struct rcu_data *rdp = &rcu_data[smp_processor_id()];

	if (this_cpu()->irq_depth == 1 && rdp->irq_from_idle) {
		rdp->irq_from_idle = false;
		rcu_idle_enter();
	}
}

bool rcu_cpu_in_eqs(int cpu)
{
	return READ_ONCE(rcu_data[cpu].idle);
}

bool rcu_cpu_owes_qs(int cpu)
{
	/* A snapshot for statistics (the demos): no ordering needed. */
	return (READ_ONCE(rcu_state.gp_seq) & 1) && (READ_ONCE(rcu_state.qs_mask) & (1UL << cpu));
}

static void invoke_callback(struct rcu_head *head)
{
	uintptr_t f = (uintptr_t)head->func;

	rcu_debug_dequeue(head);
	trace_record(TR_CB_INVOKE, 0, (uintptr_t)head);
	if (f < KFREE_RCU_MAX_OFFSET)
		kfree((char *)head - f);	/* kfree_rcu(): f is the offset */
	else
		head->func(head);
}

void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	struct rcu_data *rdp;
	unsigned long flags, snap;
	bool need_gp, ready;

	rcu_debug_queue(head);
	trace_record(TR_CB_QUEUE, 0, (uintptr_t)head);
	head->func = func;
	head->next = NULL;
	if (rcu_injected(RCU_INJECT_NO_WAIT)) {
		invoke_callback(head);	/* fault injection: no grace period at all */
		return;
	}
	local_irq_save(flags);
	rdp = &rcu_data[smp_processor_id()];
	/*
	 * The caller's removal is ordered before we read the grace-period
	 * number: a grace period we see as not yet started will wait for
	 * every reader that could still see the element.  Pairs with rcu_gp_start().
	 */
	smp_mb();
	snap = rcu_seq_snap(READ_ONCE(rcu_state.gp_seq));
	advance_callbacks(rdp);
	if (!seg_empty(&rdp->next) && rdp->next.gp != snap) {
		/* next waits for an earlier grace period: it moves up to wait. */
		if (!seg_empty(&rdp->wait))
			panic("BUG: call_rcu: three grace periods pending on CPU%d "
			      "(wait %lu, next %lu, now %lu, gp_seq %lu)", smp_processor_id(),
			      rdp->wait.gp, rdp->next.gp, snap, READ_ONCE(rcu_state.gp_seq));
		seg_splice(&rdp->wait, &rdp->next);
		rdp->wait.gp = rdp->next.gp;
	}
	*rdp->next.tail = head;
	rdp->next.tail = &head->next;
	rdp->next.gp = snap;
	WRITE_ONCE(rdp->ncbs, rdp->ncbs + 1);
	need_gp = !rcu_seq_done(READ_ONCE(rcu_state.gp_seq), snap);
	ready = !seg_empty(&rdp->done);
	local_irq_restore(flags);
	if (need_gp)
		rcu_request_gp();
	if (ready)
		wake_cb_thread(smp_processor_id());
}

/* Callbacks rcuc invokes between two cond_resched()s: long batches do not hog the CPU. */
#define RCU_CB_BATCH	16

/* rcuc/N: invokes this CPU's callbacks whose grace period has ended. */
static int rcu_cb_thread(void *arg)
{
	struct rcu_data *rdp = arg;

	for (;;) {
		struct rcu_segment batch;
		unsigned long flags;
		long n = 0;

		/* Blocked first, then check: a waker after the check finds us blocked. */
		current->state = TASK_BLOCKED;
		smp_mb();	/* pairs with wake_cb_thread() */
		if (!READ_ONCE(rdp->cb_work)) {
			schedule();
			continue;
		}
		current->state = TASK_RUNNING;
		WRITE_ONCE(rdp->cb_work, false);

		local_irq_save(flags);
		advance_callbacks(rdp);
		seg_init(&batch);
		seg_splice(&batch, &rdp->done);
		local_irq_restore(flags);

		for (struct rcu_head *h = batch.head, *next; h; h = next) {
			next = h->next;
			invoke_callback(h);
			n++;
			if (current->rcu_read_lock_nesting)
				panic("BUG: RCU callback %p returned inside rcu_read_lock()",
				      (void *)h->func);
			if (n % RCU_CB_BATCH == 0)
				cond_resched();
		}
		local_irq_save(flags);
		WRITE_ONCE(rdp->ncbs, rdp->ncbs - n);
		rdp->cbs_invoked += n;
		/* Still waiting callbacks may be ready now (a grace period ended meanwhile). */
		if (rdp->ncbs && rcu_seq_done(READ_ONCE(rcu_state.gp_seq), rdp->wait.gp))
			WRITE_ONCE(rdp->cb_work, true);
		local_irq_restore(flags);
	}
	return 0;
}

void rcu_init(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		seg_init(&rcu_data[cpu].done);
		seg_init(&rcu_data[cpu].wait);
		seg_init(&rcu_data[cpu].next);
	}
	rcu_inject_announce();
}

/* One rcuc thread per online CPU, once the CPUs are up. */
void rcu_init_cpu_threads(void)
{
	int cpu;
	char name[TASK_COMM_LEN];

	for_each_online_cpu(cpu) {
		snprintf(name, sizeof(name), "rcuc/%d", cpu);
		rcu_data[cpu].cb_thread = kthread_run_on_cpu(rcu_cb_thread, &rcu_data[cpu],
							     cpu, name);
		if (!rcu_data[cpu].cb_thread)
			panic("rcu: cannot start %s", name);
	}
}

void rcu_get_stats(struct rcu_stats *s)
{
	int cpu;

	s->gp_seq = READ_ONCE(rcu_state.gp_seq);
	s->qs_mask = READ_ONCE(rcu_state.qs_mask);
	s->gps_completed = READ_ONCE(rcu_state.gps_completed);
	s->tours_started = (unsigned int)atomic_read(&rcu_state.tours_started);
	s->tours_completed = READ_ONCE(rcu_state.tours_completed);
	s->stall_reports = READ_ONCE(rcu_stall_reports);
	s->cbs_queued = 0;
	s->cbs_invoked = 0;
	for_each_online_cpu(cpu) {
		s->cbs_queued += READ_ONCE(rcu_data[cpu].ncbs);
		s->cbs_invoked += READ_ONCE(rcu_data[cpu].cbs_invoked);
	}
}
