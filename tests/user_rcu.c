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
#include "rcu/rcu.h"	/* rcu_gp_end_hook: which CPU ended a grace period, and where */
#include "irq.h"
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


/*
 * A grace period that ends at a return to user mode wakes this CPU's rcuc
 * (or a task waiting for the grace period) with no IPI: a wake-up on
 * one's own CPU sends none, so the return must look at need_resched()
 * after its report, as the idle loop does after rcu_idle_enter(), or the
 * woken task waits for the next tick.  Counted, not timed: the checking
 * build counts every return to user mode that leaves such a task queued
 * (sched_user_returns_with_work(), 0 when right).
 *
 * The window is forced: a thread spins in user mode on the last CPU c
 * alone; every other CPU, ours included, sleeps.  In c's tick (a lazy
 * irq_work) a callback is queued there: its grace period starts with c
 * the only CPU not idle, so c's report on the tick's way back to user
 * mode ends it (the test's rcu_gp_end_hook sees it end on c, in the user
 * thread) and wakes rcuc/c, which must run before c returns to user mode.
 */
#define UR_ROUNDS		10
#define UR_ENDS_WANTED		3

static struct {
	int cpu;
	int ends_at_return;		/* grace periods that c's user-mode return ended */
	struct irq_work work;
	struct rcu_head rh;
	u64 ticks_queued, ticks_ran;
	int ran;
} ur;

static void ur_gp_end(unsigned long gp_seq)
{
	(void)gp_seq;
	if (smp_processor_id() == ur.cpu && current->user)
		ur.ends_at_return++;
}

static void ur_cb(struct rcu_head *rh)
{
	(void)rh;
	ur.ticks_ran = this_cpu()->ticks;
	smp_store_release(&ur.ran, 1);
}

static void ur_queue(struct irq_work *work)
{
	(void)work;
	ur.ticks_queued = this_cpu()->ticks;
	call_rcu(&ur.rh, ur_cb);
}

/* Until t's thread runs on c. */
static bool ur_spinning(struct user_task *t)
{
	u64 end = ktime_get_ns() + ktest_budget_ns(20, 2);

	while (!runs_task(ur.cpu, t)) {
		if (ktime_get_ns() > end)
			return false;
		msleep(1);
	}
	return true;
}

/* Is rcuc/c asleep (so that the end of the grace period has to wake it)? */
static bool ur_rcuc_asleep(void)
{
	struct task_struct *rcuc = READ_ONCE(rcu_data[ur.cpu].cb_thread);

	return rcuc && READ_ONCE(rcuc->state) == TASK_BLOCKED && sched_curr(ur.cpu) != rcuc;
}

/* One round: the callback queued in c's tick; false if it never ran. */
static bool ur_round(long *ticks)
{
	u64 t0 = ktime_get_ns();

	while (!ur_rcuc_asleep()) {
		if (ktime_get_ns() - t0 > ktest_budget_ns(10, 1))
			return false;
		msleep(1);
	}
	ur.ran = 0;
	ur.work.func = ur_queue;
	ur.work.lazy = true;
	while (!irq_work_queue_on(&ur.work, ur.cpu))
		msleep(1);
	while (!smp_load_acquire(&ur.ran)) {
		if (ktime_get_ns() - t0 > ktest_budget_ns(10, 1))
			return false;
		msleep(1);
	}
	*ticks = (long)(ur.ticks_ran - ur.ticks_queued);
	return true;
}

KTEST(user_return_that_ends_a_grace_period_runs_the_woken_rcuc_at_once)
{
	unsigned long before;
	struct user_task *t;
	char cmd[64];
	long ticks = 0, worst = 0;
	int err, rounds = 0;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs a CPU spinning in user mode besides ours");
	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no count of returns with work left, no seam");
	run_on(0);
	memset(&ur, 0, sizeof(ur));
	ur.cpu = num_online_cpus() - 1;
	snprintf(cmd, sizeof(cmd), SPINNER " %d", ur.cpu);
	t = user_spawn(cmd, NULL, &err);
	if (!t && err == -ENOENT)
		KTEST_SKIP("no boot module " SPINNER " (no user programs on this boot)");
	KASSERT(t);
	KEXPECT(ur_spinning(t));
	rcu_barrier();		/* nothing else of ours in flight */
	before = sched_user_returns_with_work();
	WRITE_ONCE(rcu_gp_end_hook, ur_gp_end);
	while (rounds < UR_ROUNDS && ur.ends_at_return < UR_ENDS_WANTED) {
		KASSERT(ur_round(&ticks));
		worst = max(worst, ticks);
		rounds++;
	}
	WRITE_ONCE(rcu_gp_end_hook, NULL);
	ktest_info("%d rounds: %d grace periods ended at CPU%d's return to user mode; the "
		   "callback ran at worst %ld ticks of CPU%d after it was queued", rounds,
		   ur.ends_at_return, ur.cpu, worst, ur.cpu);
	KEXPECT(ur.ends_at_return > 0);
	KEXPECT_EQ(sched_user_returns_with_work() - before, 0);
	user_task_kill(t, SYS_KILLED_BY_KERNEL);
	KEXPECT_EQ(user_task_wait_timeout(t, ktest_budget_ns(20, 2), &(struct sys_exit_status){ 0 }),
		   0);
	user_task_put(t);
	synchronize_rcu();	/* no CPU is still in the hook */
}
