/*
 * How a task ended reaches the task that waits for it: exit(n), a return
 * from main, abort(), a fault, and exit() while other threads still run
 * (they are stopped).  Only the task that spawned it may wait, once.
 */
#include <stdio.h>
#include <string.h>
#include "quiescent.h"

static int failures;

static void expect(const char *cmdline, int status, int killed)
{
	struct sys_exit_status st = { -1, -1 };
	int id = q_spawn(cmdline, strlen(cmdline)), r;

	if (id < 0) {
		printf("FAILED: spawning '%s' returned %d\n", cmdline, id);
		failures++;
		return;
	}
	r = q_task_wait(id, &st);
	if (r || st.status != status || st.killed != killed) {
		printf("FAILED: '%s': wait %d, status %d, killed %d (expected %d, %d)\n",
		       cmdline, r, st.status, st.killed, status, killed);
		failures++;
	}
	if (q_task_wait(id, &st) != -SYS_ESRCH) {
		printf("FAILED: '%s' could be collected twice\n", cmdline);
		failures++;
	}
}

int main(void)
{
	expect("tests/user/helpers/exit_with 0", 0, 0);
	expect("tests/user/helpers/exit_with 7", 7, 0);
	expect("tests/user/helpers/exit_with -3", -3, 0);
	expect("tests/user/helpers/exit_with return 5", 5, 0);
	expect("tests/user/helpers/exit_with abort", 0, SYS_KILLED_ABORT);
	expect("tests/user/helpers/exit_with fault", 0, SYS_KILLED_FAULT);
	expect("tests/user/helpers/exit_with threads 9", 9, 0);
	printf("exit statuses: %d failure%s\n", failures, failures == 1 ? "" : "s");
	return failures != 0;
}
