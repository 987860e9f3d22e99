/*
 * User-space RCU under torture (user/urcutorture/, docs/urcu.md): the
 * program runs in a task of its own, and passes when it ends with status
 * 0 ("--- End of test: SUCCESS").
 *
 * urcutorture_memb, urcutorture_qsbr: the torture, one reader per CPU,
 * for urcutorture.duration=S seconds.  Not in every make test (it is
 * skipped without that parameter): CI runs it in steps of its own, at
 * each CPU count, and with each injection as an expected failure.
 *
 * urcu_window_*: one reader held across one grace period, deterministic
 * and short (user/urcutorture/window.c), in every make test.  The memb
 * flavor's also counts the membarrier() IPIs the reader's CPU took: the
 * writer's grace period must have interrupted it at least once.
 *
 * urcu.inject=NAME passes an injection on to the program: no_wait (the
 * library's grace periods wait for nothing) or qs_in_reader (QSBR
 * readers announce a quiescent state while they hold their element);
 * membarrier.inject= breaks the kernel's side (kernel/user/membarrier.h).
 * Each is caught by the torture and by the window test.
 */
#include "ktest.h"
#include "user/thread.h"
#include "user/membarrier.h"

#define PROGRAM		"user/urcutorture"

static int duration_s;		/* 0: the torture tests skip */
KPARAM_INT("urcutorture.duration", duration_s, 0, 3600);
static char inject[32];
KPARAM_STRING("urcu.inject", inject);

/* Runs the program with args, for up to budget; its exit status, or -1 if it did not end well. */
static int run_program(const char *args, u64 budget)
{
	struct sys_exit_status st;
	struct user_task *t;
	char cmd[128];
	int err;

	snprintf(cmd, sizeof(cmd), PROGRAM " %s%s%s", args, inject[0] ? " inject=" : "", inject);
	t = user_spawn(cmd, NULL, &err);
	if (!t) {
		ktest_info("%s: not started (error %d)", cmd, err);
		return -1;
	}
	if (user_task_wait_timeout(t, budget, &st)) {
		ktest_info("%s: did not end in time: its threads, then killed", cmd);
		user_show_tasks();
		user_task_kill(t, SYS_KILLED_BY_KERNEL);
		user_task_wait_timeout(t, 0, &st);
		st.killed = -1;
	}
	user_task_put(t);
	if (st.killed)
		ktest_info("%s: killed (%d)", cmd, st.killed);
	return st.killed ? -1 : st.status;
}

static void torture(const char *flavor)
{
	char args[64];

	if (!duration_s)
		KTEST_SKIP("urcutorture runs in CI steps of its own: urcutorture.duration=S");
	if (!boot_module_find(PROGRAM))
		KTEST_SKIP("no boot module " PROGRAM " (no user programs on this boot)");
	snprintf(args, sizeof(args), "flavor=%s duration=%d", flavor, duration_s);
	/* (beyond the program's own cap on a slow writer: user/urcutorture/main.c) */
	KEXPECT_EQ(run_program(args, ktest_budget_ns(180 + 2 * duration_s, 12)), 0);
}

KTEST(urcutorture_memb)
{
	torture("memb");
}

KTEST(urcutorture_qsbr)
{
	torture("qsbr");
}

/* The reader runs on CPU 1 (CPU 0 on one CPU: window.c). */
static int window(const char *flavor)
{
	char args[64];

	snprintf(args, sizeof(args), "mode=window flavor=%s", flavor);
	return run_program(args, ktest_budget_ns(60, 2));
}

KTEST(urcu_window_reader_held_across_grace_period_memb)
{
	int cpu = num_online_cpus() > 1 ? 1 : 0;
	unsigned long ipis = membarrier_ipis_taken(cpu);

	if (!boot_module_find(PROGRAM))
		KTEST_SKIP("no boot module " PROGRAM " (no user programs on this boot)");
	KEXPECT_EQ(window("memb"), 0);
	/* (on one CPU the writer's own barrier covers the reader: no IPI) */
	if (cpu)
		KEXPECT(membarrier_ipis_taken(cpu) > ipis);
}

KTEST(urcu_window_reader_held_across_grace_period_qsbr)
{
	if (!boot_module_find(PROGRAM))
		KTEST_SKIP("no boot module " PROGRAM " (no user programs on this boot)");
	KEXPECT_EQ(window("qsbr"), 0);
}
