/*
 * The idle loop never halts with work that no IPI announces.
 *
 * An idle CPU's own rcu_idle_enter() may end a grace period and wake that
 * CPU's rcuc thread; waking a task on one's own CPU sends no IPI, so an
 * idle loop that did not look at its queue again, interrupts off, would
 * halt and leave rcuc waiting for the next tick.  The checking build
 * counts such halts (sched_idle_halts_with_work()).
 *
 * The window: a grace period that starts while the idle CPU is awake but
 * not in its idle state (between rcu_idle_exit() and rcu_idle_enter() in
 * cpu_idle_loop()) and whose other CPUs all report before it gets back to
 * rcu_idle_enter().  An interrupt taken in that window that queues a
 * callback starts such a grace period on the spot: we wake the idle CPU
 * with one IPI, so that a second one, which queues the callback, is
 * likely to arrive while it is still in the window, then report our own
 * quiescent state at once so that the idle CPU's is the last.
 */
#include "ktest.h"

#define IDLE_ATTEMPTS	200

static struct rcu_head idle_heads[IDLE_ATTEMPTS];
static atomic_t idle_cbs_run;

static void idle_cb(struct rcu_head *rh)
{
	(void)rh;
	atomic_inc(&idle_cbs_run);
}

/* On the idle CPU, in its IPI handler: a callback, and so a grace period. */
static void queue_from_ipi(void *info)
{
	call_rcu(info, idle_cb);
}

/* Waits (reporting quiescent states) until cpu is halted in its idle loop. */
static bool wait_until_idle(int cpu)
{
	u64 end = ktime_get_ns() + 10ULL * NSEC_PER_SEC;

	while (!(sched_cpu_idle(cpu) && rcu_cpu_in_eqs(cpu))) {
		if (ktime_get_ns() > end)
			return false;
		cond_resched();
	}
	return true;
}

/*
 * Waits a little for cpu to be awake in its idle loop, out of the idle
 * state and out of the interrupt that woke it: the window.  Often too
 * short to see; then the next IPI just comes a bit late.
 */
static void wait_until_in_window(int cpu)
{
	for (int spins = 0; spins < 100000; spins++) {
		if (sched_cpu_idle(cpu) && !rcu_cpu_in_eqs(cpu) && !READ_ONCE(cpus[cpu].irq_depth))
			return;
		cpu_relax();
	}
}

KTEST(idle_never_halts_with_unannounced_work)
{
	unsigned long before = sched_idle_halts_with_work();
	int target = num_online_cpus() - 1, i;

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: the halt counter is a checking-build feature");
	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: an idle one and one that sends it interrupts");
	atomic_set(&idle_cbs_run, 0);
	for (i = 0; i < IDLE_ATTEMPTS; i++) {
		KASSERT(wait_until_idle(target));
		arch_send_ipi(target, IPI_RESCHEDULE);	/* wakes it: the window opens */
		wait_until_in_window(target);
		smp_call_function_single(target, queue_from_ipi, &idle_heads[i], true);
		cond_resched();		/* our quiescent state, before the idle CPU's */
	}
	rcu_barrier();
	KEXPECT_EQ(atomic_read(&idle_cbs_run), IDLE_ATTEMPTS);
	ktest_info("%d callbacks queued from IPIs on idle CPU%d; halts with unannounced work: %lu",
		   IDLE_ATTEMPTS, target, sched_idle_halts_with_work() - before);
	KEXPECT_EQ(sched_idle_halts_with_work() - before, 0);
}
