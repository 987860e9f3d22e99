/*
 * The polled API keeps up with its own callbacks (docs/rcu.md, "Asynchronous
 * grace periods"): a cookie taken before call_rcu() is done once the
 * callback has run, and one taken before a per-CPU thread's
 * synchronize_rcu() (which waits for a callback: no tour) is done once
 * that call returns -- a Linux-style WARN_ON(!poll_state_synchronize_rcu(c))
 * after either never fires.
 *
 * The window: rcu_gp_end() tells the callbacks (gp_seq) and the polled API
 * (waits_done) that the grace period ended, one after the other; a
 * callback may run as soon as it sees gp_seq.  So rcu_gp_end() tells the
 * polled API first.  A callback's CPU seldom looks at gp_seq in the few
 * instructions between the two stores, so the end-to-end checks below
 * would pass most runs of the wrong order; the first test checks at the
 * seam instead: at the moment gp_seq shows a grace period ended
 * (rcu_gp_end_hook, checking build), every cookie taken before that grace
 * period began must already poll done.  White-box (kernel/rcu/rcu.h): the
 * seam, and the ending grace period's wait number.
 */
#include "ktest.h"
#include "rcu/rcu.h"

#define PL_ROUNDS	8

static struct {
	int checked, late;
	unsigned long late_cookie, late_done;
} pl;

/* At the end of every grace period: a cookie taken before it began is done. */
static void pl_check_at_gp_end(unsigned long gp_seq)
{
	unsigned long before = rcu_state.gp_wait - 1;	/* the last cookie before it began */

	(void)gp_seq;
	pl.checked++;
	if (!poll_state_synchronize_rcu(before)) {
		pl.late++;
		pl.late_cookie = before;
		pl.late_done = READ_ONCE(rcu_state.waits_done);
	}
}

struct pl_cb {
	struct rcu_head rh;
	unsigned long cookie;
	int ran, cookie_done;
};

static void pl_cb_fn(struct rcu_head *rh)
{
	struct pl_cb *c = container_of(rh, struct pl_cb, rh);

	c->cookie_done = poll_state_synchronize_rcu(c->cookie);
	smp_store_release(&c->ran, 1);
}

/* A cookie, then a callback: when the callback runs, the cookie polls done. */
static int pl_callbacks(void)
{
	struct pl_cb c[PL_ROUNDS];
	int late = 0;

	for (int i = 0; i < PL_ROUNDS; i++) {
		c[i].ran = c[i].cookie_done = 0;
		c[i].cookie = get_state_synchronize_rcu();
		call_rcu(&c[i].rh, pl_cb_fn);
		if (i % 2)
			msleep(1);	/* some in one grace period, some in the next */
	}
	rcu_barrier();
	for (int i = 0; i < PL_ROUNDS; i++)
		late += c[i].ran && !c[i].cookie_done;
	return late;
}

/* A per-CPU thread's synchronize_rcu() (a callback underneath) completes an earlier cookie. */
static int pl_sync_late;

static int pl_percpu_sync(void *arg)
{
	(void)arg;
	for (int i = 0; i < PL_ROUNDS; i++) {
		unsigned long c = get_state_synchronize_rcu();

		synchronize_rcu();
		pl_sync_late += !poll_state_synchronize_rcu(c);
	}
	return 0;
}

static int pl_sync_from_percpu_thread(void)
{
	struct task_struct *t;

	pl_sync_late = 0;
	t = kthread_run_percpu(pl_percpu_sync, NULL, num_online_cpus() - 1, "pl_sync");
	if (!t)
		return -1;
	kthread_stop(t);
	return pl_sync_late;
}

KTEST(rcu_poll_a_cookie_is_done_when_callbacks_see_its_grace_period_end)
{
	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no seam in rcu_gp_end()");
	memset(&pl, 0, sizeof(pl));
	WRITE_ONCE(rcu_gp_end_hook, pl_check_at_gp_end);
	KEXPECT_EQ(pl_callbacks(), 0);
	KEXPECT_EQ(pl_sync_from_percpu_thread(), 0);
	WRITE_ONCE(rcu_gp_end_hook, NULL);
	synchronize_rcu();	/* no CPU is still in the hook */
	if (pl.late)
		ktest_info("%d of %d grace periods ended for their callbacks while cookie %ld, "
			   "taken before they began, still polled not done (waits_done %ld)",
			   pl.late, pl.checked, (long)pl.late_cookie, (long)pl.late_done);
	KEXPECT(pl.checked > 0);
	KEXPECT_EQ(pl.late, 0);
}

/* The same promise without the seam: what a caller sees (the production build too). */
KTEST(rcu_poll_a_cookie_is_done_after_its_callback_and_per_cpu_synchronize_rcu)
{
	KEXPECT_EQ(pl_callbacks(), 0);
	KEXPECT_EQ(pl_sync_from_percpu_thread(), 0);
}
