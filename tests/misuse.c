/*
 * API misuse ends in a message that teaches: each test here expects a
 * specific panic (or warning) and runs in a boot of its own.
 */
#include "ktest.h"

/* The production build (CHECKING=0) does not check the read side. */
#define SKIP_IF_PRODUCTION()						\
	do {							\
		if (!CONFIG_RCU_CHECKING)				\
			KTEST_SKIP("production build: no read-side checks"); \
	} while (0)

#define ILLEGAL_SWITCH "BUG: Illegal context switch in RCU read-side critical section"

KTEST_EXPECT_PANIC(misuse_schedule_in_rcu_reader, ILLEGAL_SWITCH)
{
	SKIP_IF_PRODUCTION();
	rcu_read_lock();
	schedule();
}

KTEST_EXPECT_PANIC(misuse_cond_resched_in_rcu_reader, ILLEGAL_SWITCH)
{
	SKIP_IF_PRODUCTION();
	rcu_read_lock();
	cond_resched();
}

/*
 * The full line: the SRCU demo (kernel/demo/40_srcu.c) shows this report
 * from a recording, and this boot keeps the recording true.
 */
extern const char srcu_demo_panic_line[];

KTEST_EXPECT_PANIC(misuse_msleep_in_rcu_reader, srcu_demo_panic_line)
{
	SKIP_IF_PRODUCTION();
	rcu_read_lock();
	msleep(1);
}

KTEST_EXPECT_PANIC(misuse_run_on_in_rcu_reader, ILLEGAL_SWITCH)
{
	SKIP_IF_PRODUCTION();
	rcu_read_lock();
	run_on(num_online_cpus() - 1);
}

KTEST_EXPECT_PANIC(misuse_synchronize_rcu_in_rcu_reader, ILLEGAL_SWITCH)
{
	SKIP_IF_PRODUCTION();
	rcu_read_lock();
	synchronize_rcu();	/* would wait for itself: a deadlock without the check */
}

KTEST_EXPECT_PANIC(misuse_rcu_barrier_in_rcu_reader, ILLEGAL_SWITCH)
{
	SKIP_IF_PRODUCTION();
	rcu_read_lock();
	rcu_barrier();
}

KTEST_EXPECT_PANIC(misuse_wait_for_completion_in_rcu_reader, ILLEGAL_SWITCH)
{
	static DECLARE_COMPLETION(never);

	SKIP_IF_PRODUCTION();
	rcu_read_lock();
	wait_for_completion(&never);
}

KTEST_EXPECT_PANIC(misuse_schedule_with_spinlock_held, "BUG: scheduling while atomic")
{
	static DEFINE_SPINLOCK(lock);

	spin_lock(&lock);
	schedule();
}

KTEST_EXPECT_PANIC(misuse_unbalanced_rcu_read_unlock,
		   "BUG: rcu_read_unlock() without a matching rcu_read_lock()")
{
	SKIP_IF_PRODUCTION();
	rcu_read_unlock();
}

KTEST_EXPECT_PANIC(misuse_spinlock_recursion, "BUG: spinlock recursion")
{
	static DEFINE_SPINLOCK(lock);

	spin_lock(&lock);
	spin_lock(&lock);
}

KTEST_EXPECT_PANIC(misuse_kfree_of_a_pointer_kmalloc_never_returned,
		   "not a pointer kmalloc returned")
{
	static char not_from_kmalloc[64];

	kfree(not_from_kmalloc);
}

KTEST_EXPECT_PANIC(misuse_double_kfree, "BUG: double kfree")
{
	void *keep = kmalloc(32, GFP_KERNEL);	/* keeps the slab page alive */
	void *p = kmalloc(32, GFP_KERNEL);

	kfree(p);
	kfree(p);
	kfree(keep);
}

static int *misuse_gp;

KTEST_EXPECT_WARN(misuse_rcu_dereference_outside_reader, "WARNING: suspicious RCU usage")
{
	static int x = 1;
	int *p;

	SKIP_IF_PRODUCTION();
	rcu_assign_pointer(misuse_gp, &x);
	p = rcu_dereference(misuse_gp);		/* no rcu_read_lock(): a warning */
	printk("# the kernel went on: *p is %d\n", *p);
}

static void never_runs(struct rcu_head *head)
{
	(void)head;
}

KTEST_EXPECT_PANIC(misuse_call_rcu_twice_on_one_head, "which is already queued")
{
	static struct rcu_head rh;

	SKIP_IF_PRODUCTION();
	/* Hold the grace period open so the first callback cannot run in between. */
	rcu_read_lock();
	call_rcu(&rh, never_runs);
	call_rcu(&rh, never_runs);
	rcu_read_unlock();
}
