/*
 * wait_for_completion_timeout() (kernel/completion.c), the kernel's wait
 * for a program's end (user_task_wait_timeout()): it ends when the
 * completion is done, or when its jiffies have run out -- and either way
 * leaves neither the completion's waiter list nor the CPU's list of
 * sleepers holding the task, where a later tick or complete() would find
 * a stale entry.
 */
#include "ktest.h"

KTEST(completion_timeout_runs_out_when_nothing_completes)
{
	DECLARE_COMPLETION(c);
	u64 t0 = ktime_get_ns();

	KEXPECT_EQ(wait_for_completion_timeout(&c, 3), 0);
	KEXPECT(ktime_get_ns() - t0 >= 3 * NSEC_PER_SEC / HZ);
	KEXPECT(list_empty(&c.waiters));
	KEXPECT(list_empty(&current->sleep_node));
	KEXPECT(!completion_done(&c));
	complete(&c);			/* nobody waits: it is kept for the next waiter */
	KEXPECT_EQ(wait_for_completion_timeout(&c, 3), 3);	/* done: the whole timeout left */
}

struct completer {
	struct completion c;
	struct task_struct *waiter;
};

/* Completes once the waiter sleeps (on its completion and on its CPU's sleepers). */
static int complete_when_blocked(void *arg)
{
	struct completer *w = arg;

	while (READ_ONCE(w->waiter->state) != TASK_BLOCKED)
		msleep(1);
	complete(&w->c);
	return 0;
}

KTEST(completion_timeout_ends_at_complete_with_time_left)
{
	unsigned long timeout = ktest_budget_ns(60, 2) / (NSEC_PER_SEC / HZ), left;
	struct completer w = { .waiter = current };
	struct task_struct *t;

	init_completion(&w.c);
	t = kthread_run_on_cpu(complete_when_blocked, &w, num_online_cpus() - 1, "completer");
	KASSERT(t != NULL);
	left = wait_for_completion_timeout(&w.c, timeout);
	KEXPECT(left > 0 && left <= timeout);
	KEXPECT(list_empty(&current->sleep_node));	/* complete() took it off */
	KEXPECT(list_empty(&w.c.waiters));
	KEXPECT(!completion_done(&w.c));		/* consumed by us */
	kthread_stop(t);
	msleep(2);		/* a plain sleep after it still ends (no stale entry) */
}
