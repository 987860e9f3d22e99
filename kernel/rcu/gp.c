/*
 * The asynchronous grace period, driven by the context-switch hook, in
 * the style of classic RCU: one global grace-period number (rcu_seq) and
 * a mask of the CPUs that still owe the running grace period a quiescent
 * state.
 *
 *   a request             rcu_request_gp() (from call_rcu(), callbacks.c)
 *                         starts a grace period, or marks the next one
 *                         needed if one is running.
 *   context switch        rcu_note_context_switch(): this CPU passed a
 *                         quiescent state; the CPU that clears the last bit
 *                         ends the grace period and wakes the rcuc threads.
 *   idle                  an extended quiescent state: a grace period that
 *                         starts while a CPU sleeps does not wait for it.
 *   CPU hotplug           a CPU's online bit changes under the same lock.
 *
 * The callbacks that wait for these grace periods, and the rcuc threads
 * that invoke them, are in callbacks.c.  synchronize_rcu() uses none of
 * this: it is the article's run_on() tour (kernel/rcu/sync.c).
 */
#include "kernel.h"
#include "irq.h"
#include "rcu.h"

/*
 * gp_seq starts 300 grace periods below the wrap, as Linux's does, so
 * that a boot that runs about 300 grace periods crosses it and a
 * comparison that is not wrap-safe fails early (tests/arith_wrap.c drives
 * them); the wait numbers of the polled API likewise (sync.c).
 */
struct rcu_state rcu_state = {
	.lock = __SPIN_LOCK_UNLOCKED(rcu_state.lock),
	.gp_seq = RCU_SEQ_INIT,
	.waits_started = ATOMIC_LONG_INIT(RCU_WAITS_INIT),
	.waits_done = RCU_WAITS_INIT,
};
struct rcu_data rcu_data[NR_CPUS];

static bool rcu_gp_start(void);

/* Checking build: the test seam of rcu_gp_end() (rcu.h). */
void (*rcu_gp_end_hook)(unsigned long gp_seq);

/* Ends the running grace period; rcu_state.lock held. */
static void rcu_gp_end(void)
{
	void (*hook)(unsigned long);

	/*
	 * The polled API first (sync.c): a cookie taken before a callback
	 * was queued is done once the callback has run, so waits_done must
	 * cover this grace period before any callback can see it ended (a
	 * per-CPU thread's synchronize_rcu() is such a callback).  Its
	 * release store ([wait_end_release]) comes after every report, as
	 * the one below does.
	 */
	rcu_wait_end(rcu_state.gp_wait);
	/*
	 * [gp_end_release] pairs [advance_cbs_acquire], [cs_qs_mb],
	 * [user_qs_mb], [cpu_offline_mb]: every
	 * quiescent-state report (each after its CPU's readers, by
	 * [cs_qs_mb]) is ordered before the new number, so a callback that
	 * sees the grace period ended cannot free what a reader still reads.
	 */
	smp_store_release(&rcu_state.gp_seq, rcu_state.gp_seq + 1);
	hook = CONFIG_RCU_CHECKING ? READ_ONCE(rcu_gp_end_hook) : NULL;
	if (hook)
		hook(rcu_state.gp_seq);	/* callbacks may see the end from here on */
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

	if (seq != gp || !cpumask_test_cpu(cpu, &rcu_state.qs_mask))
		return false;
	__cpumask_clear_cpu(cpu, &rcu_state.qs_mask);	/* the lock orders it */
	if (!cpumask_empty(&rcu_state.qs_mask))
		return false;
	rcu_gp_end();
	return true;
}

/*
 * Starts a grace period; rcu_state.lock held.  Returns true if it ended
 * at once (every CPU idle).
 */
static bool rcu_gp_start(void)
{
	int cpu;

	/* Numbered for the polled API before it looks at any CPU (sync.c). */
	rcu_state.gp_wait = rcu_wait_begin();
	if (rcu_injected(RCU_INJECT_POLL_GP_EARLY))
		rcu_wait_end(rcu_state.gp_wait);	/* fault injection: "ended" as it starts */
	cpumask_copy(&rcu_state.qs_mask, cpu_online_mask);
	if (rcu_injected(RCU_INJECT_MASK_SKIP_CPU) && num_online_cpus() > 1)	/* fault injection: */
		__cpumask_clear_cpu(cpumask_last(cpu_online_mask), &rcu_state.qs_mask);	/* the last CPU */
	/*
	 * [gp_start_wmb] pairs [note_qs_rmb]: the mask is visible before the
	 * number, so a CPU that sees the new grace period also sees its bit
	 * set, instead of an old mask without it (and skipping its report).
	 */
	smp_wmb();
	WRITE_ONCE(rcu_state.gp_seq, rcu_state.gp_seq + 1);
	rcu_state.gp_start_ns = ktime_get_ns();
	trace_record(TR_GP_START, rcu_state.gp_seq, 0);
	/*
	 * [gp_start_mb] pairs [idle_enter_mb_after], [idle_enter_mb_before],
	 * [idle_exit_mb], [call_rcu_mb]: a full barrier between publishing
	 * the grace period and reading the idle flags.  rcu_idle_enter()
	 * writes its flag and then reads the grace period: either we see the
	 * CPU idle and report for it, or it sees the new grace period and
	 * reports itself; never neither.  A CPU we see idle finished its
	 * readers before its flag (by [idle_enter_mb_before]).  A CPU that
	 * leaves idle after we read its flag reads only what the updater
	 * removed before call_rcu() ([call_rcu_mb], then this barrier, then
	 * [idle_exit_mb]).
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
	rcu_state.gp_requests++;
	if (rcu_state.gp_seq & 1)
		rcu_state.gp_needed = true;
	else
		ended = rcu_gp_start();
	spin_unlock_irqrestore(&rcu_state.lock, flags);
	if (ended)
		wake_cb_threads();
}

/*
 * Every report takes the one global lock: the flat design's price, which
 * grows with the CPU count (docs/rcu.md, "One lock for every report").
 * So this counts whether the report found the lock taken and how long it
 * waited; make bench prints both (tests/bench/update.c).  The counters
 * are written under the lock: plain increments suffice.
 */
static unsigned long rcu_state_lock_counted(void)
{
	unsigned long flags;
	u64 t0 = ktime_get_ns();
	bool contended;

	local_irq_save(flags);
	contended = !spin_trylock(&rcu_state.lock);
	if (contended)
		spin_lock(&rcu_state.lock);
	rcu_state.qs_reports++;
	rcu_state.qs_contended += contended;
	rcu_state.qs_lock_wait_ns += ktime_get_ns() - t0;
	return flags;
}

static void rcu_report_qs(int cpu, unsigned long gp)
{
	unsigned long flags = rcu_state_lock_counted();
	bool ended;

	ended = report_qs_locked(cpu, gp);
	spin_unlock_irqrestore(&rcu_state.lock, flags);
	if (ended)
		wake_cb_threads();
}

/*
 * Reports this CPU's quiescent state if the running grace period wants
 * it; true if it did.
 */
static bool note_qs(void)
{
	int cpu = smp_processor_id();
	unsigned long gp = READ_ONCE(rcu_state.gp_seq);

	if (!(gp & 1))
		return false;
	/* [note_qs_rmb] pairs [gp_start_wmb]: or an older mask could hide our bit and delay the grace period. */
	smp_rmb();
	if (!cpumask_test_cpu(cpu, &rcu_state.qs_mask))
		return false;
	trace_record(TR_QS, gp, 0);
	rcu_report_qs(cpu, gp);
	return true;
}

/*
 * The context-switch hook: this CPU is outside every read-side critical
 * section.  Cheap when no grace period waits for this CPU: a barrier and
 * two loads.
 */
void rcu_note_context_switch(void)
{
	rcu_note_task_qs(current);
	/*
	 * [cs_qs_mb] pairs [gp_end_release]: the loads of the readers this
	 * CPU ran before the switch are complete before our report, and so
	 * before the end of the grace period and every callback after it;
	 * without it a callback could free an element a reader here is still
	 * loading from.
	 */
	smp_mb();
	note_qs();
	rcu_exp_note_qs();
}

/*
 * Does a grace period, or an expedited one, wait for this CPU's
 * quiescent state now?  For schedule_to_fast(), after its barrier: it
 * reports nothing itself (a report may wake tasks, and it holds the
 * run-queue lock), so when one is wanted it leaves the switch to the
 * general way, which reports.  No barrier between the two loads: an
 * older mask than gp_seq's can only hide our bit, which delays the
 * report to this CPU's next quiescent state, or show it, which sends
 * the switch the general way for nothing -- never a report missed.
 */
bool rcu_qs_wanted(void)
{
	if ((READ_ONCE(rcu_state.gp_seq) & 1) &&
	    cpumask_test_cpu(smp_processor_id(), &rcu_state.qs_mask))
		return true;
	return rcu_exp_noted();
}

/*
 * Returning to user mode (kernel/user/entry.c, interrupts off): a
 * quiescent state, as a context switch is.  The kernel is never
 * preempted and nothing it holds survives the return, so every read-side
 * critical section this CPU ran in the kernel has ended by now: the
 * report is the context switch's, with the same barrier ([cs_qs_mb]).
 * A thread that stays in user mode returns here from every tick, so a
 * grace period waits at most a tick for its CPU (docs/user.md, "RCU").
 *
 * On every system call's way out, so first two loads and no barrier:
 * when neither kind of grace period is waiting for this CPU there is
 * nothing to report.  (A grace period that starts just after the look
 * gets the report at the next return: skipping one is never wrong.)
 * The report is out of line, so that the look costs no stack frame.
 */
static __attribute__((noinline)) void rcu_user_qs(void)
{
	struct rcu_data *rdp = &rcu_data[smp_processor_id()];

	/*
	 * [user_qs_mb] pairs [gp_end_release]: as [cs_qs_mb]:
	 * the loads of the readers this CPU ran in the kernel are complete
	 * before our report, so before the end of the grace period and
	 * whatever frees after it.
	 */
	smp_mb();
	if (note_qs())
		WRITE_ONCE(rdp->user_qs, rdp->user_qs + 1);
	if (rcu_exp_note_qs())
		WRITE_ONCE(rdp->exp_user_qs, rdp->exp_user_qs + 1);
}

void rcu_user_return(void)
{
	rcu_note_task_qs(current);
	if (unlikely((READ_ONCE(rcu_state.gp_seq) & 1) || rcu_exp_noted()))
		rcu_user_qs();
}

unsigned long rcu_user_qs_count(int cpu, bool expedited)
{
	return expedited ? READ_ONCE(rcu_data[cpu].exp_user_qs) : READ_ONCE(rcu_data[cpu].user_qs);
}

/*
 * Entering the idle extended quiescent state: from the idle loop, and
 * from rcu_irq_exit() when an interrupt taken on an idle CPU returns.
 */
void rcu_idle_enter(void)
{
	struct rcu_data *rdp = &rcu_data[smp_processor_id()];

	/*
	 * [idle_enter_mb_before] pairs [gp_start_mb]: entering idle releases
	 * everything before it.  Coming from rcu_irq_exit(), the handler's
	 * loads of RCU-protected data must be complete before `idle` is
	 * visible; otherwise (AArch64) another CPU's rcu_gp_start() sees us
	 * idle, reports for us, and a callback frees what the handler is
	 * still reading.  TCG cannot show it (nearly in-order on x86 hosts).
	 */
	smp_mb();
	WRITE_ONCE(rdp->idle, true);
	/*
	 * [idle_enter_mb_after] pairs [gp_start_mb], [exp_start_mb]: our
	 * flag is visible before we read gp_seq, as rcu_gp_start() publishes
	 * gp_seq before reading the flags: one of us sees the other, never
	 * neither (a grace period that waits for an idle CPU that never
	 * reports).  The same for an expedited grace period's start.
	 */
	smp_mb();
	note_qs();
	rcu_exp_note_qs();
}

void rcu_idle_exit(void)
{
	struct rcu_data *rdp = &rcu_data[smp_processor_id()];

	if (!rcu_injected(RCU_INJECT_IDLE_EXIT_FORGETS))	/* fault injection: stays "idle" */
		WRITE_ONCE(rdp->idle, false);
	/*
	 * [idle_exit_mb] pairs [gp_start_mb], [exp_start_mb]: leaving the extended quiescent
	 * state.  Our flag is visible before any RCU-protected load after it,
	 * so a grace period that starts from here on waits for us; and one
	 * that saw us idle ordered its updater's removal before its reading
	 * of our flag, so what we read now cannot be what it frees.
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

/*
 * In an interrupt handler: did the interrupt come from the idle loop's
 * extended quiescent state?  Then the CPU runs no reader.  Not the same
 * as "the idle task is current": the boot CPU runs kmain()'s set-up as
 * its idle task, interrupts on, and an arriving CPU its starting hook,
 * both outside the idle state and free to read.
 */
bool rcu_irq_from_idle(void)
{
	return this_cpu()->irq_depth == 1 && rcu_data[smp_processor_id()].irq_from_idle;
}

bool rcu_cpu_in_eqs(int cpu)
{
	return READ_ONCE(rcu_data[cpu].idle);
}

bool rcu_cpu_owes_qs(int cpu)
{
	/* A snapshot for statistics (the demos): no ordering needed. */
	return (READ_ONCE(rcu_state.gp_seq) & 1) && cpumask_test_cpu(cpu, &rcu_state.qs_mask);
}

void rcu_init(void)
{
	rcu_init_callbacks();
	rcu_inject_announce();
}

void rcu_get_stats(struct rcu_stats *s)
{
	int cpu;

	s->gp_seq = READ_ONCE(rcu_state.gp_seq);
	cpumask_copy(&s->qs_mask, &rcu_state.qs_mask);
	s->gps_completed = READ_ONCE(rcu_state.gps_completed);
	s->qs_reports = READ_ONCE(rcu_state.qs_reports);
	s->qs_contended = READ_ONCE(rcu_state.qs_contended);
	s->qs_lock_wait_ns = READ_ONCE(rcu_state.qs_lock_wait_ns);
	s->gp_requests = READ_ONCE(rcu_state.gp_requests);
	s->tours_started = atomic_long_read(&rcu_state.tours_started);
	s->tours_completed = atomic_long_read(&rcu_state.tours_completed);
	s->stall_reports = READ_ONCE(rcu_stall_reports);
	rcu_exp_get_stats(s);
	s->cbs_queued = 0;
	s->cbs_invoked = 0;
	s->user_qs = s->exp_user_qs = 0;
	for_each_possible_cpu(cpu) {	/* a CPU that went down invoked callbacks too */
		s->cbs_queued += READ_ONCE(rcu_data[cpu].ncbs);
		s->cbs_invoked += READ_ONCE(rcu_data[cpu].cbs_invoked);
		s->user_qs += rcu_user_qs_count(cpu, false);
		s->exp_user_qs += rcu_user_qs_count(cpu, true);
	}
}

/*
 * CPU hotplug.  A CPU's online bit changes only here, under rcu_state.lock,
 * so rcu_gp_start() (which builds its mask under that lock) either sees
 * the CPU and waits for it, or does not and has nothing to wait for.
 */

/* The arriving CPU, interrupts off, before it runs anything. */
void rcu_cpu_starting(int cpu)
{
	struct rcu_data *rdp = &rcu_data[cpu];
	unsigned long flags;

	spin_lock_irqsave(&rcu_state.lock, flags);
	/*
	 * Not idle: a grace period that starts from now on waits for us (an
	 * offline CPU counts as idle, rcu_report_dead()).  A grace period
	 * that started before this lock did not include us, and the lock
	 * orders everything its updater removed before our first reader.
	 */
	if (!rcu_injected(RCU_INJECT_ONLINE_STARTS_IDLE))	/* fault injection: still "idle" */
		WRITE_ONCE(rdp->idle, false);
	rdp->irq_from_idle = false;
	set_cpu_online(cpu, true);
	spin_unlock_irqrestore(&rcu_state.lock, flags);
	/*
	 * [cpu_up_mb] pairs [wait_begin_mb]: our online bit is visible
	 * before any reader here loads a pointer.  A synchronize_rcu() tour
	 * that began earlier (wait_begin_mb after its updater's removal) and
	 * read our bit as clear skipped us: then our readers see the removal.
	 */
	smp_mb();
}

/* The leaving CPU, interrupts off for good, after its last context switch. */
void rcu_report_dead(int cpu)
{
	struct rcu_data *rdp = &rcu_data[cpu];
	unsigned long flags;
	bool ended = false;

	/*
	 * [cpu_offline_mb] pairs [tour_end_mb], [schedule_mb], [gp_end_release],
	 * [migrate_mb], [fast_switch_mb]: every reader this CPU ran (in a task before its last
	 * switch, in an interrupt handler before it turned interrupts off for
	 * good, in the dying hook or a cross-CPU call since) is complete
	 * before our offline bit, our report and the hand-over of a tour's
	 * hop queued here (sched_cpu_offline()) are visible.  A tour that
	 * sees us offline, or is sent on by us, ends with [tour_end_mb] (or
	 * switches through [schedule_mb]); a grace period that ends on our
	 * report orders its end after it: the updater's kfree() comes after
	 * our readers.
	 */
	smp_mb();
	spin_lock_irqsave(&rcu_state.lock, flags);
	/*
	 * Offline first: if our report ends the grace period and another is
	 * needed, rcu_gp_start() starts it at once, and it must not wait for
	 * us (it would wait forever).
	 */
	WRITE_ONCE(rdp->idle, true);	/* an offline CPU is quiescent, like an idle one */
	set_cpu_online(cpu, false);
	/* Our quiescent state, for a grace period that started after our last switch. */
	if (!rcu_injected(RCU_INJECT_OFFLINE_NO_QS))	/* fault injection: no report */
		ended = report_qs_locked(cpu, rcu_state.gp_seq);
	spin_unlock_irqrestore(&rcu_state.lock, flags);
	if (ended)
		wake_cb_threads();	/* (on the CPUs that stay) */
}
