/*
 * synchronize_rcu_expedited(): the guarantee of synchronize_rcu(), asked
 * of every CPU at once.  A reader held on every other CPU, each inside
 * rcu_read_lock() in a task (so the expedited IPI interrupts a reader):
 * the call must not return, and no CPU may be reported, while any of
 * them holds.  The readers hold until the grace period provably waits
 * for them alone (its mask holds only their CPUs, and its IPI has found
 * each of them running), then let go: a broken
 * expedited grace period is caught every time, a correct one costs one
 * context switch per CPU.  The article's examples and rcutorture use it
 * too (tests/rcu_article_2_examples.c, tests/rcutorture.c).
 */
#include "rcu_window.h"
#include "rcu/rcu.h"	/* rcu_exp_noted(): the note the IPI leaves on a busy CPU */

static struct {
	struct cpumask holding;		/* CPUs whose reader is inside */
	unsigned long exp0;		/* expedited grace periods started before */
	int go;
	atomic_t entered;
	atomic_t left;
	atomic_t reported_early;	/* a reader saw its CPU reported while it held */
	atomic_t ended_early;		/* a reader saw the grace period end while it held */
	int returned;			/* synchronize_rcu_expedited() has returned */
	atomic_t returned_early;	/* ... and a reader saw it while it held */
	atomic_t hung;
} ex;

/*
 * Does the expedited grace period that began after exp0 wait only for
 * holders, and has its IPI reached every holder's CPU and found it
 * running (so that a broken handler has had its chance to report us)?
 * Every holder, not only ours: the CPUs are asked at once, so no holder
 * lets go before all are asked.  A grace period that asks one CPU at a
 * time, waiting for its report before asking the next, never gets there
 * (the readers hold until the budget runs out: hung).
 */
static bool exp_waits_for_holders_only(const struct rcu_stats *s, int me)
{
	struct cpumask others, unasked;

	cpumask_andnot(&others, &s->exp_mask, &ex.holding);
	cpumask_andnot(&unasked, &ex.holding, &s->exp_noted);
	return s->exp_started != ex.exp0 && s->exp_completed == ex.exp0 &&
	       cpumask_empty(&others) && cpumask_test_cpu(me, &s->exp_noted) &&
	       cpumask_empty(&unasked);
}

static int exp_reader(void *arg)
{
	int me = smp_processor_id();
	struct rcu_stats s;
	u64 t0 = ktime_get_ns();

	(void)arg;
	rcu_read_lock();
	cpumask_set_cpu(me, &ex.holding);
	/* The updater starts only when every reader is inside. */
	atomic_inc(&ex.entered);
	for (;;) {
		rcu_get_stats(&s);
		if (s.exp_completed != ex.exp0) {
			atomic_inc(&ex.ended_early);	/* it began after us: it must wait */
			break;
		}
		if (s.exp_started != ex.exp0 && !cpumask_test_cpu(me, &s.exp_mask)) {
			atomic_inc(&ex.reported_early);
			break;
		}
		if (exp_waits_for_holders_only(&s, me))
			break;
		/* The call returned while we hold: nothing left to wait for. */
		if (smp_load_acquire(&ex.returned)) {
			atomic_inc(&ex.returned_early);
			break;
		}
		if (!win_budget_left(t0)) {
			atomic_inc(&ex.hung);
			break;
		}
		udelay(2);
	}
	cpumask_clear_cpu(me, &ex.holding);
	rcu_read_unlock();
	atomic_inc(&ex.left);
	return 0;
}

KTEST(synchronize_rcu_expedited_waits_for_held_readers_on_every_cpu)
{
	struct task_struct *t[NR_CPUS];
	int cpus[NR_CPUS], n, me;
	struct rcu_stats s;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: on one, no reader runs while the updater waits");
	run_on(0);
	me = smp_processor_id();
	memset(&ex, 0, sizeof(ex));
	rcu_get_stats(&s);
	ex.exp0 = s.exp_started;
	KASSERT(s.exp_completed == s.exp_started);
	n = 0;
	for (int cpu = cpumask_first(cpu_online_mask); cpu < NR_CPUS;
	     cpu = cpumask_next(cpu, cpu_online_mask))
		if (cpu != me)
			cpus[n++] = cpu;
	for (int i = 0; i < n; i++)
		t[i] = kthread_run_on_cpu(exp_reader, NULL, cpus[i], "exp_reader");
	KEXPECT(WIN_WAIT(atomic_read(&ex.entered) == n));
	synchronize_rcu_expedited();
	smp_store_release(&ex.returned, 1);
	/* Every reader began before the call: each has left. */
	KEXPECT_EQ(atomic_read(&ex.left), n);
	for (int i = 0; i < n; i++)
		if (t[i])
			kthread_stop(t[i]);
	KEXPECT_EQ(atomic_read(&ex.reported_early), 0);
	KEXPECT_EQ(atomic_read(&ex.ended_early), 0);
	KEXPECT_EQ(atomic_read(&ex.returned_early), 0);
	KEXPECT_EQ(atomic_read(&ex.hung), 0);
	rcu_get_stats(&s);
	KEXPECT_EQ(s.exp_completed, ex.exp0 + 1);
	KEXPECT(cpumask_empty(&s.exp_mask));
}

/* With every other CPU idle it ends at once: nothing to wait for, on any CPU. */
KTEST(synchronize_rcu_expedited_with_idle_cpus_and_back_to_back)
{
	struct rcu_stats s0, s1;

	rcu_get_stats(&s0);
	for (int i = 0; i < 20; i++)
		synchronize_rcu_expedited();
	rcu_get_stats(&s1);
	KEXPECT_EQ(s1.exp_completed - s0.exp_completed, 20);
	KEXPECT_EQ(s1.exp_started, s1.exp_completed);
}

/* A cookie taken before the call is complete once it returns (the polled API's numbering). */
KTEST(synchronize_rcu_expedited_completes_a_polled_cookie)
{
	unsigned long cookie = get_state_synchronize_rcu();

	synchronize_rcu_expedited();
	KEXPECT(poll_state_synchronize_rcu(cookie));
}

/*
 * An idle task that is not idle: the boot CPU runs kmain()'s set-up as
 * its idle task, with interrupts on, before its idle loop; an arriving
 * CPU runs the starting hook so.  An expedited IPI that finds it there
 * must not take it for the idle loop: only an interrupt from the idle
 * loop's extended quiescent state is one (rcu_irq_from_idle()), not "the
 * current task is the idle task".  The test's cpu_starting_hook on the
 * last CPU turns interrupts on, holds a reader, and lets go once the
 * expedited grace period's IPI has left a note there (a correct handler)
 * or the call returned (a handler that reported the CPU at once).
 */
static struct {
	int reading, noted, returned, returned_early, done;
} ei;

static void ei_idle_task_reader_hook(int cpu)
{
	u64 t0 = ktime_get_ns();

	(void)cpu;
	local_irq_enable();	/* as kmain()'s set-up has them */
	rcu_read_lock();
	smp_store_release(&ei.reading, 1);
	while (!rcu_exp_noted() && !smp_load_acquire(&ei.returned) && win_budget_left(t0))
		cpu_relax();
	ei.noted = rcu_exp_noted();
	ei.returned_early = smp_load_acquire(&ei.returned);
	local_irq_disable();
	rcu_read_unlock();
	smp_store_release(&ei.done, 1);
}

KTEST(synchronize_rcu_expedited_waits_for_an_idle_task_that_reads)
{
	int cpu = num_online_cpus() - 1;

	WIN_NEEDS_CPUS(2, "needs two CPUs: the boot CPU never goes offline");
	KASSERT_EQ(run_on(0), 0);
	memset(&ei, 0, sizeof(ei));
	KASSERT_EQ(remove_cpu(cpu), 0);
	WRITE_ONCE(cpu_starting_hook, ei_idle_task_reader_hook);
	KEXPECT_EQ(add_cpu(cpu), 0);
	WRITE_ONCE(cpu_starting_hook, NULL);
	KASSERT(WIN_WAIT(smp_load_acquire(&ei.reading)));
	synchronize_rcu_expedited();
	smp_store_release(&ei.returned, 1);
	KEXPECT(WIN_WAIT(smp_load_acquire(&ei.done)));
	if (ei.returned_early)
		ktest_info("synchronize_rcu_expedited() returned while CPU%d's idle task, not yet "
			   "in its idle loop, held a reader", cpu);
	KEXPECT(!ei.returned_early);
	KEXPECT(ei.noted);
}
