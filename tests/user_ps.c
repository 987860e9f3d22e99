/* The monitor's ps lists a user task with its threads, apart from the kernel threads. */
#include "ktest.h"
#include "monitor.h"
#include "user/thread.h"
#include "object/cap.h"

#define SPINNER	"tests/user/helpers/spin"
#define SLEEPER	"tests/user/helpers/leaver sleep"	/* sleeps an hour */

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

/* ps names the system call a blocked thread waits in, and its first argument. */
KTEST(user_ps_says_where_a_blocked_thread_waits)
{
	struct sys_exit_status st;
	struct user_task *t;
	bool seen = false;
	char line[96];
	int err;

	t = user_spawn(SLEEPER, NULL, &err);
	if (!t)
		KTEST_SKIP("no boot module " SLEEPER " (no user programs on this boot)");
	snprintf(line, sizeof(line), "thread %-5d CPU", t->id);
	for (int i = 0; i < 2000 && !seen; i++) {	/* (until it reached its sleep) */
		console_capture(out, sizeof(out));
		KEXPECT_EQ(monitor_exec("ps"), MON_OK);
		console_capture(NULL, 0);
		seen = strstr(out, "blocked in sleep(3600000000000)") &&
		       strstr(strstr(out, line) ?: "", " blocked in sleep(");
		if (!seen)
			msleep(10);
	}
	KEXPECT(seen);
	user_task_kill(t, SYS_KILLED_BY_KERNEL);
	KEXPECT_EQ(user_task_wait_timeout(t, ktest_budget_ns(20, 2), &st), 0);
	user_task_put(t);
}

/* The monitor's caps lists a task's capabilities and where each came from. */
KTEST(user_caps_lists_a_tasks_capabilities_and_their_derivation)
{
	struct sys_exit_status st;
	struct user_task *t;
	char line[96];
	int err;

	t = user_spawn(SPINNER, NULL, &err);
	if (!t)
		KTEST_SKIP("no boot module " SPINNER " (no user programs on this boot)");
	KEXPECT_EQ(cap_create(t->cspace, KOBJ_ENDPOINT, 3, 0), 3);
	KEXPECT_EQ(cap_mint(t->cspace, 3, 7, SYS_CAP_WRITE, 77), 7);
	console_capture(out, sizeof(out));
	KEXPECT_EQ(monitor_exec("caps 999999"), MON_ERROR);
	snprintf(line, sizeof(line), "caps %d", t->id);
	KEXPECT_EQ(monitor_exec(line), MON_OK);
	console_capture(NULL, 0);
	KEXPECT(strstr(out, "caps: no user task with that id"));
	KEXPECT(strstr(out, "     3  endpoint      rw-g    0 "));
	KEXPECT(strstr(out, "     7  endpoint      -w--    77 "));
	KEXPECT(strstr(out, " slot 3\n"));			/* 7 was minted from 3 */
	KEXPECT(strstr(out, "2 capabilities in a table of 16 slots"));
	user_task_kill(t, SYS_KILLED_BY_KERNEL);
	KEXPECT_EQ(user_task_wait_timeout(t, ktest_budget_ns(20, 2), &st), 0);
	user_task_put(t);
}

/*
 * The boot capabilities a task the kernel starts as the root task holds
 * (user_spawn_root()), as the monitor's caps lists them: its quota, and
 * every boot program by name, each derived from the kernel's boot space.
 */
KTEST(user_caps_lists_the_root_tasks_boot_capabilities)
{
	struct sys_exit_status st;
	struct user_task *t;
	char line[128];
	int err;

	t = user_spawn_root(SPINNER, &err);
	if (!t)
		KTEST_SKIP("no boot module " SPINNER " (no user programs on this boot)");
	console_capture(out, sizeof(out));
	snprintf(line, sizeof(line), "caps %d", t->id);
	KEXPECT_EQ(monitor_exec(line), MON_OK);
	console_capture(NULL, 0);
	snprintf(line, sizeof(line), "  %4d  quota         rw--    0 ", SYS_BOOT_SLOT_QUOTA);
	KEXPECT(strstr(out, line));
	for (int i = 0; i < boot_module_count(); i++) {
		snprintf(line, sizeof(line), "  %4d  program       r-x-    0 ", SYS_BOOT_SLOT_PROGRAMS + i);
		KEXPECT(strstr(out, line));
		snprintf(line, sizeof(line), "a kernel space, slot %d  [%s]\n", i, boot_module(i)->name);
		KEXPECT(strstr(out, line));
	}
	snprintf(line, sizeof(line), "%d capabilities in a table of 1024 slots",
		 boot_module_count() + 1);
	KEXPECT(strstr(out, line));
	user_task_kill(t, SYS_KILLED_BY_KERNEL);
	KEXPECT_EQ(user_task_wait_timeout(t, ktest_budget_ns(20, 2), &st), 0);
	user_task_put(t);
}
