/*
 * RCU's counters cross their wrap, and nothing notices.
 *
 * gp_seq starts 300 grace periods below the wrap and the polled API's
 * wait numbers 300 below theirs (kernel/rcu/rcu.h), as Linux's gp_seq
 * does, so a comparison that is not wrap-safe (a plain < or >, or 32-bit
 * halves) breaks once a boot has run about 300 grace periods instead of
 * after 2^63.  A short boot (a graded part, one test) never gets there:
 * this test drives grace periods a few at a time across both wraps, and
 * at each step it checks that a fresh cookie is not done, that it is done
 * once its grace period ended, that a cookie from before the wrap stays
 * done, and that a callback queued at the step runs.  It runs first
 * (tests run in file-name order, and this name sorts first): the
 * runner's rcu_barrier() before and after each test ends
 * grace periods too, more with more CPUs (at 32 and 64 CPUs, seven tests
 * sorted before this one used up all 300), and once both counters are
 * past the wrap this test has nothing left to cross and skips.
 *
 * At each step two grace periods end before the callback's CPU may
 * invoke it: a callback is then checked against a gp_seq that is one
 * grace period past its own, which at the step that crosses the wrap
 * lies on the other side of it.  (With one grace period per step, rcuc
 * saw gp_seq equal to the callback's number every time, and a plain >=
 * passed.)
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

/*
 * Ends grace periods until gp_seq reaches target (signed: they are near
 * zero), holding this CPU: we pass quiescent states as a long loop does
 * (rcu_note_context_switch()) but never switch, so this CPU's rcuc thread
 * cannot run meanwhile.  False when the budget ran out.
 */
static bool end_grace_periods_holding_cpu(long target, u64 end)
{
	while (gp_seq_now() < target) {
		unsigned long cookie = start_poll_synchronize_rcu();

		while (!poll_state_synchronize_rcu(cookie)) {
			if (ktime_get_ns() > end)
				return false;
			rcu_note_context_switch();	/* our quiescent state */
			udelay(2);
		}
	}
	return true;
}

/* gp_seq when the test began: below the wrap, unless it skips. */
static long wrap_start_seq;

/*
 * The wrap is to blame when gp_seq crossed it during the test: at this
 * step (the callback's number below zero, gp_seq above), or at an
 * earlier one, where some other callback of this CPU's (the boot's
 * object frees queue theirs too) was left waiting for a number from
 * before the wrap, and holds back every callback queued after it.
 */
static void explain_stuck(long snap, long now, bool cb_ran, bool cookie_done)
{
	ktest_info("stuck: the callback queued for grace period %ld has %s though gp_seq "
		   "is %ld; the cookie taken with it reads %s", snap, cb_ran ? "run" : "not run",
		   now, cookie_done ? "done" : "not done");
	if ((snap < 0 || wrap_start_seq < 0) && now >= 0)
		ktest_info("gp_seq crossed the wrap of its unsigned long during this test (it "
			   "starts 300 grace periods below it; a callback left waiting for a "
			   "number from before the wrap holds back every later one): compare "
			   "grace-period numbers only with rcu_seq_done(), never with < or >=");
}

/*
 * One step: a callback queued on this CPU, then its grace period and one
 * more end before this CPU's rcuc thread may run, so that rcuc finds
 * gp_seq past the callback's number, and on the other side of the wrap
 * at the step that crosses it (a callback for -2 or -4 waits until gp_seq
 * reads 0).  Then the callback must run, and the cookies read right.
 * False on a timeout.
 */
static bool one_step(unsigned long before_wrap)
{
	static struct rcu_head rh;
	int cbs = atomic_read(&wrap_cbs);
	u64 end = ktime_get_ns() + WRAP_TIMEOUT_NS;
	long snap, target;
	unsigned long cookie;

	call_rcu(&rh, wrap_cb);
	/* rcu_seq_snap() read after call_rcu(): the callback's grace period, or a later one. */
	snap = (gp_seq_now() + 3) & ~1L;
	target = snap + 2;
	cookie = start_poll_synchronize_rcu();
	/* This CPU has not passed a quiescent state since: nothing it waits for has ended. */
	KEXPECT(!poll_state_synchronize_rcu(cookie));
	if (snap == -4 || snap == -2)
		target = 0;		/* this step crosses the wrap */
	if (!end_grace_periods_holding_cpu(target, end)) {
		explain_stuck(snap, gp_seq_now(), false, poll_state_synchronize_rcu(cookie));
		return false;
	}
	while (!poll_state_synchronize_rcu(cookie) || atomic_read(&wrap_cbs) == cbs) {
		if (ktime_get_ns() > end) {
			explain_stuck(snap, gp_seq_now(), atomic_read(&wrap_cbs) != cbs,
				      poll_state_synchronize_rcu(cookie));
			return false;
		}
		cond_resched();		/* rcuc's turn */
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
	wrap_start_seq = start_seq;
	/* Until both counters are past zero, and a few grace periods beyond. */
	while ((gp_seq_now() < 4 || (long)get_state_synchronize_rcu() < 2) && n < 1000) {
		KASSERT(one_step(first));
		n++;
	}
	ktest_info("%d steps: gp_seq %ld -> %ld, wait number %ld -> %ld", n,
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

/*
 * The polled API at every cookie around both wraps, placed there on
 * purpose (not wherever the boot left the count): the wait numbers are
 * moved forward (rcu_poll_skip_waits(), a seam: numbers no wait takes,
 * which is safe) until the next cookie is exactly the one wanted, from
 * 3 below the signed wrap (LONG_MAX to LONG_MIN) to 3 above it, then from
 * 3 below the unsigned wrap to 3 above it, 0 included.  At each: taken
 * inside a reader, the cookie is not done (no wait numbered above it can
 * end while this CPU reads); after synchronize_rcu() it is, and so is the
 * value before it (across the wrap, for the first above it); cond_synchronize_rcu() returns at once on it; a cookie
 * from start_poll_synchronize_rcu() is completed by the grace period it
 * asked for.  Leaves the count just past the unsigned wrap, where a boot
 * of about 300 waits would be (counters_cross_the_wrap skips then).
 * White-box (kernel/rcu/rcu.h): the seam, and waits_started to aim it.
 */
#include "rcu/rcu.h"

#define POLL_AROUND	3		/* cookies each side of a wrap */
#define POLL_HOP	(1UL << 62)	/* the largest skip: old cookies stay comparable */
#define POLL_AIM_TRIES	3

/* The next cookie, as get_state_synchronize_rcu() will return it. */
static unsigned long next_cookie(void)
{
	return atomic_long_read(&rcu_state.waits_started);
}

/*
 * Moves the count forward until the next cookie is target: skips of at
 * most POLL_HOP, each longer journey ending a real wait after every hop
 * so that older cookies stay done and comparable.  (Another wait may take
 * a number between our skip and our cookie: the caller aims again, all
 * the way round.)
 */
static void aim_cookie(unsigned long target)
{
	for (int hop = 0; hop < 8; hop++) {
		unsigned long d = target - next_cookie();

		if (d <= POLL_HOP) {
			rcu_poll_skip_waits(d);
			return;
		}
		rcu_poll_skip_waits(POLL_HOP);
		synchronize_rcu();
	}
}

/* The polled API at cookie `want`; false if another wait took the number first. */
static bool poll_at(unsigned long want)
{
	unsigned long c, s;
	u64 end = ktime_get_ns() + WRAP_TIMEOUT_NS;
	bool fresh_done;

	aim_cookie(want);
	rcu_read_lock();	/* no wait can end while this CPU reads */
	c = get_state_synchronize_rcu();
	fresh_done = poll_state_synchronize_rcu(c);
	rcu_read_unlock();
	if (c != want)
		return false;
	if (fresh_done)
		ktest_info("cookie %ld (%#lx) polled done as it was taken", (long)c, c);
	KEXPECT(!fresh_done);
	synchronize_rcu();
	if (!poll_state_synchronize_rcu(c) || !poll_state_synchronize_rcu(c - 1))
		ktest_info("after synchronize_rcu(): cookie %#lx polls %s, the one before (%#lx) %s",
			   c, poll_state_synchronize_rcu(c) ? "done" : "not done", c - 1,
			   poll_state_synchronize_rcu(c - 1) ? "done" : "not done");
	KEXPECT(poll_state_synchronize_rcu(c));
	KEXPECT(poll_state_synchronize_rcu(c - 1));
	cond_synchronize_rcu(c);
	s = start_poll_synchronize_rcu();
	while (!poll_state_synchronize_rcu(s) && ktime_get_ns() < end)
		msleep(1);
	KEXPECT(poll_state_synchronize_rcu(s));
	return true;
}

/* Every cookie from POLL_AROUND below wrap to POLL_AROUND above it. */
static void poll_around(unsigned long wrap)
{
	for (long k = -POLL_AROUND; k <= POLL_AROUND; k++) {
		int tries = 0;

		while (!poll_at(wrap + k) && ++tries < POLL_AIM_TRIES)
			;
		if (tries == POLL_AIM_TRIES)
			ktest_info("cookie %#lx: another wait took the number %d times", wrap + k,
				   tries);
		KEXPECT(tries < POLL_AIM_TRIES);
	}
}

KTEST(polled_cookies_around_both_wraps_zero_included)
{
	poll_around(1UL << 63);		/* LONG_MAX, LONG_MIN */
	poll_around(0);			/* ULONG_MAX, 0 */
	KEXPECT((long)next_cookie() > 0);
}
