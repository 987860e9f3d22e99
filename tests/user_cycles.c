/*
 * Task create-and-exit cycles leave nothing behind: the runner's leak
 * check counts kmalloc objects and pages (page tables, user frames,
 * kernel stacks) before and after.  usercycles.count=N sets how many
 * (make test: 50; CI runs 1000 as a step of its own).
 */
#include "ktest.h"
#include "user/thread.h"

#define HELPER	"tests/user/helpers/exit_with"

static int cycles = 50;
KPARAM_INT("usercycles.count", cycles, 1, 1000000);

KTEST(user_task_create_and_exit_cycles_leak_nothing)
{
	u64 t0 = ktime_get_ns();
	int failed = 0;

	if (!boot_module_find(HELPER))
		KTEST_SKIP("no boot module " HELPER " (no user programs on this boot)");
	for (int i = 0; i < cycles; i++) {
		struct sys_exit_status st;
		struct user_task *t;
		char cmd[64];
		int err;

		snprintf(cmd, sizeof(cmd), HELPER " %d", i % 100);
		t = user_spawn(cmd, NULL, &err);
		if (!t) {
			ktest_info("cycle %d: spawn failed (%d)", i, err);
			KEXPECT(t);
			return;
		}
		if (user_task_wait_timeout(t, ktest_budget_ns(10, 1), &st) ||
		    st.killed || st.status != i % 100)
			failed++;
		user_task_put(t);
	}
	ktest_info("%d tasks created and ended in %llu ms", cycles,
		   (unsigned long long)((ktime_get_ns() - t0) / NSEC_PER_MSEC));
	KEXPECT_EQ(failed, 0);
}
