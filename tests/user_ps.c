/* The monitor's ps lists a user task with its threads, apart from the kernel threads. */
#include "ktest.h"
#include "monitor.h"
#include "user/thread.h"

#define SPINNER	"tests/user/helpers/spin"

static char out[16384];

KTEST(user_ps_lists_user_tasks_and_their_threads)
{
	struct sys_exit_status st;
	struct user_task *t;
	char line[64];
	int err;

	t = user_spawn(SPINNER, NULL, &err);
	if (!t)
		KTEST_SKIP("no boot module " SPINNER " (no user programs on this boot)");
	while (READ_ONCE(t->nr_live) < num_online_cpus())
		msleep(1);
	console_capture(out, sizeof(out));
	KEXPECT_EQ(monitor_exec("ps"), MON_OK);
	console_capture(NULL, 0);
	KEXPECT(strstr(out, "kernel threads:"));
	KEXPECT(strstr(out, "user tasks:"));
	snprintf(line, sizeof(line), "%4d  spin ", t->id);
	KEXPECT(strstr(out, line));
	KEXPECT(strstr(out, SPINNER));
	snprintf(line, sizeof(line), "thread %-5d", t->id);
	KEXPECT(strstr(out, line));
	/* Its threads are not among the kernel threads: the first mention is the task's. */
	snprintf(line, sizeof(line), "%4d  spin", t->id);
	KEXPECT(strstr(out, line) > strstr(out, "user tasks:"));
	user_task_kill(t, SYS_KILLED_BY_KERNEL);
	KEXPECT_EQ(user_task_wait_timeout(t, ktest_budget_ns(20, 2), &st), 0);
	user_task_put(t);
}
