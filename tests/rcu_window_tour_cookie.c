/*
 * The tour half of a polled cookie.  A synchronize_rcu() tour T has
 * already visited the reader's CPU when a reader starts there; T is still
 * running (held up on the last CPU) when the updater takes a cookie while
 * that reader holds an element.  T then ends.  T started before the
 * cookie, so it says nothing about the reader: the cookie must not read
 * done until the reader leaves.  A poll that counts a tour that merely
 * ended after the cookie was taken says done here, every time.
 *
 *   reader   on CPU 0: yields until T has passed through CPU 0 and is
 *            queued on the last CPU, then holds;
 *   tourist  on the last CPU: runs synchronize_rcu() (T), home there;
 *   holder   on the last CPU: busy (no switch) while T waits for it,
 *            takes the cookie, then lets T finish and polls.
 */
#include "rcu_window.h"

static struct {
	struct task_struct *tourist;
	int reader_cpu, last_cpu;
	int tour_started, tour_done;	/* tourist */
	int holding, done;		/* reader */
	int polled, release;		/* holder */
	bool done_early;		/* the cookie read done while the reader held */
	bool missed, hung;
} tc;

static int tc_tourist(void *arg)
{
	(void)arg;
	smp_store_release(&tc.tour_started, 1);
	synchronize_rcu();
	smp_store_release(&tc.tour_done, 1);
	return 0;
}

static int tc_reader(void *arg)
{
	u64 t0 = ktime_get_ns();
	bool passed = false;

	(void)arg;
	/*
	 * Yield until T has run here (its first stop: the tourist has been
	 * switched in a second time) and is queued on the last CPU.  A T
	 * that has already ended never will be: the holder keeps it on the
	 * last CPU until we hold, so only a tour that skipped a CPU or
	 * waited for nothing ends first, and the window is missed.
	 */
	while (win_budget_left(t0)) {
		passed = smp_load_acquire(&tc.tour_started) && READ_ONCE(tc.tourist->switches) >= 2 &&
			 READ_ONCE(tc.tourist->cpu) == tc.last_cpu;
		if (passed || smp_load_acquire(&tc.tour_done))
			break;
		cond_resched();
	}
	rcu_read_lock();
	tc.missed = !passed || smp_load_acquire(&tc.tour_done);
	smp_store_release(&tc.holding, 1);
	while (!smp_load_acquire(&tc.release) && win_budget_left(t0))
		udelay(2);
	tc.hung = !win_budget_left(t0);
	rcu_read_unlock();
	smp_store_release(&tc.done, 1);
	return 0;
}

static int tc_holder(void *arg)
{
	unsigned long cookie;
	u64 t0 = ktime_get_ns();

	(void)arg;
	/* Let the tourist start from here, then keep this CPU: T will wait for us. */
	while (!smp_load_acquire(&tc.tour_started) && win_budget_left(t0))
		cond_resched();
	while (!smp_load_acquire(&tc.holding) && win_budget_left(t0))
		udelay(2);
	cookie = get_state_synchronize_rcu();
	/* Now T may finish: it was queued here, behind us. */
	while (!smp_load_acquire(&tc.tour_done) && win_budget_left(t0))
		cond_resched();
	tc.done_early = poll_state_synchronize_rcu(cookie);
	smp_store_release(&tc.release, 1);
	while (!smp_load_acquire(&tc.done) && win_budget_left(t0))
		cond_resched();
	cond_synchronize_rcu(cookie);
	tc.polled = poll_state_synchronize_rcu(cookie);
	return 0;
}

KTEST(rcu_window_tour_cookie_held_reader)
{
	struct task_struct *reader, *holder;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the reader and the tour's last stop");
	run_on(0);
	memset(&tc, 0, sizeof(tc));
	tc.reader_cpu = 0;
	tc.last_cpu = num_online_cpus() - 1;
	/* The holder first, so that it runs as soon as the tourist leaves. */
	holder = kthread_run_on_cpu(tc_holder, NULL, tc.last_cpu, "tc_holder");
	tc.tourist = kthread_run_on_cpu(tc_tourist, NULL, tc.last_cpu, "tc_tourist");
	reader = kthread_run_on_cpu(tc_reader, NULL, tc.reader_cpu, "tc_reader");
	KASSERT(holder && tc.tourist && reader);
	kthread_stop(reader);
	kthread_stop(holder);
	kthread_stop(tc.tourist);
	if (tc.missed)
		ktest_info("the reader did not start between T's visit and T's end");
	KEXPECT(!tc.missed);
	KEXPECT(!tc.hung);
	/* T began before the cookie: it cannot complete it. */
	KEXPECT(!tc.done_early);
	KEXPECT(tc.polled);
}
