/*
 * A thread killed while it holds one of newlib's locks never lets it go.
 * The runtime's lock (user/lib/lock.c) looks now and then whether the
 * holder still exists, and ends the task with a message naming it: a
 * clean failure instead of every other thread yielding for ever.
 */
#include "ktest.h"
#include "user/task.h"
#include "user/user.h"

#define HELPER	"tests/user/helpers/lockholder"

static char out[4096];

KTEST(user_lock_whose_holder_was_killed_ends_the_task_saying_so)
{
	struct sys_exit_status st = { 0 };
	struct user_task *t;
	int err;

	console_capture(out, sizeof(out));
	t = user_spawn(HELPER, NULL, &err);
	if (t) {
		KEXPECT_EQ(user_task_wait_timeout(t, 60 * NSEC_PER_SEC, &st), 0);
		user_task_put(t);
	}
	console_capture(NULL, 0);
	if (!t)
		KTEST_SKIP("no boot module " HELPER " (no user programs on this boot)");
	KEXPECT_EQ(st.killed, SYS_KILLED_ABORT);
	KEXPECT(strstr(out, "ended holding a lock of newlib's"));
}
