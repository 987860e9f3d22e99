/*
 * Callbacks moved off a dead CPU (rcu_migrate_callbacks()) still wait for
 * the grace periods they were queued for, whatever segment each was in on
 * the dead CPU and whatever segments and grace periods the lists of the
 * CPU they join are at.
 *
 * The CPU going down, d, queues its callbacks in its dying hook (online,
 * interrupts off, after its last context switch): a grace period Gr that
 * began after that switch owes d its quiescent state until the hook
 * returns, so the hook decides what runs around Gr.
 *
 *   R1   on CPU 2 (four CPUs or more): a reader that began before
 *        anything was queued; it keeps Gr running past d's death.
 *   a, c a queued by d, c on CPU 0 (where the moved callbacks go): the
 *        first of them starts Gr (with no grace period running) and waits
 *        for it, the other waits for the one after; both wait for R1;
 *   R2   on CPU 1: a reader that begins once CPU 1 has reported Gr: Gr
 *        does not wait for it, the next grace period does;
 *   b, e queued by d and on CPU 0 once R2 holds: they need the grace
 *        period after Gr;
 *   f    queued on CPU 0 once the callbacks have moved (which makes CPU 0
 *        look at its lists again).
 *
 * So d goes down with a in its wait segment (for Gr) and b in its next
 * one (for Gr's successor), or both in its next one (c first), and CPU 0's
 * lists are empty, or at the same grace periods, or ahead of the moved
 * ones (a's successor), or behind them (c for Gr, nothing later).  Each
 * reader holds until a callback it must hold back has run (the bug) or
 * the grace period in progress waits for its CPU alone
 * (win_wait_gp_blocked(): nothing more can end until it lets go).
 */
#include "rcu_window.h"

enum { MG_A, MG_B, MG_C, MG_E, MG_F, MG_N };

static const char *const mg_names[MG_N] = {
	"a (moved from the wait segment)", "b (moved from the next segment)",
	"c (CPU0's own, waiting for R1)", "e (CPU0's own, waiting for R2)",
	"f (CPU0's own, queued after the move)",
};

static struct {
	int d, y, z;				/* going down; R2's CPU; R1's (-1: none) */
	bool queue[MG_N];			/* this case's callbacks */
	bool c_first;				/* c starts Gr, not a */
	struct rcu_head rh[MG_N];
	int ran[MG_N];
	unsigned long gr;			/* Gr's gp_seq */
	int hook_in, c_queued, a_queued, gr_running;		/* events, in order */
	int r2_holding, e_queued, b_queued;
	int r1_holding, release1, release2;
	struct win_removal rm;
	bool missed, hung;
} mg;

static void mg_ran(struct rcu_head *rh)
{
	smp_store_release(&mg.ran[rh - mg.rh], 1);
}

static void mg_queue(int which)
{
	if (mg.queue[which])
		call_rcu(&mg.rh[which], mg_ran);
}

/* On d, interrupts off, after its last context switch. */
static void mg_dying_hook(int cpu)
{
	u64 t0 = ktime_get_ns();
	struct rcu_stats s;

	smp_store_release(&mg.hook_in, 1);
	while (mg.c_first && !smp_load_acquire(&mg.c_queued) && win_budget_left(t0))
		cpu_relax();
	mg_queue(MG_A);
	smp_store_release(&mg.a_queued, 1);
	/* Gr: a grace period that began after our last switch (a or c asked for it). */
	while (!rcu_cpu_owes_qs(cpu) && win_budget_left(t0))
		cpu_relax();
	rcu_get_stats(&s);
	mg.gr = s.gp_seq;
	smp_store_release(&mg.gr_running, 1);
	while (!(smp_load_acquire(&mg.r2_holding) && smp_load_acquire(&mg.e_queued)) &&
	       win_budget_left(t0))
		cpu_relax();
	mg_queue(MG_B);
	smp_store_release(&mg.b_queued, 1);
	mg.hung |= !win_budget_left(t0);
}

/* R1: holds from before anything was queued. */
static int mg_r1(void *arg)
{
	u64 t0 = ktime_get_ns();

	(void)arg;
	rcu_read_lock();
	smp_store_release(&mg.r1_holding, 1);
	while (!smp_load_acquire(&mg.release1) && win_budget_left(t0))
		udelay(2);
	rcu_read_unlock();
	return 0;
}

/* Is Gr running, with y's quiescent state reported? */
static bool mg_y_passed_gr(void)
{
	struct rcu_stats s;

	rcu_get_stats(&s);
	return smp_load_acquire(&mg.gr_running) && s.gp_seq == mg.gr &&
	       !cpumask_test_cpu(mg.y, &s.qs_mask);
}

/* R2: begins right after y's quiescent state for Gr (sleeping until then: y reports). */
static int mg_r2(void *arg)
{
	u64 t0 = ktime_get_ns();

	(void)arg;
	while (!mg_y_passed_gr() && win_budget_left(t0))
		msleep(1);
	rcu_read_lock();
	mg.missed = !mg_y_passed_gr();
	smp_store_release(&mg.r2_holding, 1);
	while (!smp_load_acquire(&mg.release2) && win_budget_left(t0))
		udelay(2);
	rcu_read_unlock();
	return 0;
}

/* For win_wait_gp_blocked(): has a callback of *held (a mask) run? */
static bool mg_any_ran(void *held)
{
	for (int i = 0; i < MG_N; i++)
		if ((*(unsigned int *)held & (1u << i)) && smp_load_acquire(&mg.ran[i]))
			return true;
	return false;
}

/* The verdict for one reader and the callbacks it holds back, while it still holds. */
static void mg_judge(int reader_cpu, unsigned int held, const char *reader)
{
	enum win_wait w = win_wait_gp_blocked(reader_cpu, mg_any_ran, &held);

	KEXPECT(w != WIN_HUNG);
	for (int i = 0; i < MG_N; i++) {
		if (!(held & (1u << i)) || !mg.queue[i] || !smp_load_acquire(&mg.ran[i]))
			continue;
		ktest_info("%s ran while %s (CPU%d), which it must wait for, held", mg_names[i],
			   reader, reader_cpu);
		KEXPECT(!mg.ran[i]);
	}
}

static void mg_case(bool b, bool c, bool e, bool c_first)
{
	struct task_struct *r1 = NULL, *r2, *remover;
	struct rcu_stats s;

	run_on(0);
	memset(&mg, 0, sizeof(mg));
	mg.d = num_online_cpus() - 1;
	mg.y = 1;
	mg.z = num_online_cpus() >= 4 ? 2 : -1;
	mg.queue[MG_A] = true;
	mg.queue[MG_B] = b;
	mg.queue[MG_C] = c;
	mg.queue[MG_E] = e;
	mg.queue[MG_F] = true;
	mg.c_first = c_first;
	/* Gr must be the first grace period to start from here on. */
	KASSERT(WIN_WAIT((rcu_get_stats(&s), !(s.gp_seq & 1))));
	/* Every thread before the hook: creating one waits for every CPU. */
	if (mg.z >= 0) {
		r1 = kthread_run_on_cpu(mg_r1, NULL, mg.z, "mg_r1");
		KASSERT(r1);
		KASSERT(WIN_WAIT(smp_load_acquire(&mg.r1_holding)));
	}
	r2 = kthread_run_on_cpu(mg_r2, NULL, mg.y, "mg_r2");
	KASSERT(r2);
	WRITE_ONCE(cpu_dying_hook, mg_dying_hook);
	mg.rm.cpu = mg.d;
	remover = kthread_run_on_cpu(win_remover, &mg.rm, 0, "mg_remover");
	KASSERT(remover);
	/* c before a or after it; e once R2 holds: both on CPU 0, as we are. */
	KEXPECT(WIN_WAIT(smp_load_acquire(c_first ? &mg.hook_in : &mg.a_queued)));
	mg_queue(MG_C);
	smp_store_release(&mg.c_queued, 1);
	KEXPECT(WIN_WAIT(smp_load_acquire(&mg.r2_holding)));
	mg_queue(MG_E);
	smp_store_release(&mg.e_queued, 1);
	KEXPECT(WIN_WAIT(smp_load_acquire(&mg.rm.removed)));
	WRITE_ONCE(cpu_dying_hook, NULL);
	mg_queue(MG_F);
	/* R1 began before all of them; R2 before b, e and f. */
	if (mg.z >= 0)
		mg_judge(mg.z, (1u << MG_N) - 1, "R1");
	smp_store_release(&mg.release1, 1);
	mg_judge(mg.y, 1u << MG_B | 1u << MG_E | 1u << MG_F, "R2");
	smp_store_release(&mg.release2, 1);
	kthread_stop(remover);
	kthread_stop(r2);
	if (r1)
		kthread_stop(r1);
	KEXPECT(!mg.missed);
	KEXPECT(!mg.hung);
	rcu_barrier();
	for (int i = 0; i < MG_N; i++) {
		if (mg.queue[i] && !mg.ran[i])
			ktest_info("%s never ran (rcu_barrier() returned)", mg_names[i]);
		KEXPECT(!mg.queue[i] || mg.ran[i]);
	}
	KEXPECT_EQ(add_cpu(mg.d), 0);
}

#define MG_NEEDS_THREE_CPUS()	\
	WIN_NEEDS_CPUS(3, "needs three CPUs: a reader, the one going down, and ours")

/* CPU 0's lists empty: the moved callbacks find segments with stale numbers. */
KTEST(hotplug_rcu_moved_callbacks_join_empty_lists)
{
	MG_NEEDS_THREE_CPUS();
	mg_case(true, false, false, false);
}

/* CPU 0's next segment waits for the same grace period as the moved b. */
KTEST(hotplug_rcu_moved_callbacks_join_lists_at_the_same_grace_periods)
{
	MG_NEEDS_THREE_CPUS();
	mg_case(true, true, true, false);
}

/* CPU 0 waits for a later grace period (c and e) than the moved a. */
KTEST(hotplug_rcu_moved_callbacks_join_lists_further_on)
{
	MG_NEEDS_THREE_CPUS();
	mg_case(false, true, true, false);
}

/* CPU 0 waits only for an earlier grace period (c, for Gr) than the moved a and b. */
KTEST(hotplug_rcu_moved_callbacks_join_lists_behind_them)
{
	MG_NEEDS_THREE_CPUS();
	mg_case(true, true, false, true);
}
