/*
 * CPU hotplug: remove_cpu() and add_cpu() (kernel/cpu.h).
 *
 * Going down, in order:
 *   1. remove_cpu() marks the CPU dying and wakes its idle loop
 *      (sched_cpu_set_dying());
 *   2. on that CPU, each task that yields or blocks there moves to another
 *      CPU, per-CPU threads (rcuc/N) run until they block and then park;
 *      when its run queue is empty the idle task marks it offline
 *      (sched_cpu_dying()): that context switch was its last;
 *   3. with interrupts off for good, it runs a cross-CPU call addressed to
 *      it, reports its quiescent state and clears its online bit under
 *      rcu_state.lock (rcu_report_dead()), and stops: its timer off, then
 *      x86-64 a halt loop, AArch64 PSCI CPU_OFF (arch_cpu_die());
 *   4. remove_cpu(), on a CPU that stays, waits until the arch says the CPU
 *      is stopped (arch_cpu_is_dead()), then moves its RCU callbacks here,
 *      in order, still waiting for their grace periods
 *      (rcu_migrate_callbacks()).
 * Coming up: the CPU starts as at boot (smp_start_cpu(): INIT-SIPI-SIPI or
 * PSCI CPU_ON) and sets its online bit under rcu_state.lock
 * (rcu_cpu_starting()); then its parked threads run again.
 */
#include <errno.h>
#include "kernel.h"
#include "cpu.h"

/* How long a CPU may take to stop once it is offline (a bug if longer). */
#define CPU_DEAD_TIMEOUT_NS	(10 * NSEC_PER_SEC)
/* While a CPU going down still runs a task, say so this often. */
#define CPU_DOWN_REPORT_NS	(10 * NSEC_PER_SEC)

/* One hotplug operation at a time; cpus_read_lock() holds it too (one mutex: readers exclude each other). */
static DEFINE_MUTEX(cpu_hotplug_lock);
static unsigned long hotplug_ops;

void cpus_read_lock(void)
{
	mutex_lock(&cpu_hotplug_lock);
}

void cpus_read_unlock(void)
{
	mutex_unlock(&cpu_hotplug_lock);
}

unsigned long cpu_hotplug_count(void)
{
	return READ_ONCE(hotplug_ops);
}

void (*cpu_dying_hook)(int cpu);

/* Step 3, on the CPU going down, from its idle task once no task is left here. */
void cpu_die(void)
{
	int cpu = smp_processor_id();
	void (*hook)(int) = READ_ONCE(cpu_dying_hook);

	local_irq_disable();
	smp_handle_call_ipi();	/* a call addressed to us while we were up */
	if (hook)
		hook(cpu);
	rcu_report_dead(cpu);
	arch_cpu_die(cpu);
}

/* Steps 1, 2 and 4; cpu_hotplug_lock held. */
static int take_cpu_down(int cpu)
{
	u64 start = ktime_get_ns(), next_report = start + CPU_DOWN_REPORT_NS, dead_by;

	sched_cpu_set_dying(cpu);
	while (cpu_online(cpu)) {
		msleep(1);
		if (ktime_get_ns() > next_report) {
			struct task_struct *t = sched_curr(cpu);

			printk("hotplug: CPU%d still going down after %llu s: %s (pid %d) has not "
			       "yielded\n", cpu, (ktime_get_ns() - start) / NSEC_PER_SEC,
			       t ? t->comm : "?", t ? t->pid : -1);
			next_report += CPU_DOWN_REPORT_NS;
		}
	}
	dead_by = ktime_get_ns() + CPU_DEAD_TIMEOUT_NS;
	while (!arch_cpu_is_dead(cpu)) {
		if (ktime_get_ns() > dead_by)
			panic("hotplug: CPU%d went offline but did not stop within %llu s",
			      cpu, CPU_DEAD_TIMEOUT_NS / NSEC_PER_SEC);
		msleep(1);
	}
	rcu_migrate_callbacks(cpu);
	return 0;
}

int remove_cpu(unsigned int cpu)
{
	int ret;

	might_sleep_check("remove_cpu");
	if (cpu >= (unsigned int)nr_cpu_ids)
		return -EINVAL;
	if (cpu == 0)
		return -EPERM;	/* the boot CPU: its tick keeps jiffies and the sleepers of offline CPUs */
	if (current->per_cpu && current->cpu == (int)cpu)
		return -EBUSY;	/* it would park itself and never finish */
	mutex_lock(&cpu_hotplug_lock);
	ret = cpu_online(cpu) ? take_cpu_down(cpu) : 1;
	if (!ret) {
		WRITE_ONCE(hotplug_ops, hotplug_ops + 1);
		printk("smp: CPU%d is offline\n", cpu);
	}
	mutex_unlock(&cpu_hotplug_lock);
	return ret;
}

int add_cpu(unsigned int cpu)
{
	int ret = 0;

	might_sleep_check("add_cpu");
	if (cpu >= (unsigned int)nr_cpu_ids)
		return -EINVAL;
	mutex_lock(&cpu_hotplug_lock);
	if (cpu_online(cpu)) {
		ret = 1;
	} else if (!smp_start_cpu(cpu)) {
		ret = -EIO;
	} else {
		sched_cpu_unpark(cpu);
		rcu_online_cpu(cpu);
		WRITE_ONCE(hotplug_ops, hotplug_ops + 1);
		printk("smp: CPU%d is online\n", cpu);
	}
	mutex_unlock(&cpu_hotplug_lock);
	return ret;
}
