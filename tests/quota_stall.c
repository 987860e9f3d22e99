/*
 * A full quota stalls nobody else (docs/microkernel.md, "Quotas"): a
 * charge refused under a lock others need -- cap_mutex for a capability
 * node, mm->lock for a page table -- lets go of it before it waits for
 * the frees queued so far (quota_reclaim(), a grace period), so another
 * task's update goes on meanwhile.
 *
 * Deterministic: quota_reclaim()'s test hook holds the refused thread
 * inside the wait for as long as the test likes -- a grace period that
 * does not end -- and the test waits until the other thread's update is
 * done (a correct kernel) or it sleeps on the very lock the held thread
 * holds (quota.inject=reclaim_locked, the old kernel, which waited with
 * cap_mutex held).  No time threshold: the budget only runs out on a hung
 * kernel.
 */
#include "rcu_window.h"
#include "cap_test.h"
#include "user/mm.h"

static struct stall {
	struct task_struct *held;	/* the thread the hook holds in quota_reclaim() */
	bool in_reclaim, release;
	bool held_done, other_done;
	long held_ret, other_ret;
	struct mutex *lock;		/* the lock the other thread needs */
	struct cspace *full, *other;	/* the capability case */
	struct mm_struct *mm;		/* the address-space case */
} st;

static void hold_in_reclaim(struct quota *q)
{
	u64 t0 = ktime_get_ns();

	(void)q;
	if (current != READ_ONCE(st.held))
		return;
	smp_store_release(&st.in_reclaim, true);
	while (!smp_load_acquire(&st.release) && win_budget_left(t0))
		msleep(1);
}

/* The other thread: done, or asleep on the lock the held thread holds. */
static bool other_done_or_stalled(struct task_struct *other)
{
	return smp_load_acquire(&st.other_done) ||
	       (READ_ONCE(st.lock->owner) == st.held && READ_ONCE(other->state) == TASK_BLOCKED);
}

/*
 * Runs held_fn, waits until the hook holds it, runs other_fn, and sees
 * whether other_fn got through while held_fn was still held.
 */
static bool other_goes_on(int (*held_fn)(void *), int (*other_fn)(void *))
{
	struct task_struct *held, *other;
	bool went_on;

	st.in_reclaim = st.release = st.held_done = st.other_done = false;
	quota_reclaim_hook = hold_in_reclaim;
	held = kthread_create_on_cpu(held_fn, NULL, 0, "quota_held");
	KEXPECT(held);
	if (!held)
		return false;
	WRITE_ONCE(st.held, held);
	wake_up_process(held);
	KEXPECT(WIN_WAIT(smp_load_acquire(&st.in_reclaim)));
	other = kthread_run_on_cpu(other_fn, NULL, num_online_cpus() - 1, "quota_other");
	KEXPECT(other);
	if (other)
		WIN_WAIT(other_done_or_stalled(other));
	went_on = smp_load_acquire(&st.other_done);
	ktest_info("while the refused thread waits to reclaim: the other thread's update %s",
		   went_on ? "went on" : "waits for the lock the refused thread holds");
	smp_store_release(&st.release, true);
	WIN_WAIT(smp_load_acquire(&st.held_done) && smp_load_acquire(&st.other_done));
	quota_reclaim_hook = NULL;
	kthread_stop(held);
	if (other)
		kthread_stop(other);
	WRITE_ONCE(st.held, NULL);
	return went_on;
}

static int copy_into_full_space(void *arg)
{
	(void)arg;
	st.held_ret = cap_copy(st.full, 0, SYS_CAP_ANY_SLOT);	/* refused under cap_mutex */
	smp_store_release(&st.held_done, true);
	return 0;
}

static int copy_in_other_space(void *arg)
{
	(void)arg;
	st.other_ret = cap_copy(st.other, 0, SYS_CAP_ANY_SLOT);
	smp_store_release(&st.other_done, true);
	return 0;
}

KTEST(quota_full_does_not_stall_another_spaces_capability_update)
{
	struct test_space full = { .q = quota_create(PAGE_SIZE) }, other = { 0 };
	int copies = 0;

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no quota hooks");
	KASSERT(full.q && test_space_make(&other));
	full.cs = cspace_create(full.q, NULL);
	KASSERT(full.cs);
	KEXPECT_EQ(cap_create(full.cs, KOBJ_ENDPOINT, 0, 0), 0);
	KEXPECT_EQ(cap_create(other.cs, KOBJ_ENDPOINT, 0, 0), 0);
	while (cap_copy(full.cs, 0, SYS_CAP_ANY_SLOT) >= 0)
		copies++;	/* until a node (or a larger table) no longer fits */
	ktest_info("%d copies filled a quota of %lu bytes", copies, PAGE_SIZE);
	st.full = full.cs;
	st.other = other.cs;
	st.lock = &cap_mutex;
	KEXPECT(other_goes_on(copy_into_full_space, copy_in_other_space));
	KEXPECT_EQ(st.held_ret, -ENOMEM);
	KEXPECT(st.other_ret > 0);
	test_space_free(&full);
	test_space_free(&other);
}

/* Where the address-space case maps: two pages 512 GiB apart, so each needs tables of its own. */
#define FIRST	USER_MAP_BASE
#define SECOND	(USER_MAP_BASE + (1UL << 39))

static int map_past_quota(void *arg)
{
	(void)arg;
	/* Its frame fits the quota, a page table does not: refused under mm->lock. */
	st.held_ret = mm_map(st.mm, SECOND, PAGE_SIZE, SYS_PROT_READ | SYS_PROT_WRITE, VM_ANON);
	smp_store_release(&st.held_done, true);
	return 0;
}

static int unmap_first(void *arg)
{
	(void)arg;
	st.other_ret = mm_unmap(st.mm, FIRST, PAGE_SIZE);
	smp_store_release(&st.other_done, true);
	return 0;
}

KTEST(quota_full_does_not_stall_another_threads_address_space_update)
{
	/* The top table, then the first page and its three tables, then one frame more. */
	struct quota *q = quota_create(6 * PAGE_SIZE);

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no quota hooks");
	KASSERT(q);
	st.mm = mm_create(q);
	KASSERT(st.mm);
	KEXPECT_EQ(mm_map(st.mm, FIRST, PAGE_SIZE, SYS_PROT_READ | SYS_PROT_WRITE, VM_ANON),
		   (long)FIRST);
	KEXPECT_EQ(atomic_long_read(&q->used), 5 * PAGE_SIZE);
	st.lock = &st.mm->lock;
	KEXPECT(other_goes_on(map_past_quota, unmap_first));
	KEXPECT_EQ(st.held_ret, -ENOMEM);
	KEXPECT_EQ(st.other_ret, 0);
	mm_put(st.mm);
	KEXPECT_EQ(atomic_long_read(&q->used), 0);
	quota_put(q);
}
