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

/* The name in the report says which API was misused. */
KTEST_EXPECT_PANIC(misuse_call_srcu_twice_on_one_head, "BUG: call_srcu() on rcu_head")
{
	static struct srcu_struct ss;
	static struct rcu_head rh;
	int idx;

	SKIP_IF_PRODUCTION();
	KASSERT_EQ(init_srcu_struct(&ss), 0);
	idx = srcu_read_lock(&ss);	/* the first callback cannot run in between */
	call_srcu(&ss, &rh, never_runs);
	call_srcu(&ss, &rh, never_runs);
	srcu_read_unlock(&ss, idx);
}

/*
 * The double call_rcu() check records queued heads in a table cut into
 * shards; one crowded shard used to switch the check off for the rest of
 * the boot.  Now only heads that find their shard crowded go unchecked:
 * the head queued first, before any crowding, is still caught.
 */
#define CROWD_CHUNKS	24
#define CROWD_PER_CHUNK	1000	/* 24000 heads: well over 256 in some shard of 64 */

KTEST_EXPECT_PANIC(misuse_call_rcu_twice_after_a_crowded_shard, "BUG: call_rcu() on rcu_head")
{
	static struct rcu_head first;
	struct rcu_head *crowd;

	SKIP_IF_PRODUCTION();
	rcu_read_lock();	/* no grace period ends: every head stays queued */
	call_rcu(&first, never_runs);
	for (int c = 0; c < CROWD_CHUNKS; c++) {
		crowd = kmalloc(CROWD_PER_CHUNK * sizeof(*crowd), GFP_KERNEL);
		KASSERT(crowd);
		for (int i = 0; i < CROWD_PER_CHUNK; i++)
			call_rcu(&crowd[i], never_runs);
	}
	call_rcu(&first, never_runs);
	rcu_read_unlock();
}

static struct srcu_struct sleepy_srcu;

static void sleeping_callback(struct rcu_head *head)
{
	(void)head;
	msleep(1);	/* srcu_gp would sleep: every domain's grace periods wait */
}

KTEST_EXPECT_PANIC(misuse_srcu_callback_that_sleeps, "BUG: msleep() called from SRCU callback")
{
	static struct rcu_head rh;

	SKIP_IF_PRODUCTION();
	KASSERT_EQ(init_srcu_struct(&sleepy_srcu), 0);
	call_srcu(&sleepy_srcu, &rh, sleeping_callback);
	srcu_barrier(&sleepy_srcu);
}

static struct srcu_struct leaky_srcu;

static void callback_leaving_srcu_reader_open(struct rcu_head *head)
{
	(void)head;
	srcu_read_lock(&leaky_srcu);	/* and no unlock: rcuc would run on inside it */
}

KTEST_EXPECT_PANIC(misuse_rcu_callback_returning_inside_srcu_read_lock,
		   "returned inside srcu_read_lock()")
{
	static struct rcu_head rh;

	SKIP_IF_PRODUCTION();
	KASSERT_EQ(init_srcu_struct(&leaky_srcu), 0);
	call_rcu(&rh, callback_leaving_srcu_reader_open);
	rcu_barrier();
}

/* rcu_barrier() moves to every CPU in turn: a per-CPU thread may not. */
static int per_cpu_barrier(void *arg)
{
	(void)arg;
	rcu_barrier();
	return 0;
}

KTEST_EXPECT_PANIC(misuse_rcu_barrier_from_a_per_cpu_thread,
		   "BUG: rcu_barrier() from per-CPU thread")
{
	struct task_struct *t = kthread_run_percpu(per_cpu_barrier, NULL, 0, "pcpu_barrier");

	KASSERT(t);
	msleep(1000 * num_online_cpus());	/* it panics; only a broken kernel gets past */
	kthread_stop(t);
}

/* remove_cpu() inside cpus_read_lock(): the writer would wait for its own read hold. */
KTEST_EXPECT_PANIC(misuse_remove_cpu_inside_cpus_read_lock, "which holds cpus_read_lock()")
{
	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	cpus_read_lock();
	remove_cpu(1);
	cpus_read_unlock();
}

/*
 * The reverse order: cpus_read_lock() by the task that holds
 * cpus_write_lock() (a remove_cpu() path that calls rcu_barrier(), say)
 * would wait for its own write hold, for ever and silently.  (The check is
 * the same in both builds: a boot of its own in the checking build only.)
 */
#if CONFIG_RCU_CHECKING
KTEST_EXPECT_PANIC(misuse_cpus_read_lock_inside_cpus_write_lock, "which holds cpus_write_lock()")
{
	cpus_write_lock();
	cpus_read_lock();
	cpus_read_unlock();
	cpus_write_unlock();
}
#endif
