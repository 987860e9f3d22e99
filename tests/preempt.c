/*
 * The PREEMPT=1 build (kernel/preempt.h, lab preempt): the tick preempts
 * a task that never yields, and does not preempt one inside
 * preempt_disable().  Skipped in the other builds, where nothing preempts.
 */
#include "ktest.h"

static bool spinner_spinning, spinner_done, other_ran;
static bool other_ran_during_spin;

/* Spins for ms without yielding; records whether the other task ran meanwhile. */
static int spinner(void *arg)
{
	int ms = (int)(uintptr_t)arg;
	bool protect = ms < 0;

	if (protect) {
		ms = -ms;
		preempt_disable();
	}
	WRITE_ONCE(spinner_spinning, true);
	mdelay(ms);
	/* Same CPU as the other task: no barrier, only READ_ONCE. */
	other_ran_during_spin = READ_ONCE(other_ran);
	if (protect)
		preempt_enable();
	WRITE_ONCE(spinner_done, true);
	return 0;
}

static int other(void *arg)
{
	(void)arg;
	WRITE_ONCE(other_ran, true);
	return 0;
}

/* A spinner on the last CPU, then, once it spins, a second task queued behind it there. */
static void spin_and_queue(int spin_ms)
{
	int cpu = num_online_cpus() - 1;
	struct task_struct *s, *o;

	WRITE_ONCE(spinner_spinning, false);
	WRITE_ONCE(spinner_done, false);
	WRITE_ONCE(other_ran, false);
	other_ran_during_spin = false;
	s = kthread_run_on_cpu(spinner, (void *)(intptr_t)spin_ms, cpu, "spinner");
	KASSERT(s != NULL);
	while (!READ_ONCE(spinner_spinning))
		msleep(1);
	o = kthread_run_on_cpu(other, NULL, cpu, "other");
	KASSERT(o != NULL);
	while (!READ_ONCE(spinner_done) || !READ_ONCE(other_ran))
		msleep(10);
	kthread_stop(s);
	kthread_stop(o);
}

KTEST(preempt_tick_preempts_a_task_that_never_yields)
{
	if (!CONFIG_PREEMPT)
		KTEST_SKIP("PREEMPT=0: nothing preempts");
	/* 500 ms: 50 ticks, each a chance for the other task, queued within one. */
	spin_and_queue(500);
	KEXPECT(other_ran_during_spin);
}

KTEST(preempt_disable_keeps_the_tick_from_preempting)
{
	if (!CONFIG_PREEMPT)
		KTEST_SKIP("PREEMPT=0: nothing preempts");
	spin_and_queue(-300);
	KEXPECT(!other_ran_during_spin);
}

/*
 * Valid in every build: an outer reader outlives its inner one.  Under
 * PREEMPT=1 it catches a read side that re-enables preemption at the
 * inner rcu_read_unlock() (not nesting-safe): the tick then preempts the
 * outer reader, its CPU switches, and synchronize_rcu() returns early.
 */
static bool nest_in_reader, nest_left;

static int nested_reader(void *arg)
{
	(void)arg;
	rcu_read_lock();
	rcu_read_lock();
	rcu_read_unlock();
	/* [nest_in_release] pairs [nest_in_acquire]: inside before the flag says so. */
	smp_store_release(&nest_in_reader, true);
	mdelay(200);		/* busy, still inside the outer reader */
	WRITE_ONCE(nest_left, true);
	rcu_read_unlock();
	return 0;
}

KTEST(preempt_outer_reader_outlives_its_inner_one)
{
	struct task_struct *t;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the reader and the updater");
	WRITE_ONCE(nest_in_reader, false);
	WRITE_ONCE(nest_left, false);
	t = kthread_run_on_cpu(nested_reader, NULL, num_online_cpus() - 1, "nested_reader");
	KASSERT(t != NULL);
	/* [nest_in_acquire] pairs [nest_in_release]: the reader is inside now. */
	while (!smp_load_acquire(&nest_in_reader))
		msleep(1);
	synchronize_rcu();
	/* synchronize_rcu() ran on the reader's CPU after it left: same CPU, its store is visible. */
	KEXPECT_WHY(READ_ONCE(nest_left), "the reader on CPU%d was still inside its outer "
		    "rcu_read_lock() when synchronize_rcu() returned: its inner "
		    "rcu_read_unlock() let the tick preempt it (only the outermost unlock may "
		    "allow preemption again)", num_online_cpus() - 1);
	kthread_stop(t);
}
