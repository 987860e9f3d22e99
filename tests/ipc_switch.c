/*
 * How IPC switches threads (kernel/object/ipc.c, kernel/sched.c
 * schedule_to()): a client and a server on the same CPU hand the CPU to
 * each other directly, a call and a reply-and-receive each one direct
 * switch, never through the run queue; on two CPUs the server's CPU is
 * woken by an IPI and no direct switch happens.  Each round trip is still
 * a context switch for RCU: the tests after these pass with it.
 */
#include "ktest.h"
#include "object/ipc.h"
#include "user/task.h"
#include "user/module.h"

#define ROUNDS		100	/* on one CPU: cheap */
#define CROSS_ROUNDS	50	/* across two: each wakes a halted CPU */
#define PINGPONG	"tests/user/helpers/pingpong"

static struct user_task *start(int client_cpu, int server_cpu, int rounds, int *err)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), PINGPONG " %d %d %d", client_cpu, server_cpu, rounds);
	return user_spawn(cmd, NULL, err);
}

/* Runs pingpong and waits for it; false if it did not run right. */
static bool run(int client_cpu, int server_cpu, int rounds)
{
	struct sys_exit_status st;
	struct user_task *t;
	int err;

	t = start(client_cpu, server_cpu, rounds, &err);
	if (!t) {
		ktest_info("%s did not start (error %d)", PINGPONG, err);
		return false;
	}
	if (user_task_wait_timeout(t, ktest_budget_ns(30, 2), &st)) {
		user_task_kill(t, SYS_KILLED_BY_KERNEL);
		user_task_wait_timeout(t, ktest_budget_ns(30, 2), &st);
		user_task_put(t);
		return false;
	}
	user_task_put(t);
	KEXPECT_EQ(st.killed, 0);
	KEXPECT_EQ(st.status, 0);
	return !st.killed && !st.status;
}

KTEST(ipc_same_cpu_call_and_reply_switch_directly)
{
	int cpu = num_online_cpus() > 1 ? 1 : 0;
	u64 direct = sched_nr_direct_switches(cpu);
	struct ipc_stats s0, s1;

	if (!boot_module_find(PINGPONG))
		KTEST_SKIP("no boot module " PINGPONG " (no user programs on this boot)");
	ipc_get_stats(&s0);
	KASSERT(run(cpu, cpu, ROUNDS));
	ipc_get_stats(&s1);
	direct = sched_nr_direct_switches(cpu) - direct;
	ktest_info("CPU%d: %d round trips, %llu direct switches, %lu handoffs", cpu, ROUNDS,
		   (unsigned long long)direct, s1.handoffs - s0.handoffs);
	if (CONFIG_PREEMPT) {
		/* Never there: the partner could run, and leave, before the switch (ipc_complete_locked()). */
		KEXPECT_EQ(direct, 0);
	} else {
		/* Each call switches to the server, each reply-and-receive back (the first few may queue). */
		KEXPECT(direct >= 2 * ROUNDS - 4);
	}
	KEXPECT(s1.calls - s0.calls >= ROUNDS);
}

KTEST(ipc_across_cpus_wakes_the_receiver_with_an_ipi)
{
	u64 direct0 = sched_nr_direct_switches(0), direct1 = sched_nr_direct_switches(1);
	u64 ipis;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs");
	if (!boot_module_find(PINGPONG))
		KTEST_SKIP("no boot module " PINGPONG " (no user programs on this boot)");
	ipis = READ_ONCE(cpus[1].ipis);
	KASSERT(run(0, 1, CROSS_ROUNDS));
	ipis = READ_ONCE(cpus[1].ipis) - ipis;
	ktest_info("server on CPU1: %llu IPIs taken in %d round trips", (unsigned long long)ipis,
		   CROSS_ROUNDS);
	KEXPECT_EQ(sched_nr_direct_switches(0) - direct0, 0);
	KEXPECT_EQ(sched_nr_direct_switches(1) - direct1, 0);
	/*
	 * Most calls find CPU1 halted, but how many depends on when the
	 * host runs its vCPU (11 of 50 once, on a loaded host): one IPI
	 * shows the path, never a share of them.
	 */
	KEXPECT(ipis >= 1);
}
