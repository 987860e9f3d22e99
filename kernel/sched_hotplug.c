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

/* Sends each task of `leaving` (off every run queue) to a CPU that stays. */
static void send_on(struct list_head *leaving)
{
	struct task_struct *t, *n;

	list_for_each_entry_safe(t, n, leaving, run_node) {
		list_del(&t->run_node);
		enqueue_on(t, fallback_cpu(smp_processor_id()));
	}
}

/*
 * remove_cpu() marked this CPU dying; its idle task takes it down.  From
 * then on a task that yields here moves to another CPU (__schedule()), and
 * only per-CPU threads are picked to run (pick_next()): we let them run
 * until they block, and send every other queued task on to a CPU that
 * stays.  We return once the queue is empty, with interrupts off: they
 * stay off until the CPU stops, so from this last context switch on the
 * CPU runs only cpu_die()'s code, whose readers RCU still waits for.
 *
 * The run queue stays online meanwhile: a task queued or woken here now
 * (a synchronize_rcu() tour's hop among them) waits in the queue until
 * sched_cpu_offline(), after rcu_report_dead().
 */
void sched_cpu_dying(struct rq *rq)
{
	struct task_struct *t, *n;
	bool done;

	for (;;) {
		LIST_HEAD(leaving);

		local_irq_disable();
		spin_lock(&rq->lock);
		list_for_each_entry_safe(t, n, &rq->queue, run_node) {
			if (!t->per_cpu) {
				list_move_tail(&t->run_node, &leaving);
				rq->nr_queued--;
			}
		}
		done = !rq->nr_queued;
		if (done && rcu_injected(RCU_INJECT_OFFLINE_WINDOW))
			rq->offline = true;	/* fault injection: before rcu_report_dead() */
		spin_unlock(&rq->lock);
		send_on(&leaving);
		if (done)
			return;		/* interrupts off, for good */
		local_irq_enable();
		schedule();	/* a per-CPU thread runs until it blocks */
	}
}

/*
 * The dying CPU's very last step before it stops (cpu_die()), interrupts
 * off, after rcu_report_dead(): its run queue goes offline.  From then on
 * a task queued or woken here goes to another CPU (enqueue_on(),
 * wake_up_process()) and a per-CPU thread parks.  What was queued since
 * sched_cpu_dying() goes on now: a tour's hop sent on here returns from
 * run_on() with -ENODEV only after every reader this CPU ran has ended
 * ([cpu_offline_mb] before our lock hand-over to the CPU it goes to).
 */
void sched_cpu_offline(int cpu)
{
	struct rq *rq = &runqueues[cpu];
	struct task_struct *t, *n;
	LIST_HEAD(leaving);

	if (rcu_injected(RCU_INJECT_OFFLINE_WINDOW))
		return;		/* fault injection: sched_cpu_dying() did it, too early */
	spin_lock(&rq->lock);
	rq->offline = true;
	list_for_each_entry_safe(t, n, &rq->queue, run_node) {
		list_del(&t->run_node);
		rq->nr_queued--;
		if (t->per_cpu) {
			/* Parked with its CPU: sched_cpu_unpark() wakes it. */
			t->state = TASK_BLOCKED;
			t->park_wakeup = true;
		} else {
			list_add_tail(&t->run_node, &leaving);
		}
	}
	spin_unlock(&rq->lock);
	send_on(&leaving);
}

/* remove_cpu(): the idle loop of cpu takes it down once it sees this. */
void sched_cpu_set_dying(int cpu)
{
	struct rq *rq = &runqueues[cpu];
	struct task_struct *t, *n;
	unsigned long flags;
	LIST_HEAD(leaving);

	spin_lock_irqsave(&rq->lock, flags);
	if (rcu_injected(RCU_INJECT_DYING_SENDS_QUEUE_ON)) {
		/* Fault injection: queued tasks leave before the CPU's current one switched. */
		list_for_each_entry_safe(t, n, &rq->queue, run_node) {
			if (t->per_cpu)
				continue;
			list_move_tail(&t->run_node, &leaving);
			rq->nr_queued--;
			t->cpu = fallback_cpu(cpu);	/* before dying shows: never seen here again */
		}
	}
	rq->dying = true;
	spin_unlock_irqrestore(&rq->lock, flags);
	list_for_each_entry_safe(t, n, &leaving, run_node) {
		list_del(&t->run_node);
		enqueue_on(t, t->cpu);
	}
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
