/*
 * The expedited half of a polled cookie.  An expedited grace period E is
 * numbered for the polled API as a tour is (kernel/rcu/expedited.c takes a
 * wait number before it looks at any CPU).  A cookie taken while E runs
 * must not read done when E ends unless E waited for every reader its taker
 * could have overlapped; one taken before E must not read done before E
 * has waited for every CPU.
 *
 *   caller   on CPU 0: synchronize_rcu_expedited() (E), asleep meanwhile;
 *   holder   on the last CPU: busy inside rcu_read_lock() (reader R0) when
 *            E's IPI finds it, so E waits for its next context switch.  It
 *            takes cookie C0 before E starts; once the reader below holds,
 *            it takes cookie C, has a tour start (numbered above C, it
 *            waits for the reader), polls C0 with E's caller asleep (not
 *            done: R0 holds), and only then leaves R0 and lets E end.  C
 *            must not read done at E's end: the reader still holds;
 *   reader   on CPU 1: begins once E has counted CPU 1 as quiescent and
 *            still waits for the holder's CPU, and holds until the holder
 *            has polled C after E's end;
 *   tourist  on CPU 0: the tour, which stays queued behind the reader.
 * Three CPUs: E's caller must be free to run (and end E) while the reader
 * holds.  Every wait is on an event.
 */
#include "rcu_window.h"

static struct {
	struct win_elem __rcu *gp0, *gp;	/* read by R0, by the reader */
	unsigned long exp0;			/* expedited grace periods before E */
	int last;
	struct task_struct *caller;
	int go, exp_done;			/* holder: start E; caller: E returned */
	int tour_go, tour_done;			/* holder: start the tour; tourist: it ended */
	int reading, release, left;		/* reader */
	bool c0_done_early, c_done_early, c_polled;	/* holder */
	bool reader_saw_dead, reader_missed, hung;
} xc;

/* The caller and the tourist: wait for their go, make their wait, say it returned. */
struct xc_step {
	int *go;
	void (*wait)(void);
	int *done;
};

static int xc_run_step(void *arg)
{
	const struct xc_step *st = arg;
	u64 t0 = ktime_get_ns();

	while (!smp_load_acquire(st->go) && win_budget_left(t0))
		msleep(1);
	st->wait();
	smp_store_release(st->done, 1);
	return 0;
}

/* E runs, has counted cpu as quiescent, and still waits for the holder's CPU. */
static bool xc_passed(int cpu)
{
	struct rcu_stats s;

	rcu_get_stats(&s);
	return s.exp_started == xc.exp0 + 1 && s.exp_completed == xc.exp0 &&
	       !cpumask_test_cpu(cpu, &s.exp_mask) && cpumask_test_cpu(xc.last, &s.exp_mask) &&
	       cpumask_test_cpu(xc.last, &s.exp_noted);
}

static bool xc_tour_started(unsigned long before)
{
	struct rcu_stats s;

	rcu_get_stats(&s);
	return s.tours_started != before;
}

static int xc_reader(void *arg)
{
	int me = smp_processor_id();
	u64 t0 = ktime_get_ns();
	struct win_elem *e;

	(void)arg;
	/* Sleeping between looks: our CPU is idle (or switches) when E looks at it. */
	while (!xc_passed(me) && !smp_load_acquire(&xc.exp_done) && win_budget_left(t0))
		msleep(1);
	rcu_read_lock();
	xc.reader_missed = !xc_passed(me);
	e = rcu_dereference(xc.gp);
	smp_store_release(&xc.reading, 1);
	while (!smp_load_acquire(&xc.release) && win_budget_left(t0))
		udelay(2);
	xc.reader_saw_dead = !e || !win_elem_live(e, 1);
	rcu_read_unlock();
	smp_store_release(&xc.left, 1);
	return 0;
}

static int xc_holder(void *arg)
{
	struct win_elem *e0, *e;
	unsigned long c0, c, tours;
	struct rcu_stats s;
	u64 t0 = ktime_get_ns();

	(void)arg;
	rcu_get_stats(&s);
	tours = s.tours_started;
	/* R0: a reader that began before C0, held with no context switch (nor preemption). */
	preempt_disable();
	rcu_read_lock();
	e0 = rcu_dereference(xc.gp0);
	rcu_assign_pointer(xc.gp0, NULL);
	c0 = get_state_synchronize_rcu();
	smp_store_release(&xc.go, 1);
	/* E waits for us while the reader begins and C is taken. */
	while (!smp_load_acquire(&xc.reading) && win_budget_left(t0))
		udelay(2);
	e = rcu_dereference_protected(xc.gp, 1);
	rcu_assign_pointer(xc.gp, NULL);
	c = get_state_synchronize_rcu();
	smp_store_release(&xc.tour_go, 1);
	while ((!xc_tour_started(tours) || !win_task_waits(xc.caller)) && win_budget_left(t0))
		udelay(2);
	xc.c0_done_early = poll_state_synchronize_rcu(c0);
	rcu_read_unlock();
	preempt_enable();
	cond_resched();		/* our quiescent state: E may end now */
	while (!smp_load_acquire(&xc.exp_done) && win_budget_left(t0))
		msleep(1);
	xc.c_done_early = poll_state_synchronize_rcu(c);
	if (xc.c_done_early)
		kfree(e);	/* as an updater that trusts the poll would: the reader sees it */
	smp_store_release(&xc.release, 1);
	while (!smp_load_acquire(&xc.left) && win_budget_left(t0))
		msleep(1);
	xc.hung = !win_budget_left(t0);
	cond_synchronize_rcu(c);
	xc.c_polled = poll_state_synchronize_rcu(c);
	if (!xc.c_done_early)
		kfree(e);
	cond_synchronize_rcu(c0);
	kfree(e0);
	return 0;
}

KTEST(rcu_window_expedited_cookie_held_reader)
{
	static struct xc_step caller_step = { &xc.go, synchronize_rcu_expedited, &xc.exp_done };
	static struct xc_step tourist_step = { &xc.tour_go, synchronize_rcu, &xc.tour_done };
	struct task_struct *caller, *reader, *holder, *tourist;
	struct rcu_stats s;

	WIN_NEEDS_CPUS(3, "needs three CPUs: the expedited caller, the reader and the holder");
	run_on(0);
	memset(&xc, 0, sizeof(xc));
	xc.last = num_online_cpus() - 1;
	rcu_assign_pointer(xc.gp0, win_elem_new(0));
	rcu_assign_pointer(xc.gp, win_elem_new(1));
	KASSERT(rcu_access_pointer(xc.gp0) && rcu_access_pointer(xc.gp));
	rcu_get_stats(&s);
	KASSERT(s.exp_started == s.exp_completed);
	xc.exp0 = s.exp_started;
	caller = kthread_run_on_cpu(xc_run_step, &caller_step, 0, "xc_caller");
	KASSERT(caller);
	xc.caller = caller;
	/* A wait numbered above C, still running when E ends. */
	tourist = kthread_run_on_cpu(xc_run_step, &tourist_step, 0, "xc_tourist");
	reader = kthread_run_on_cpu(xc_reader, NULL, 1, "xc_reader");
	holder = kthread_run_on_cpu(xc_holder, NULL, xc.last, "xc_holder");
	KASSERT(tourist && reader && holder);
	kthread_stop(holder);
	kthread_stop(reader);
	kthread_stop(caller);
	kthread_stop(tourist);
	KEXPECT(xc.tour_done);
	if (xc.c_done_early)
		ktest_info("a cookie taken while the expedited grace period ran read done at its "
			   "end while a reader it could not have waited for held (%s)",
			   xc.reader_saw_dead ? "freed under it" : "not freed");
	KEXPECT(!xc.reader_missed);
	KEXPECT(!xc.hung);
	KEXPECT(!xc.c0_done_early);	/* E waited for R0: not done before that */
	KEXPECT(!xc.c_done_early);	/* E began before C: it cannot complete it */
	KEXPECT(!xc.reader_saw_dead);
	KEXPECT(xc.c_polled);
}
