/*
 * RCU CPU stall warnings: a thread that spins without a quiescent state
 * is reported (CPU, task, backtrace) while a grace period or a
 * synchronize_rcu() tour waits for it, and the grace period completes
 * once it yields.  Uses the shortest timeout, 3 s.  The report names what
 * waits: the grace period, or the task queued behind the spinner, called
 * a run_on() hop only when run_on() queued it.
 */
#include "ktest.h"

#define SPIN_LIMIT_NS	ktest_budget_ns(20, 2)

static unsigned long stall_reports(void)
{
	struct rcu_stats s;

	rcu_get_stats(&s);
	return s.stall_reports;
}

static unsigned long reports_before;
static int spinning;

/* Spins (no quiescent state) until the stall is reported, then yields. */
static int stall_spinner(void *arg)
{
	u64 end = ktime_get_ns() + SPIN_LIMIT_NS;

	(void)arg;
	WRITE_ONCE(spinning, 1);
	while (stall_reports() == reports_before && ktime_get_ns() < end)
		mdelay(10);
	WRITE_ONCE(spinning, 0);
	return 0;
}

static struct task_struct *start_spinner(void)
{
	struct task_struct *t;

	reports_before = stall_reports();
	spinning = 0;
	t = kthread_run_on_cpu(stall_spinner, NULL, num_online_cpus() - 1, "stall_spinner");
	while (t && !READ_ONCE(spinning))
		msleep(1);
	return t;
}

static struct completion stall_cb_done;
static char report[4096];	/* the console while the stall lasts */

static void stall_cb(struct rcu_head *head)
{
	(void)head;
	complete(&stall_cb_done);
}

KTEST(rcu_stall_warning_for_a_grace_period)
{
	static struct rcu_head rh;
	struct task_struct *t;
	int old;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs");
	old = rcu_set_stall_timeout(3);
	init_completion(&stall_cb_done);
	t = start_spinner();
	KASSERT(t != NULL);
	console_capture(report, sizeof(report));
	call_rcu(&rh, stall_cb);
	wait_for_completion(&stall_cb_done);	/* ends once the spinner yields */
	console_capture(NULL, 0);
	KEXPECT(stall_reports() > reports_before);
	KEXPECT(strstr(report, "; a grace period (call_rcu) waits\n") != NULL);
	KEXPECT_EQ(READ_ONCE(spinning), 0);
	kthread_stop(t);
	rcu_set_stall_timeout(old);
}

KTEST(rcu_stall_warning_for_a_synchronize_rcu_tour)
{
	static const char hop[] = " (a run_on() hop) waits\n";
	struct task_struct *t;
	char me[64];
	const char *named;
	int old;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs");
	if (CONFIG_PREEMPT)
		KTEST_SKIP("PREEMPT=1: the tick preempts the spinner, so the tour's hop is not held up");
	old = rcu_set_stall_timeout(3);
	t = start_spinner();
	KASSERT(t != NULL);
	snprintf(me, sizeof(me), "; task %s pid %d in its run queue", current->comm, current->pid);
	console_capture(report, sizeof(report));
	synchronize_rcu();			/* returns once the spinner yields */
	console_capture(NULL, 0);
	KEXPECT(stall_reports() > reports_before);
	/*
	 * The report names the oldest task queued behind the spinner: our
	 * tour's hop, unless a task was woken there in the instant before it
	 * arrived (then that one, and a hop only if it is one).
	 */
	named = strstr(report, me);
	if (named)
		KEXPECT(strncmp(named + strlen(me), hop, strlen(hop)) == 0);
	else
		KEXPECT(strstr(report, " in its run queue") != NULL);
	KEXPECT(!current->run_on_hop);		/* arrived: no longer reported as a hop */
	KEXPECT_EQ(READ_ONCE(spinning), 0);
	kthread_stop(t);
	rcu_set_stall_timeout(old);
}

/*
 * The expedited grace period's IPI finds the spinner busy and leaves a
 * note for its next switch, which does not come: the stall check names
 * the CPU, the spinner and the caller of synchronize_rcu_expedited(), as
 * Linux's expedited stall warning does (before, only the 120 s hung-task
 * check spoke).
 */
KTEST(rcu_stall_warning_for_an_expedited_grace_period)
{
	struct task_struct *t;
	char waiter[64];
	int old;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs");
	old = rcu_set_stall_timeout(3);
	t = start_spinner();
	KASSERT(t != NULL);
	snprintf(waiter, sizeof(waiter), "synchronize_rcu_expedited() in task %s pid %d waits",
		 current->comm, current->pid);
	console_capture(report, sizeof(report));
	synchronize_rcu_expedited();		/* returns once the spinner yields */
	console_capture(NULL, 0);
	KEXPECT(stall_reports() > reports_before);
	KEXPECT(strstr(report, "detected expedited stalls on CPUs/tasks") != NULL);
	KEXPECT(strstr(report, "(task stall_spinner pid") != NULL);
	KEXPECT(strstr(report, waiter) != NULL);
	KEXPECT_EQ(READ_ONCE(spinning), 0);
	kthread_stop(t);
	rcu_set_stall_timeout(old);
}

static struct completion never_completed;

static int hung_waiter(void *arg)
{
	(void)arg;
	wait_for_completion(&never_completed);
	return 0;
}

/* A task waiting forever is reported as hung, with where it waits; the kernel goes on. */
KTEST_EXPECT_WARN(hung_task_is_reported, "INFO: task hung_waiter", "hung_task_timeout_secs=2")
{
	struct task_struct *t;
	unsigned long before = hung_task_reports;
	u64 end = ktime_get_ns() + 30 * NSEC_PER_SEC;

	init_completion(&never_completed);
	t = kthread_run_on_cpu(hung_waiter, NULL, num_online_cpus() - 1, "hung_waiter");
	KASSERT(t != NULL);
	while (READ_ONCE(hung_task_reports) == before && ktime_get_ns() < end)
		msleep(100);
	complete(&never_completed);	/* set it free, then reap it */
	kthread_stop(t);
}

static struct completion hung_never;

static int fresh_waiter(void *arg)
{
	(void)arg;
	wait_for_completion(&hung_never);
	return 0;
}

/*
 * A wait that began after the check read its clock -- on another CPU,
 * while the check walked the tasks -- is newer than the check's `now`,
 * and is no hung task.  (The check once subtracted unsigned: now - since
 * wrapped, and a thread of a hostile program that had waited a few
 * microseconds was reported "blocked for more than 120 seconds".)  The
 * predicate itself, at clocks on both sides of the wait's start: no
 * timing, nothing to wait for but the thread to block.
 */
KTEST(hung_task_check_ignores_a_wait_newer_than_its_clock)
{
	u64 end = ktime_get_ns() + ktest_budget_ns(10, 1), since;
	struct task_struct *t;

	init_completion(&hung_never);
	t = kthread_run_on_cpu(fresh_waiter, NULL, num_online_cpus() - 1, "fresh_waiter");
	KASSERT(t != NULL);
	while (!(READ_ONCE(t->state) == TASK_BLOCKED && READ_ONCE(t->waiting_since_ns)) &&
	       ktime_get_ns() < end)
		msleep(1);
	since = READ_ONCE(t->waiting_since_ns);
	KEXPECT(since != 0);
	KEXPECT(!hung_task_overdue(t, since - 1));	/* the clock read just before */
	KEXPECT(!hung_task_overdue(t, since));
	/* (and it can say yes: past the longest timeout hung_task_timeout_secs= takes) */
	KEXPECT(hung_task_overdue(t, since + 86401 * NSEC_PER_SEC));
	complete(&hung_never);
	kthread_stop(t);
}

static int killable_waiter(void *arg)
{
	(void)arg;
	wait_for_completion_killable(&hung_never);
	return 0;
}

/*
 * A killable wait is a user thread's wait for what its program chose --
 * a child task, another thread, to end -- which may rightly last for
 * ever (a parent and its server), and a kill ends it: never reported, as
 * Linux skips TASK_KILLABLE.  (Before, a program whose SYS_task_wait for
 * its child passed two minutes was named "blocked for more than 120
 * seconds", with a kernel backtrace, as if the kernel had lost a wake-up.)
 */
KTEST(hung_task_check_ignores_a_killable_wait)
{
	u64 end = ktime_get_ns() + ktest_budget_ns(10, 1);
	struct task_struct *t;

	init_completion(&hung_never);
	t = kthread_run_on_cpu(killable_waiter, NULL, num_online_cpus() - 1, "killable_waiter");
	KASSERT(t != NULL);
	while (READ_ONCE(t->state) != TASK_BLOCKED && ktime_get_ns() < end)
		msleep(1);
	KEXPECT_EQ(READ_ONCE(t->state), TASK_BLOCKED);
	KEXPECT(!hung_task_overdue(t, ktime_get_ns() + 86401 * NSEC_PER_SEC));
	complete(&hung_never);
	kthread_stop(t);
}
