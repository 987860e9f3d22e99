/*
 * A program started by name that is not on the boot: the runtime says
 * so, naming the program and where the boot's programs are listed
 * (user/lib/spawn.c), instead of a bare -ENOENT.  The root task, asked
 * to run a program no boot has, tries to start it by name.
 */
#include "ktest.h"
#include "user/task.h"
#include "user/user.h"

#define ROOT	"user/root"
#define MISSING	"user/no_such_program"

static char out[4096];	/* (the message comes first: the root task runs the program first) */

KTEST(user_spawn_of_a_program_not_on_the_boot_names_it_and_the_boot_list)
{
	struct sys_exit_status st;
	struct user_task *t;
	int err;

	console_capture(out, sizeof(out));
	t = user_spawn_root(ROOT " " MISSING, &err);
	if (t) {
		KEXPECT_EQ(user_task_wait_timeout(t, 60 * NSEC_PER_SEC, &st), 0);
		user_task_put(t);
	}
	console_capture(NULL, 0);
	if (!t)
		KTEST_SKIP("no boot module " ROOT " (no user programs on this boot)");
	KEXPECT(strstr(out, "spawn: no program \"" MISSING "\" on this boot"));
	KEXPECT(strstr(out, "USER_SERVICES"));
	KEXPECT(strstr(out, "root: " MISSING " did not start (error -2)"));
}
