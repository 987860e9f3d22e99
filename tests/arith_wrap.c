/*
 * RCU's counters cross their wrap, and nothing notices.
 *
 * gp_seq starts 300 grace periods below the wrap and the polled API's
 * wait numbers 300 below theirs (kernel/rcu/rcu.h), as Linux's gp_seq
 * does, so a comparison that is not wrap-safe (a plain < or >, or 32-bit
 * halves) breaks once a boot has run about 300 grace periods instead of
 * after 2^63.  A short boot (a graded part, one test) never gets there:
 * this test drives grace periods one at a time across both wraps, and at
 * each it checks that a fresh cookie is not done, that it is done once
 * its grace period ended, that a cookie from before the wrap stays done,
 * and that a callback queued just before each grace period runs.  It runs first (tests run in file-name order, and this name sorts
 * first): the runner's rcu_barrier() before and after each test ends
 * grace periods too, more with more CPUs (at 32 and 64 CPUs, seven tests
 * sorted before this one used up all 300), and once both counters are
 * past the wrap this test has nothing left to cross and skips.
 */
#include "ktest.h"

#define WRAP_TIMEOUT_NS	ktest_budget_ns(10, 2)

static atomic_t wrap_cbs;

static void wrap_cb(struct rcu_head *rh)
{
	(void)rh;
	atomic_inc(&wrap_cbs);
}

static long gp_seq_now(void)
{
	struct rcu_stats s;

	rcu_get_stats(&s);
	return (long)s.gp_seq;
}

/* One asynchronous grace period, checked from both ends; false on a timeout. */
static bool one_grace_period(unsigned long before_wrap)
{
	static struct rcu_head rh;
	int cbs = atomic_read(&wrap_cbs);
	u64 end = ktime_get_ns() + WRAP_TIMEOUT_NS;
	long queued_at = gp_seq_now();
	unsigned long cookie;

	call_rcu(&rh, wrap_cb);
	cookie = start_poll_synchronize_rcu();
	/* This CPU has not passed a quiescent state since: nothing it waits for has ended. */
	KEXPECT(!poll_state_synchronize_rcu(cookie));
	while (!poll_state_synchronize_rcu(cookie) || atomic_read(&wrap_cbs) == cbs) {
		if (ktime_get_ns() > end) {
			long now = gp_seq_now();

			ktest_info("stuck: gp_seq is %ld; the callback queued at gp_seq %ld has %s, "
				   "the cookie %ld taken then reads %s", now, queued_at,
				   atomic_read(&wrap_cbs) == cbs ? "not run" : "run", (long)cookie,
				   poll_state_synchronize_rcu(cookie) ? "done" : "not done");
			if (now > -16 && now < 16)
				ktest_info("gp_seq has just crossed the wrap of its unsigned long (it "
					   "starts 300 grace periods below it): compare grace-period "
					   "numbers only with rcu_seq_done(), never with < or >=");
			return false;
		}
		cond_resched();		/* our quiescent state */
	}
	KEXPECT(poll_state_synchronize_rcu(before_wrap));
	return true;
}

KTEST(counters_cross_the_wrap)
{
	unsigned long first = get_state_synchronize_rcu();
	long start_seq = gp_seq_now();
	int n = 0;

	if (start_seq >= 0 && (long)first >= 0)
		KTEST_SKIP("both counters crossed the wrap before this test ran: "
			   "run it first (TESTS=counters_cross_the_wrap)");
	atomic_set(&wrap_cbs, 0);
	/* Until both counters are past zero, and a few grace periods beyond. */
	while ((gp_seq_now() < 4 || (long)get_state_synchronize_rcu() < 2) && n < 1000) {
		KASSERT(one_grace_period(first));
		n++;
	}
	ktest_info("%d grace periods: gp_seq %ld -> %ld, wait number %ld -> %ld", n,
		   start_seq, gp_seq_now(), (long)first, (long)get_state_synchronize_rcu());
	KEXPECT(gp_seq_now() >= 4);
	KEXPECT((long)get_state_synchronize_rcu() >= 2);
	KEXPECT(poll_state_synchronize_rcu(first));
	/* The tour half too: a cookie taken now is done once synchronize_rcu() returns. */
	first = get_state_synchronize_rcu();
	KEXPECT(!poll_state_synchronize_rcu(first));
	synchronize_rcu();
	KEXPECT(poll_state_synchronize_rcu(first));
	rcu_barrier();
	KEXPECT_EQ(atomic_read(&wrap_cbs), n);
}
