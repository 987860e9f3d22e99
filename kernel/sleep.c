/*
 * msleep(): a task sleeps on its CPU's list of sleepers (rq->sleepers)
 * until the timer tick finds its time has come and queues it again.
 * schedule_until() is the same sleep for a task that a waker may also
 * end (wake_up_process() takes it off the list).
 */
#include "rq.h"

void msleep(unsigned int ms)
{
	u64 tick = NSEC_PER_SEC / HZ;
	u64 ticks = ((u64)ms * NSEC_PER_MSEC + tick - 1) / tick;
	struct task_struct *t = current;
	unsigned long flags;
	struct rq *rq;

	might_sleep_check("msleep");
	local_irq_save(flags);
	rq = this_rq();
	spin_lock(&rq->lock);
	t->wake_at_ns = ktime_get_ns() + ticks * tick;
	list_add_tail(&t->sleep_node, &rq->sleepers);
	t->state = TASK_BLOCKED;
	spin_unlock(&rq->lock);
	local_irq_restore(flags);
	__schedule();
}

void schedule_until(u64 deadline_ns)
{
	struct task_struct *t = current;
	unsigned long flags;
	struct rq *rq;

	local_irq_save(flags);
	rq = this_rq();
	spin_lock(&rq->lock);
	/* (a waker that came first has set it running: nothing to wait for) */
	if (t->state == TASK_BLOCKED) {
		t->wake_at_ns = deadline_ns;
		list_add_tail(&t->sleep_node, &rq->sleepers);
	}
	spin_unlock(&rq->lock);
	local_irq_restore(flags);
	__schedule();
	/*
	 * Every wake-up takes it off the list (the tick's, wake_up_process()'s);
	 * anything that set it running otherwise must not leave it there for
	 * the tick to queue again.  Blocked, it stayed on rq's CPU.
	 */
	if (!list_empty(&t->sleep_node)) {
		spin_lock_irqsave(&rq->lock, flags);
		list_del_init(&t->sleep_node);
		spin_unlock_irqrestore(&rq->lock, flags);
	}
}

/*
 * From the boot CPU's tick (it never goes down): the sleepers of CPUs that
 * are down have no tick of their own.  Each due sleeper is claimed under
 * its old queue's lock (running: a waker leaves it alone) and queued here;
 * a per-CPU thread stays parked until its CPU comes back.
 */
static void wake_offline_sleepers(u64 now)
{
	struct task_struct *t, *n;

	for (int cpu = 1; cpu < nr_cpu_ids; cpu++) {
		struct rq *rq = &runqueues[cpu];
		LIST_HEAD(due);

		if (!READ_ONCE(rq->offline))
			continue;
		spin_lock(&rq->lock);
		list_for_each_entry_safe(t, n, &rq->sleepers, sleep_node) {
			if (!rq->offline || t->wake_at_ns > now || t->state != TASK_BLOCKED)
				continue;
			list_del_init(&t->sleep_node);
			if (t->per_cpu) {
				t->park_wakeup = true;
				continue;
			}
			t->state = TASK_RUNNING;
			list_add_tail(&t->run_node, &due);
		}
		spin_unlock(&rq->lock);
		list_for_each_entry_safe(t, n, &due, run_node) {
			list_del(&t->run_node);
			enqueue_on(t, smp_processor_id());
		}
	}
}

/* From the timer tick: wakes this CPU's sleepers whose time has come. */
void sched_tick(void)
{
	struct rq *rq = this_rq();
	struct task_struct *t, *n;
	u64 now = ktime_get_ns();

	spin_lock(&rq->lock);
	list_for_each_entry_safe(t, n, &rq->sleepers, sleep_node) {
		if (t->wake_at_ns <= now && t->state == TASK_BLOCKED) {
			list_del_init(&t->sleep_node);
			if (rq->curr == t)
				t->state = TASK_RUNNING;
			else
				enqueue_locked(rq, t, rq->idle->cpu);
		}
	}
	if (rq->nr_queued)
		rq->need_resched = true;	/* a slice ends: user mode is preempted */
	spin_unlock(&rq->lock);
	if (smp_processor_id() == 0)
		wake_offline_sleepers(now);
}
