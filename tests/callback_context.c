/*
 * RCU callbacks must not sleep.  They run one after another in rcuc/N, as
 * Linux runs them in softirq context: a callback that blocks delays every
 * callback behind it, one that calls rcu_barrier() waits for itself, and
 * one that calls run_on() moves rcuc/N off the CPU whose lists it works
 * on.  The checking build reports each where it happens; each test here
 * expects that report and runs in a boot of its own.
 */
#include "ktest.h"

#define IN_CALLBACK	"called from RCU callback"

static struct rcu_head cb_head;
static int cb_returned;

/* Queues cb and waits (bounded) for it to return: it should not, it should panic. */
static void run_callback(rcu_callback_t cb)
{
	u64 end = ktime_get_ns() + 10ULL * NSEC_PER_SEC;

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: callbacks are not checked");
	WRITE_ONCE(cb_returned, 0);
	call_rcu(&cb_head, cb);
	while (!READ_ONCE(cb_returned) && ktime_get_ns() < end)
		msleep(10);
	ktest_info("the callback %s", READ_ONCE(cb_returned) ? "returned" : "never returned");
}

static void cb_msleep(struct rcu_head *rh)
{
	(void)rh;
	msleep(1);
	WRITE_ONCE(cb_returned, 1);
}

KTEST_EXPECT_PANIC(callback_that_sleeps_is_reported, "BUG: msleep() " IN_CALLBACK)
{
	run_callback(cb_msleep);
}

static void cb_rcu_barrier(struct rcu_head *rh)
{
	(void)rh;
	rcu_barrier();		/* waits for this very callback: a deadlock */
	WRITE_ONCE(cb_returned, 1);
}

KTEST_EXPECT_PANIC(callback_calling_rcu_barrier_is_reported, "BUG: rcu_barrier() " IN_CALLBACK)
{
	run_callback(cb_rcu_barrier);
}

static void cb_run_on(struct rcu_head *rh)
{
	(void)rh;
	run_on((smp_processor_id() + 1) % num_online_cpus());
	WRITE_ONCE(cb_returned, 1);
}

KTEST_EXPECT_PANIC(callback_calling_run_on_is_reported, "BUG: run_on() " IN_CALLBACK)
{
	run_callback(cb_run_on);
}

static void cb_synchronize_rcu(struct rcu_head *rh)
{
	(void)rh;
	synchronize_rcu();
	WRITE_ONCE(cb_returned, 1);
}

KTEST_EXPECT_PANIC(callback_calling_synchronize_rcu_is_reported,
		   "BUG: synchronize_rcu() " IN_CALLBACK)
{
	run_callback(cb_synchronize_rcu);
}

/* The checks are on the callback, not on rcuc: rcuc itself still yields between callbacks. */
static atomic_t cbs_done;

static void cb_count(struct rcu_head *rh)
{
	(void)rh;
	atomic_inc(&cbs_done);
}

KTEST(callbacks_that_do_not_sleep_run_unreported)
{
	static struct rcu_head heads[100];

	atomic_set(&cbs_done, 0);
	for (int i = 0; i < (int)ARRAY_SIZE(heads); i++)
		call_rcu(&heads[i], cb_count);
	rcu_barrier();
	KEXPECT_EQ(atomic_read(&cbs_done), (int)ARRAY_SIZE(heads));
	KEXPECT(current->rcu_callback == NULL);
}
