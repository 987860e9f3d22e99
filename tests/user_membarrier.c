/*
 * SYS_membarrier's kernel half (kernel/user/membarrier.c), with event
 * counts: the call interrupts the CPUs that run the task's threads, and
 * no other; and it returns, its guarantee kept (the checking build's
 * witness), while a CPU running one of the threads goes down and comes
 * back, again and again.  (Its ABI and errors: tests/user/urcu.c; the
 * barrier the readers of user-space RCU rely on: tests/urcutorture.c.)
 */
#include "ktest.h"
#include "cpu.h"
#include "user/thread.h"
#include "user/membarrier.h"
#include <errno.h>

#define SPINNER		"tests/user/helpers/spin"
#define CALLS		8
#define HOTPLUG_CYCLES	2

/*
 * Until CPUs 1 .. n-1 each run a thread of t (the spinner's: pinned,
 * never blocking) and all n are made: the main thread may run on one of
 * those CPUs before it moves to CPU0 and makes the others.
 */
static bool wait_spinning(struct user_task *t, int n)
{
	u64 end = ktime_get_ns() + ktest_budget_ns(20, 2);

	while (ktime_get_ns() < end) {
		int cpu, running = 0;

		for (cpu = 1; cpu < n; cpu++) {
			struct task_struct *c = sched_curr(cpu);

			running += c && c->user && c->user->task == t;
		}
		if (running == n - 1 && READ_ONCE(t->nr_live) == n)
			return true;
		msleep(1);
	}
	return false;
}

static struct user_task *spawn_spinner(int ncpus)
{
	char cmd[64];
	int err;

	snprintf(cmd, sizeof(cmd), SPINNER " upto %d", ncpus);
	return user_spawn(cmd, NULL, &err);
}

static void end_spinner(struct user_task *t)
{
	struct sys_exit_status st;

	user_task_kill(t, SYS_KILLED_BY_KERNEL);
	KEXPECT_EQ(user_task_wait_timeout(t, ktest_budget_ns(20, 2), &st), 0);
	user_task_put(t);
}

KTEST(membarrier_interrupts_exactly_the_cpus_running_the_task)
{
	/* Spinning on every CPU but the last (with 3 CPUs or more): that one must see nothing. */
	int n = num_online_cpus() > 2 ? num_online_cpus() - 1 : num_online_cpus(), cpu;
	unsigned long before[NR_CPUS];
	struct user_task *t;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs a second CPU to interrupt");
	if (!boot_module_find(SPINNER))
		KTEST_SKIP("no boot module " SPINNER " (no user programs on this boot)");
	KASSERT(run_on(0) == 0);
	t = spawn_spinner(n);
	KASSERT(t);
	KEXPECT(wait_spinning(t, n));
	for_each_online_cpu(cpu)
		before[cpu] = membarrier_ipis_taken(cpu);
	for (int i = 0; i < CALLS; i++)
		membarrier_private_expedited(t->mm);
	for_each_online_cpu(cpu) {
		unsigned long ipis = membarrier_ipis_taken(cpu) - before[cpu];

		ktest_info("CPU%d: %lu membarrier IPI%s (%s)", cpu, ipis, ipis == 1 ? "" : "s",
			   cpu == 0 ? "the caller's" : cpu < n ? "a spinner runs there" : "nothing of it");
		if (cpu > 0 && cpu < n)
			KEXPECT(ipis >= 1);
		else
			KEXPECT_EQ(ipis, 0);
	}
	end_spinner(t);
}

static int hotplug_thread(void *arg)
{
	int cpu = num_online_cpus() - 1, *cycles = arg;

	for (int i = 0; i < HOTPLUG_CYCLES; i++) {
		if (remove_cpu(cpu) || add_cpu(cpu))
			break;
		WRITE_ONCE(*cycles, i + 1);
	}
	while (!kthread_should_stop())
		msleep(1);
	return 0;
}

/*
 * CPUs coming and going during the call: the last CPU goes down and up
 * while we call over and over for a task spinning on every CPU.  Each
 * call returns (the IPI machinery takes back a call to a CPU gone
 * offline), and the checking build's witness finds no thread of the task
 * that ran through a call without a barrier.
 */
KTEST(membarrier_returns_while_cpus_go_down_and_up)
{
	struct task_struct *hotplug;
	unsigned long calls = 0;
	struct mm_struct *mm;
	struct user_task *t;
	int cycles = 0;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs a second CPU to take down");
	if (!boot_module_find(SPINNER))
		KTEST_SKIP("no boot module " SPINNER " (no user programs on this boot)");
	KASSERT(run_on(0) == 0);
	t = spawn_spinner(num_online_cpus());
	KASSERT(t);
	if (!wait_spinning(t, num_online_cpus())) {
		KEXPECT(!"the spinner spins on every CPU");
		end_spinner(t);
		return;
	}
	hotplug = kthread_run_on_cpu(hotplug_thread, &cycles, 0, "mb_hotplug");
	KASSERT(hotplug);
	mm = t->mm;		/* (NULL once the spinner ends: ours, until it is killed below) */
	mm_get(mm);
	while (READ_ONCE(cycles) < HOTPLUG_CYCLES && READ_ONCE(hotplug->state) != TASK_DEAD) {
		membarrier_private_expedited(mm);
		calls++;
		cond_resched();
	}
	kthread_stop(hotplug);
	mm_put(mm);
	KEXPECT(!READ_ONCE(t->exiting) && !READ_ONCE(t->kill_reason));	/* it spun all along */
	ktest_info("%lu calls while CPU%d went down and up %d times", calls,
		   num_online_cpus() - 1, cycles);
	KEXPECT_EQ(cycles, HOTPLUG_CYCLES);
	KEXPECT(calls > 0);
	end_spinner(t);
}
