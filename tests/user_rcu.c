/*
 * RCU with user code running on every CPU (docs/user.md, "RCU"): returning
 * to user mode is a quiescent state, and user mode is preempted by the
 * tick and by the IPI that announces a waiting task.  So with a thread
 * spinning in user mode on every CPU -- it never calls into the kernel --
 * call_rcu()'s grace periods, synchronize_rcu_expedited(),
 * synchronize_rcu() and SRCU all complete, and the statistics show the
 * other CPUs reported through the user-mode path.
 */
#include "ktest.h"
#include "user/thread.h"
#include <errno.h>

#define SPINNER		"tests/user/helpers/spin"
#define ASYNC_GPS	5

struct gp_done {
	struct rcu_head head;
	struct completion done;
};

static void gp_ended(struct rcu_head *head)
{
	complete(&container_of(head, struct gp_done, head)->done);
}

static bool runs_task(int cpu, struct user_task *t)
{
	struct task_struct *c = sched_curr(cpu);

	return c && c->user && c->user->task == t;
}

/* Until every CPU but ours runs a thread of t, and t has a live thread for each CPU. */
static bool wait_spinning(struct user_task *t)
{
	u64 end = ktime_get_ns() + ktest_budget_ns(20, 2);
	int cpu;

	while (ktime_get_ns() < end) {
		bool all = READ_ONCE(t->nr_live) == num_online_cpus();

		for_each_online_cpu(cpu)
			if (cpu != smp_processor_id() && !runs_task(cpu, t))
				all = false;
		if (all)
			return true;
		msleep(1);
	}
	return false;
}

static void snapshot(unsigned long *qs, bool expedited)
{
	int cpu;

	for_each_online_cpu(cpu)
		qs[cpu] = rcu_user_qs_count(cpu, expedited);
}

/* Each CPU but ours reported at least once on its way back to user mode since before. */
static void expect_user_reports(const unsigned long *before, bool expedited, const char *what)
{
	int cpu;

	for_each_online_cpu(cpu) {
		unsigned long n = rcu_user_qs_count(cpu, expedited) - before[cpu];

		if (cpu == smp_processor_id())
			continue;
		ktest_info("CPU%d: %lu %s quiescent state%s reported returning to user mode", cpu,
			   n, what, n == 1 ? "" : "s");
		KEXPECT(n >= 1);
	}
}

static void async_grace_periods(void)
{
	static unsigned long before[NR_CPUS];
	struct gp_done g;

	snapshot(before, false);
	for (int i = 0; i < ASYNC_GPS; i++) {
		init_completion(&g.done);
		call_rcu(&g.head, gp_ended);
		wait_for_completion(&g.done);
	}
	expect_user_reports(before, false, "call_rcu()");
}

/* Has every CPU but ours reported through the user path since before? */
static bool all_reported(const unsigned long *before, bool expedited)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id() && rcu_user_qs_count(cpu, expedited) == before[cpu])
			return false;
	return true;
}

/*
 * One expedited grace period may find a CPU in the kernel (its rcuc
 * thread, an interrupt), which then reports on the spot, not on the way
 * back to user mode: so up to EXP_TRIES, until each CPU has reported
 * through the user path once.  With that path broken, none ever does.
 */
#define EXP_TRIES	100

static void expedited_grace_periods(void)
{
	static unsigned long before[NR_CPUS];

	snapshot(before, true);
	for (int i = 0; i < EXP_TRIES; i++) {
		synchronize_rcu_expedited();
		if (all_reported(before, true))
			break;
	}
	expect_user_reports(before, true, "expedited");
}

static void tour_and_srcu(void)
{
	static struct srcu_struct ss;
	struct rcu_stats s0, s1;

	rcu_get_stats(&s0);
	synchronize_rcu();	/* each hop: an IPI, and the spinner yields at its return */
	rcu_get_stats(&s1);
	KEXPECT(s1.tours_completed > s0.tours_completed);
	KASSERT_EQ(init_srcu_struct(&ss), 0);
	synchronize_srcu(&ss);
	cleanup_srcu_struct(&ss);
}

KTEST(user_mode_is_a_quiescent_state_for_every_kind_of_grace_period)
{
	struct sys_exit_status st;
	struct user_task *t;
	int err;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs a second CPU spinning in user mode");
	t = user_spawn(SPINNER, NULL, &err);
	if (!t && err == -ENOENT)
		KTEST_SKIP("no boot module " SPINNER " (no user programs on this boot)");
	KASSERT(t);
	if (wait_spinning(t)) {
		async_grace_periods();
		expedited_grace_periods();
		tour_and_srcu();
	} else {
		KEXPECT(!"a thread of the spinner runs on every other CPU");
	}
	user_task_kill(t, SYS_KILLED_BY_KERNEL);
	KEXPECT_EQ(user_task_wait_timeout(t, ktest_budget_ns(20, 2), &st), 0);
	KEXPECT_EQ(st.killed, SYS_KILLED_BY_KERNEL);
	user_task_put(t);
}
