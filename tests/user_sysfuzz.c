/*
 * The system-call fuzzer (user/sysfuzz.c) runs in a task of its own: the
 * kernel survives its calls, it sees every promise of the ABI kept (exit
 * status 0), and the runner's leak check finds nothing left behind.
 *
 * sysfuzz.calls=N (make test: 3000; make fuzz: millions), sysfuzz.seed=S
 * (0: the fuzzer draws one and prints it; give it back to replay a run),
 * sysfuzz.threads=N (fuzzing threads beside the first), sysfuzz.tasks=N (more
 * fuzzing tasks, with copies of its first capabilities: 1 by default).
 */
#include "ktest.h"
#include "user/thread.h"

#define FUZZER		"user/sysfuzz"
#define CALLS_PER_S	2000	/* a pessimistic rate under TCG, for the timeout */

static int calls = 3000;
KPARAM_INT("sysfuzz.calls", calls, 1, 2000000000);
static char seed[32] = "0";
KPARAM_STRING("sysfuzz.seed", seed);
static int threads = 2;
KPARAM_INT("sysfuzz.threads", threads, 0, 8);
static int tasks = 1;	/* more fuzzing tasks, sharing capabilities (docs/microkernel.md) */
KPARAM_INT("sysfuzz.tasks", tasks, 0, 3);

KTEST(user_syscall_fuzzer_finds_every_promise_kept)
{
	struct sys_exit_status st;
	struct user_task *t;
	char cmd[128];
	int err;

	if (!boot_module_find(FUZZER))
		KTEST_SKIP("no boot module " FUZZER " (no user programs on this boot)");
	snprintf(cmd, sizeof(cmd), FUZZER " seed=%s calls=%d threads=%d tasks=%d", seed, calls,
		 threads, tasks);
	t = user_spawn_root(cmd, &err);	/* (it keeps its own program, for its children) */
	KASSERT(t);
	if (user_task_wait_timeout(t, ktest_budget_ns(60 + calls / CALLS_PER_S, 2), &st)) {
		ktest_info("the fuzzer did not end in time: killed");
		user_task_kill(t, SYS_KILLED_BY_KERNEL);
		user_task_wait_timeout(t, 0, &st);
		KEXPECT(!"the fuzzer ended in time");
	}
	KEXPECT_EQ(st.killed, 0);
	KEXPECT_EQ(st.status, 0);
	user_task_put(t);
}
