/*
 * run_on(cpu): the calling task moves to cpu and returns once it runs
 * there.  synchronize_rcu() (kernel/rcu/sync.c) is a run_on() to every
 * online CPU: each hop waits for whatever runs on that CPU to switch,
 * which with no preemption and no blocking in readers is a quiescent
 * state.
 *
 * The move has two halves (the switch protocol is in sched.c): run_on()
 * marks the task (migrate_to) and switches away; once it is fully off
 * this CPU, the task switched to calls finish_run_on(), which queues it
 * on its target.
 */
#include "rq.h"
#include <errno.h>

/*
 * run_on()'s second half: prev asked to move to prev->migrate_to and is
 * now fully off this CPU (its registers saved, our lock released), so
 * the target may run it: queue it there.
 */
void finish_run_on(struct task_struct *prev)
{
	int target = prev->migrate_to;

	prev->migrate_to = -1;
	/* Whatever runs on target now is what the hop will wait for. */
	trace_record(TR_HOP_QUEUE, target, prev->pid);
	enqueue_on(prev, target);	/* run_on(): now it may run there */
}

int run_on(int cpu)
{
	might_sleep_check("run_on");
	if (!cpu_online(cpu))
		return -ENODEV;
	if (current == this_rq()->idle)
		panic("BUG: run_on(%d) from an idle task", cpu);
	if (current->per_cpu && cpu != smp_processor_id())
		panic("BUG: run_on(%d) from per-CPU thread %s: it belongs on CPU%d", cpu,
		      current->comm, smp_processor_id());
	if (cpu != smp_processor_id())
		current->migrate_to = cpu;
	current->run_on_hop = true;	/* until it runs again (__schedule()): for stall reports */
	__schedule();
	/*
	 * cpu went down while we were queued there (or ran there): it sent
	 * us on only after rcu_report_dead() (sched_cpu_offline()), so no
	 * reader it ran, in a task, a handler or its last moments, is still
	 * running.
	 */
	if (smp_processor_id() != cpu)
		return -ENODEV;
	trace_record(TR_HOP, cpu, 0);
	return 0;
}
