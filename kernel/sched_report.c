/*
 * What the scheduler tells stall and hung-task reports, the monitor and
 * the tests about each CPU's run queue.
 */
#include "rq.h"

int sched_nr_running(int cpu) { return READ_ONCE(runqueues[cpu].nr_queued); }
struct task_struct *sched_curr(int cpu) { return READ_ONCE(runqueues[cpu].curr); }
u64 sched_nr_switches(int cpu) { return READ_ONCE(runqueues[cpu].nr_switches); }
u64 sched_nr_direct_switches(int cpu) { return READ_ONCE(runqueues[cpu].nr_direct_switches); }
u64 sched_last_switch_ns(int cpu) { return READ_ONCE(runqueues[cpu].last_switch_ns); }
/*
 * For stall reports: the task waiting longest in cpu's queue, copied under
 * the queue's lock (the task may be gone by the time the report prints).
 * False when the queue is empty, or its lock is busy: the next check looks again.
 */
bool sched_oldest_waiter(int cpu, struct sched_waiter *w)
{
	struct rq *rq = &runqueues[cpu];
	struct task_struct *t;

	if (!spin_trylock(&rq->lock))
		return false;
	if (list_empty(&rq->queue)) {
		spin_unlock(&rq->lock);
		return false;
	}
	t = list_first_entry(&rq->queue, struct task_struct, run_node);
	memcpy(w->comm, t->comm, sizeof(w->comm));
	w->pid = t->pid;
	w->since_ns = max(t->enqueued_ns, rq->last_switch_ns);
	w->run_on_hop = t->run_on_hop;
	spin_unlock(&rq->lock);
	return true;
}

/*
 * For the trace stream, from an interrupt: the task stays rq->curr, and
 * so is not freed, while we hold the lock (kthread_free() waits for its
 * switch away, which takes it).
 */
bool sched_curr_copy(int cpu, int *pid, char comm[TASK_COMM_LEN])
{
	struct rq *rq = &runqueues[cpu];

	if (!spin_trylock(&rq->lock))
		return false;
	memcpy(comm, rq->curr->comm, TASK_COMM_LEN);
	comm[TASK_COMM_LEN - 1] = '\0';
	*pid = rq->curr->pid;
	spin_unlock(&rq->lock);
	return true;
}

/* A counter of the run queues, summed over the online CPUs. */
#define sum_online_rqs(field) ({					\
	unsigned long __n = 0;						\
	int __cpu;							\
									\
	for_each_online_cpu(__cpu)					\
		__n += READ_ONCE(runqueues[__cpu].field);		\
	__n;								\
})

struct mm_struct *sched_curr_mm(int cpu, int *pid)
{
	struct rq *rq = &runqueues[cpu];
	struct mm_struct *mm;
	unsigned long flags;

	spin_lock_irqsave(&rq->lock, flags);
	mm = rq->curr->mm;
	*pid = rq->curr->pid;
	spin_unlock_irqrestore(&rq->lock, flags);
	return mm;
}

/* Checking build: halts with a task queued that no IPI announced (note_halt()). */
unsigned long sched_idle_halts_with_work(void)
{
	return sum_online_rqs(halts_with_work);
}

/* Checking build: returns to user mode with such a task queued (sched_note_user_return()). */
unsigned long sched_user_returns_with_work(void)
{
	return sum_online_rqs(user_returns_with_work);
}

void sched_show_cpu(int cpu)
{
	struct rq *rq = &runqueues[cpu];
	struct task_struct *t;
	unsigned long flags;

	char line[256];
	int n;

	spin_lock_irqsave(&rq->lock, flags);
	n = snprintf(line, sizeof(line), "CPU%d: current %s (pid %d), %llu switches, queue:",
		     cpu, rq->curr->comm, rq->curr->pid, (unsigned long long)rq->nr_switches);
	list_for_each_entry(t, &rq->queue, run_node)
		if (n < (int)sizeof(line))
			n += snprintf(line + n, sizeof(line) - n, " %s", t->comm);
	spin_unlock_irqrestore(&rq->lock, flags);
	printk("%s%s\n", line, rq->nr_queued ? "" : " (empty)");
}
