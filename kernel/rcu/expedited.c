/*
 * synchronize_rcu_expedited(): the same guarantee as synchronize_rcu(),
 * at the cost of the slowest CPU instead of the sum of all of them.
 *
 * The tour visits the CPUs one after the other.  Here the caller asks
 * them all at once, as Linux's non-preemptible expedited grace period
 * does: every CPU that is idle already is in a quiescent state (its idle
 * flag says so) and is reported by the caller; every other CPU gets an
 * IPI.  Its handler reports at once only when it interrupted the idle
 * task, which runs no reader; otherwise it leaves a note, and the CPU
 * reports at its next context switch, since the production build has no
 * reader nesting count the handler could consult.  The caller sleeps
 * until the last report.
 */
#include "kernel.h"
#include "rcu.h"
#include "cpu.h"

static DEFINE_MUTEX(exp_mutex);		/* one expedited grace period at a time */
static struct cpumask exp_mask;		/* CPUs that still owe it a quiescent state */
static atomic_t exp_remaining;		/* how many: the last report completes */
static DECLARE_COMPLETION(exp_done);
struct cpumask exp_noted;		/* the IPI found a task: report at its switch (rcu.h) */
static unsigned long exp_started, exp_completed;	/* for rcu_get_stats() */
static struct sched_waiter exp_waiter;	/* who waits, since when: for stall reports */

/* cpu's quiescent state, once; the last one wakes the caller. */
static void rcu_exp_report(int cpu)
{
	/*
	 * [exp_report_mb] pairs [exp_wait_mb]: fully ordered, so the readers
	 * this CPU ran before its quiescent state (ordered before us by
	 * [cs_qs_mb], the idle flag or the interrupt) end before the caller
	 * sees the count reach zero and frees.  The bit makes each CPU report
	 * once, whoever reports for it.
	 */
	if (!cpumask_test_and_clear_cpu(cpu, &exp_mask))
		return;
	trace_record(TR_EXP_QS, cpu, 0);
	/* [exp_last_dec] pairs [exp_wait_mb]: the last report is ordered before the caller's return. */
	if (atomic_dec_and_test(&exp_remaining))
		complete(&exp_done);
}

/* The IPI: on the CPU that owes a quiescent state, interrupts off. */
static void rcu_exp_handler(void *info)
{
	int cpu = smp_processor_id();

	(void)info;
	/*
	 * The idle loop's extended quiescent state runs no reader, so an
	 * interrupt from it is a quiescent state.  Anything else may be inside
	 * rcu_read_lock() -- a task, or the idle task before its idle loop
	 * (kmain()'s set-up on the boot CPU): wait for its switch or its
	 * entry to idle (rcu_exp_note_qs()).
	 */
	if (rcu_irq_from_idle() || rcu_injected(RCU_INJECT_EXP_IPI_REPORTS_BUSY))
		rcu_exp_report(cpu);
	else
		cpumask_set_cpu(cpu, &exp_noted);
}

/*
 * A quiescent state of this CPU: from rcu_note_context_switch() after its
 * barrier [cs_qs_mb], and from rcu_idle_enter() after [idle_enter_mb_after]
 * (an IPI that came just before a switch to the idle task left its note
 * for a switch that the idle loop will not make).  One load when no
 * expedited grace period waits for this CPU.
 */
bool rcu_exp_note_qs(void)
{
	int cpu = smp_processor_id();

	if (!cpumask_test_cpu(cpu, &exp_noted))
		return false;
	cpumask_clear_cpu(cpu, &exp_noted);
	rcu_exp_report(cpu);
	return true;
}

/* Who waits from now on, for the stall check (rcu_exp_waits_for()). */
static void note_waiter(void)
{
	snprintf(exp_waiter.comm, sizeof(exp_waiter.comm), "%s", current->comm);
	exp_waiter.pid = current->pid;
	WRITE_ONCE(exp_waiter.since_ns, ktime_get_ns());
}

/*
 * For the stall check (stall.c), racy: does the expedited grace period in
 * progress still wait for cpu?  Then *w says who waits and since when.
 */
bool rcu_exp_waits_for(int cpu, struct sched_waiter *w)
{
	if (READ_ONCE(exp_started) == READ_ONCE(exp_completed) ||
	    !cpumask_test_cpu(cpu, &exp_mask))
		return false;
	*w = exp_waiter;
	return true;
}

/*
 * Wait for every RCU read-side critical section that began before this
 * call to end, by asking every CPU at once.
 */
void synchronize_rcu_expedited(void)
{
	struct cpumask ipi;
	unsigned long wait;
	int cpu, me;

	might_sleep_check("synchronize_rcu_expedited");
	if (rcu_injected(RCU_INJECT_NO_WAIT))
		return;		/* fault injection: a grace period that waits for nothing */
	/*
	 * No CPU comes or goes meanwhile: a CPU in our mask that went offline
	 * before taking our IPI would never report (kernel/hotplug.c).
	 */
	cpus_read_lock();
	mutex_lock(&exp_mutex);
	/* Numbered for the polled API, as a tour is (fault injection: at the end). */
	wait = rcu_injected(RCU_INJECT_EXP_NUMBERED_LATE) ? 0 : rcu_wait_begin();
	trace_record(TR_EXP_BEGIN, wait, 0);
	me = smp_processor_id();
	cpumask_copy(&exp_mask, cpu_online_mask);
	cpumask_copy(&ipi, &exp_mask);
	atomic_set(&exp_remaining, cpumask_weight(&exp_mask));
	reinit_completion(&exp_done);
	WRITE_ONCE(exp_started, exp_started + 1);
	note_waiter();
	/*
	 * [exp_start_mb] pairs [idle_enter_mb_after], [idle_exit_mb]: as
	 * [gp_start_mb] for an asynchronous grace period.  The caller's
	 * removal and our mask are visible before we read the idle flags:
	 * either we see a CPU idle, and it finished its readers before (by
	 * [idle_enter_mb_before]) and starts new ones only after seeing the
	 * removal, or it is not idle and gets an IPI.
	 */
	smp_mb();
	for_each_cpu(cpu, &ipi) {
		if (cpu == me || rcu_cpu_in_eqs(cpu)) {
			rcu_exp_report(cpu);	/* we run no reader; an idle CPU none */
			__cpumask_clear_cpu(cpu, &ipi);
		}
	}
	if (!cpumask_empty(&ipi))
		on_each_cpu_mask(&ipi, rcu_exp_handler, NULL, false);
	wait_for_completion(&exp_done);
	/*
	 * [exp_wait_mb] pairs [exp_report_mb], [exp_last_dec]: every CPU's
	 * report, and the end of its readers before it, is ordered before
	 * our return and the caller's kfree().
	 */
	smp_mb();
	if (rcu_injected(RCU_INJECT_EXP_NUMBERED_LATE))
		wait = rcu_wait_begin();	/* fault injection: covers cookies taken meanwhile */
	rcu_wait_end(wait);
	WRITE_ONCE(exp_completed, exp_completed + 1);
	trace_record(TR_EXP_END, wait, 0);
	mutex_unlock(&exp_mutex);
	cpus_read_unlock();
}

/* For rcu_get_stats(): a snapshot, for reports and tests (no ordering). */
void rcu_exp_get_stats(struct rcu_stats *s)
{
	s->exp_started = READ_ONCE(exp_started);
	cpumask_copy(&s->exp_mask, &exp_mask);
	cpumask_copy(&s->exp_noted, &exp_noted);
	s->exp_completed = READ_ONCE(exp_completed);
}
