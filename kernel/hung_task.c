/*
 * The hung-task check: a task that has waited in wait_for_completion()
 * for more than hung_task_timeout_secs (not an idle, killable or timed
 * wait: kernel/completion.c) is reported, with the backtrace of
 * where it waits, once per timeout while it stays stuck.  Run from the
 * timer tick at most once a second (kernel/irq.c); the kernel goes on.
 */
#include "kernel.h"

static int hung_task_timeout_secs = HUNG_TASK_TIMEOUT_S;
KPARAM_INT("hung_task_timeout_secs", hung_task_timeout_secs, 1, 86400);
static u64 next_check_ns;
unsigned long hung_task_reports;

/*
 * Compared by adding, never by subtracting: a task may begin its wait
 * after `now` was read -- on another CPU, while hung_task_check() walks
 * the tasks -- so since may be later than now, and an unsigned now - since
 * would wrap and report a wait of microseconds as hung.  (Times are ns
 * since boot: since + timeout does not wrap.)
 */
bool hung_task_overdue(const struct task_struct *t, u64 now)
{
	u64 since = READ_ONCE(t->waiting_since_ns), reported = t->hung_reported_ns;
	u64 timeout = (u64)hung_task_timeout_secs * NSEC_PER_SEC;

	return since && t->state == TASK_BLOCKED && now >= since + timeout &&
	       (!reported || now >= reported + timeout);
}

static void check_task(struct task_struct *t, void *arg)
{
	u64 now = *(u64 *)arg, since = READ_ONCE(t->waiting_since_ns);
	uintptr_t pc, fp;

	if (!hung_task_overdue(t, now))
		return;
	t->hung_reported_ns = now;
	/* "since" is a moment (ms after boot), not a second duration. */
	printk("INFO: task %s:%d blocked for more than %d seconds (in wait_for_completion() "
	       "on CPU%d since %llu ms after boot).\n", t->comm, t->pid, hung_task_timeout_secs,
	       t->cpu, (unsigned long long)(since / NSEC_PER_MSEC));
	arch_switched_frame(t->sp, &pc, &fp);
	dump_backtrace(pc, fp);
	hung_task_reports++;
}

void hung_task_check(void)
{
	u64 now = ktime_get_ns(), next = READ_ONCE(next_check_ns);

	if (now < next || !__atomic_compare_exchange_n(&next_check_ns, &next, now + NSEC_PER_SEC,
						       false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	for_each_task(check_task, &now);
}
