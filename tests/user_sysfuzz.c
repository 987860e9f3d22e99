/*
 * The system-call fuzzer (user/sysfuzz.c) runs in a task of its own: the
 * kernel survives its calls, it sees every promise of the ABI kept (exit
 * status 0), and the runner's leak check finds nothing left behind.
 *
 * sysfuzz.calls=N (make test: 3000; make fuzz: millions), sysfuzz.seed=S
 * (0: the fuzzer draws one and prints it; give it back to replay a run),
 * sysfuzz.threads=N (fuzzing threads beside the first), sysfuzz.tasks=N (more
 * fuzzing tasks, with copies of its first capabilities: 1 by default).
 *
 * The drivers' calls get real capabilities to chew on: the console's
 * line (which the kernel lets go for the run), the UART's registers and
 * the kernel's console, in the fuzzer's slots 8..10.  Afterwards nobody
 * may hold the line any more (every capability went with the fuzzer's
 * tasks), and the kernel takes it back.
 */
#include "ktest.h"
#include "user/thread.h"
#include "object/cap.h"
#include "object/console.h"
#include "object/device.h"
#include "object/interrupt.h"
#include "driver_test.h"

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

#define DRIVER_SLOTS	8	/* user/sysfuzz.c's */

/* The drivers' capabilities, in slots 8 (interrupt: the console's line), 9 (device), 10 (console). */
static int grant_driver_caps(struct user_task *t, void *arg)
{
	int line = *(int *)arg, s = 0;
	struct device_regs regs;

	arch_console_regs(&regs);
	if (line >= 0)
		s = interrupt_cap_grant(t->cspace, DRIVER_SLOTS, line);
	if (s >= 0)
		s = device_cap_grant(t->cspace, DRIVER_SLOTS + 1, &regs);
	if (s >= 0)
		s = console_cap_grant(t->cspace, DRIVER_SLOTS + 2);
	return s < 0 ? s : 0;
}

KTEST(user_syscall_fuzzer_finds_every_promise_kept)
{
	struct sys_exit_status st;
	struct user_task *t;
	char cmd[128];
	int err, line = kernel_console_line();	/* (-1: no interrupt capability for it) */

	if (!boot_module_find(FUZZER))
		KTEST_SKIP("no boot module " FUZZER " (no user programs on this boot)");
	snprintf(cmd, sizeof(cmd), FUZZER " seed=%s calls=%d threads=%d tasks=%d", seed, calls,
		 threads, tasks);
	if (line >= 0)
		console_input_release();
	/* (the boot capabilities: it keeps its own program, for its children) */
	t = user_spawn_root_with(cmd, &err, grant_driver_caps, &line);
	if (!t && line >= 0)
		console_input_reclaim();
	KASSERT(t);
	if (user_task_wait_timeout(t, ktest_budget_ns(60 + calls / CALLS_PER_S, 2), &st)) {
		ktest_info("the fuzzer did not end in time: its threads, then killed");
		user_show_tasks();	/* (which of its threads still waits) */
		user_task_kill(t, SYS_KILLED_BY_KERNEL);
		user_task_wait_timeout(t, 0, &st);
		KEXPECT(!"the fuzzer ended in time");
	}
	KEXPECT_EQ(st.killed, 0);
	KEXPECT_EQ(st.status, 0);
	user_task_put(t);
	if (line >= 0) {
		KEXPECT(wait_held(line, false));	/* the binding went with the last capability */
		KEXPECT_EQ(console_input_reclaim(), 0);
	}
	while (console_getc() >= 0)
		;	/* the keys it pushed */
}
