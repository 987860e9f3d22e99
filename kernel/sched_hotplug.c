/*
 * The scheduler's half of CPU hotplug (kernel/hotplug.c has the rest): a
 * CPU going down sends its tasks to another CPU and parks its per-CPU
 * threads; one coming back wakes those that were woken meanwhile.
 */
#include "rq.h"

/*
 * Where a task goes when its CPU is going down or down: the next CPU that
 * is online and not going down (the boot CPU never goes, so there is one).
 */
int fallback_cpu(int from)
{
	for (int i = 1; i <= NR_CPUS; i++) {
		int cpu = (from + i) % NR_CPUS;

		if (cpu_online(cpu) && !READ_ONCE(runqueues[cpu].dying))
			return cpu;
	}
	return 0;
}

/*
 * remove_cpu() marked this CPU dying; its idle task takes it down.  From
 * then on a task that yields here moves to another CPU (__schedule()), and
 * only per-CPU threads are picked to run (pick_next()): we let them run
 * until they block, and send every other queued task on to a CPU that
 * stays (a run_on() to this CPU returns -ENODEV).  When the queue is
 * empty we mark it offline under its lock: from then on a task queued or
 * woken here goes to another CPU (enqueue_on(), wake_up_process()), and a
 * per-CPU thread parks.  The idle task runs only once the task before it
 * switched away, so every task we send on leaves after this CPU's last
 * context switch with a reader in it: a synchronize_rcu() tour sent on
 * has nothing more to wait for here.
 */
void sched_cpu_dying(struct rq *rq)
{
	struct task_struct *t, *n;
	unsigned long flags;
	bool done;

	do {
		LIST_HEAD(leaving);

		spin_lock_irqsave(&rq->lock, flags);
		list_for_each_entry_safe(t, n, &rq->queue, run_node) {
			if (!t->per_cpu) {
				list_move_tail(&t->run_node, &leaving);
				rq->nr_queued--;
			}
		}
		done = !rq->nr_queued;
		if (done)
			rq->offline = true;
		spin_unlock_irqrestore(&rq->lock, flags);
		list_for_each_entry_safe(t, n, &leaving, run_node) {
			list_del(&t->run_node);
			enqueue_on(t, fallback_cpu(smp_processor_id()));
		}
		if (!done)
			schedule();	/* a per-CPU thread runs until it blocks */
	} while (!done);
}

/* remove_cpu(): the idle loop of cpu takes it down once it sees this. */
void sched_cpu_set_dying(int cpu)
{
	struct rq *rq = &runqueues[cpu];
	unsigned long flags;

	spin_lock_irqsave(&rq->lock, flags);
	rq->dying = true;
	spin_unlock_irqrestore(&rq->lock, flags);
	kick_cpu(cpu);	/* wake its idle loop */
}

bool sched_cpu_dying_now(int cpu)
{
	return READ_ONCE(runqueues[cpu].dying);
}

static void unpark_one(struct task_struct *t, void *arg)
{
	int cpu = *(int *)arg;

	if (t->per_cpu && t->cpu == cpu && READ_ONCE(t->park_wakeup)) {
		WRITE_ONCE(t->park_wakeup, false);
		wake_up_process(t);
	}
}

/* add_cpu(): cpu is up again; its per-CPU threads woken meanwhile run now. */
void sched_cpu_unpark(int cpu)
{
	for_each_task(unpark_one, &cpu);
}
