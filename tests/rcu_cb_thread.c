/*
 * rcuc/N and the flag that tells it there is work.  White-box: the one
 * test file that reads RCU's private state (kernel/rcu/rcu.h), because the
 * state it checks cannot be reached from outside in today's kernel.
 *
 * Callbacks that became ready before their CPU's rcuc existed (queued
 * before rcu_init_cpu_threads(), or on a CPU that add_cpu() brings up for
 * the first time) must not wait for an unrelated grace period, or for
 * ever: the wake-up sets the flag even with no thread to wake, and the
 * thread looks at the flag before it first sleeps.  Before the fix the
 * wake-up returned first, the flag stayed clear and the new thread slept.
 * The CPU number past those the firmware lists has no rcuc, ever.
 */
#include "ktest.h"
#include "rcu/rcu.h"

KTEST(rcu_wakeup_of_a_cpu_without_rcuc_leaves_work_for_it)
{
	int cpu = nr_cpu_ids;

	if (cpu >= NR_CPUS)
		KTEST_SKIP("every CPU number below NR_CPUS is a CPU the firmware lists");
	KASSERT(READ_ONCE(rcu_data[cpu].cb_thread) == NULL);
	WRITE_ONCE(rcu_data[cpu].cb_work, false);
	wake_cb_thread(cpu);
	KEXPECT(READ_ONCE(rcu_data[cpu].cb_work));
	WRITE_ONCE(rcu_data[cpu].cb_work, false);
}
