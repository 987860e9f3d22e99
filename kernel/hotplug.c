/*
 * CPU hotplug: remove_cpu() and add_cpu() (kernel/cpu.h).
 *
 * Going down, in order:
 *   1. remove_cpu() marks the CPU dying and wakes its idle loop
 *      (sched_cpu_set_dying());
 *   2. on that CPU, each task that yields or blocks there moves to another
 *      CPU, per-CPU threads (rcuc/N) run until they block; when its run
 *      queue is empty the idle task turns interrupts off for good
 *      (sched_cpu_dying()): that context switch was its last;
 *   3. it runs the test hook and a cross-CPU call addressed to it (either
 *      may hold RCU readers), reports its quiescent state and clears its
 *      online bit under rcu_state.lock (rcu_report_dead()); only then does
 *      its run queue go offline, sending on what was queued meanwhile (a
 *      tour's hop) and parking per-CPU threads (sched_cpu_offline()); it
 *      stops: its timer off, then x86-64 a halt loop, AArch64 PSCI
 *      CPU_OFF (arch_cpu_die());
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
#include "irq.h"

/* How long a CPU may take to stop once it is offline (a bug if longer). */
#define CPU_DEAD_TIMEOUT_NS	(10 * NSEC_PER_SEC)
/* While a CPU going down still runs a task, say so this often. */
#define CPU_DOWN_REPORT_NS	(10 * NSEC_PER_SEC)

/*
 * cpu_hotplug_lock, a reader-writer sleeping lock: cpus_read_lock() keeps
 * every CPU where it is, and any number of readers hold it at once
 * (rcu_barrier() and synchronize_rcu_expedited() run side by side);
 * remove_cpu() and add_cpu() take it as the writer, alone.  First come,
 * first served: a reader that arrives while a writer waits queues behind
 * it, so a stream of readers cannot keep hotplug out for ever.  A task
 * that holds it for reading may take it again (rcu_barrier() inside
 * cpus_read_lock(), say): it does not queue, or a writer queued in
 * between would wait for its first hold while its second waited for the
 * writer.  Taking it for writing while holding it for reading is refused,
 * and so is taking it at all while holding it for writing: each would
 * wait for itself.
 */
struct hotplug_waiter {
	struct list_head node;
	struct task_struct *task;
	bool write;
	bool granted;		/* set by whoever handed the lock over, under the lock */
};

static struct {
	spinlock_t lock;
	int readers;		/* readers inside */
	bool writer;		/* a writer inside */
	struct task_struct *writer_task;	/* ...and which task it is */
	struct list_head waiters;	/* in arrival order */
} cpu_hotplug_lock = {
	.lock = __SPIN_LOCK_UNLOCKED(cpu_hotplug_lock.lock),
	.waiters = LIST_HEAD_INIT(cpu_hotplug_lock.waiters),
};
static unsigned long hotplug_ops;

/* Hands the lock to the waiters at the head that may now enter; lock held. */
static void hotplug_lock_grant(void)
{
	struct hotplug_waiter *w;

	while (!list_empty(&cpu_hotplug_lock.waiters) && !cpu_hotplug_lock.writer) {
		w = list_first_entry(&cpu_hotplug_lock.waiters, struct hotplug_waiter, node);
		if (w->write && cpu_hotplug_lock.readers)
			return;		/* the writer waits for the readers inside */
		if (w->write) {
			cpu_hotplug_lock.writer = true;
			WRITE_ONCE(cpu_hotplug_lock.writer_task, w->task);
		}
		else
			cpu_hotplug_lock.readers++;
		list_del(&w->node);
		w->granted = true;
		wake_up_process(w->task);
	}
}

static void hotplug_lock(bool write)
{
	struct hotplug_waiter w = { .task = current, .write = write };
	unsigned long flags;

	might_sleep_check(write ? "cpus_write_lock" : "cpus_read_lock");
	/* (only the writer itself stored itself there: no race with it) */
	if (READ_ONCE(cpu_hotplug_lock.writer_task) == current)
		panic("BUG: %s() by %s, which holds cpus_write_lock() (remove_cpu(), add_cpu()): "
		      "it would wait for itself", write ? "cpus_write_lock" : "cpus_read_lock",
		      current->comm);
	if (current->cpus_read_depth) {
		if (write)
			panic("BUG: cpus_write_lock() (remove_cpu(), add_cpu()) by %s, which "
			      "holds cpus_read_lock(): it would wait for itself", current->comm);
		current->cpus_read_depth++;	/* nested: no writer can be inside */
		return;
	}
	spin_lock_irqsave(&cpu_hotplug_lock.lock, flags);
	list_add_tail(&w.node, &cpu_hotplug_lock.waiters);
	hotplug_lock_grant();
	/* As mutex_lock(): a wake-up between our unlock and the switch keeps us running. */
	while (!w.granted) {
		current->state = TASK_BLOCKED;
		spin_unlock_irqrestore(&cpu_hotplug_lock.lock, flags);
		schedule();
		spin_lock_irqsave(&cpu_hotplug_lock.lock, flags);
	}
	spin_unlock_irqrestore(&cpu_hotplug_lock.lock, flags);
	if (!write)
		current->cpus_read_depth = 1;
}

static void hotplug_unlock(bool write)
{
	unsigned long flags;

	if (!write && current->cpus_read_depth > 1) {
		current->cpus_read_depth--;	/* an inner hold */
		return;
	}
	spin_lock_irqsave(&cpu_hotplug_lock.lock, flags);
	if (write ? !cpu_hotplug_lock.writer : current->cpus_read_depth != 1)
		panic("BUG: %s by %s, which does not hold cpu_hotplug_lock",
		      write ? "cpus_write_unlock" : "cpus_read_unlock", current->comm);
	if (write) {
		cpu_hotplug_lock.writer = false;
		WRITE_ONCE(cpu_hotplug_lock.writer_task, NULL);
	} else {
		cpu_hotplug_lock.readers--;
		current->cpus_read_depth = 0;
	}
	hotplug_lock_grant();
	spin_unlock_irqrestore(&cpu_hotplug_lock.lock, flags);
}

void cpus_read_lock(void)
{
	hotplug_lock(false);
}

void cpus_read_unlock(void)
{
	hotplug_unlock(false);
}

void cpus_write_lock(void)
{
	hotplug_lock(true);
}

void cpus_write_unlock(void)
{
	hotplug_unlock(true);
}

unsigned long cpu_hotplug_count(void)
{
	return READ_ONCE(hotplug_ops);
}

void (*cpu_dying_hook)(int cpu);
void (*cpu_dying_late_hook)(int cpu);
void (*cpu_starting_hook)(int cpu);

/*
 * Step 3, on the CPU going down, from its idle task once no task is left
 * here (sched_cpu_dying()), interrupts off since that last switch.  The
 * hook, a cross-CPU call and irq_work accepted since the CPU's last
 * interrupt may still hold RCU readers: until
 * rcu_report_dead() the CPU stays online and its run queue takes tasks, so
 * a synchronize_rcu() tour that hops here waits in that queue, and only
 * sched_cpu_offline() sends it on.
 */
void cpu_die(void)
{
	int cpu = smp_processor_id();
	void (*hook)(int) = READ_ONCE(cpu_dying_hook);
	void (*late_hook)(int) = READ_ONCE(cpu_dying_late_hook);

	if (!arch_irqs_disabled())
		panic("BUG: CPU%d going down with interrupts on: a handler could hold a "
		      "reader after its run queue went offline", cpu);
	if (hook)
		hook(cpu);
	smp_handle_call_ipi();	/* a call addressed to us while we were up */
	if (late_hook)
		late_hook(cpu);
	irq_work_cpu_dying(cpu);	/* and irq_work queued for us since */
	rcu_report_dead(cpu);
	sched_cpu_offline(cpu);
	arch_cpu_die(cpu);
}

/* Steps 1, 2 and 4; cpu_hotplug_lock held for writing. */
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
	cpus_write_lock();
	ret = cpu_online(cpu) ? take_cpu_down(cpu) : 1;
	if (!ret) {
		WRITE_ONCE(hotplug_ops, hotplug_ops + 1);
		printk("smp: CPU%d is offline\n", cpu);
	}
	cpus_write_unlock();
	return ret;
}

int add_cpu(unsigned int cpu)
{
	int ret = 0;

	might_sleep_check("add_cpu");
	if (cpu >= (unsigned int)nr_cpu_ids)
		return -EINVAL;
	cpus_write_lock();
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
	cpus_write_unlock();
	return ret;
}
