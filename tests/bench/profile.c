/*
 * make profile (tools/profile.py, docs/benchmarks.md): each operation's
 * program once, its rounds inside the plugin's window
 * (tests/user/helpers/timed.h), one window per program.  Before each, the
 * line that names the window, which the profile tool pairs with the
 * plugin's windows in order:
 *
 *	# PROFILE op=ipc_tasks n=1000 program=tests/user/helpers/pingpong
 *
 * Only with bench.profile=N (N rounds each; make bench skips it).  Each
 * program starts from a quiet kernel: the work left by the one before
 * (its objects' RCU callbacks, the reaper) is done first, not inside the
 * next window.
 */
#include "bench.h"
#include "user/module.h"

static int profile_rounds;
KPARAM_INT("bench.profile", profile_rounds, 0, 1000000);

/* The operations: their program, its arguments before and after the rounds. */
static const struct {
	const char *op, *program, *before, *after;
} profile_ops[] = {
	{ "syscall",	 "tests/user/helpers/nullcall", "", "" },
	{ "ipc_threads", "tests/user/helpers/pingpong", "0 0 ", "" },
	{ "ipc_tasks",	 "tests/user/helpers/pingpong", "0 0 ", " task" },
	{ "cap_lookup",	 "tests/user/helpers/capcall",	"", "" },
};

KBENCH(bench_profile)
{
	char cmd[128];

	if (!profile_rounds)
		KTEST_SKIP("make profile's (bench.profile=N)");
	for (int i = 0; i < (int)ARRAY_SIZE(profile_ops); i++) {
		if (!boot_module_find(profile_ops[i].program)) {
			ktest_info("no boot module %s: %s not profiled", profile_ops[i].program,
				   profile_ops[i].op);
			continue;
		}
		rcu_barrier();
		msleep(20);	/* (the reaper and the workers finish what they were given) */
		snprintf(cmd, sizeof(cmd), "%s %s%d%s", profile_ops[i].program,
			 profile_ops[i].before, profile_rounds, profile_ops[i].after);
		printk("# PROFILE op=%s n=%d program=%s\n", profile_ops[i].op, profile_rounds,
		       profile_ops[i].program);
		KEXPECT(bench_run_program(cmd));
	}
}
