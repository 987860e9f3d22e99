/*
 * A system call's lookup takes no reference (cap_lookup_noref(),
 * docs/microkernel.md, "The reference is the price of sleeping"): the
 * object is valid until the task's next quiescent state, a reference is
 * taken late only before a sleep (cap_ref_hold()), and the checking build
 * catches a reference-free object used after a quiescent state of its
 * task.  The lookup held across the object's last delete on another CPU
 * is tests/cap_window.c's; IPC that sleeps with one is
 * cap.inject=noref_sleep's (CI).
 */
#include "cap_test.h"
#include "object/notification.h"
#include "object/lookup.h"

static struct test_space ts;
static DEFINE_MUTEX(test_mutex);
static DEFINE_SPINLOCK(test_lock);

static void lock_mutex(void)
{
	mutex_lock(&test_mutex);
	mutex_unlock(&test_mutex);
}

static void sleep_a_tick(void)
{
	msleep(1);
}

/* The count the lookup leaves: unchanged, one more once held, and back after the put. */
KTEST(cap_noref_lookup_writes_no_count)
{
	struct cap_ref ref;
	struct kobject *obj;
	int refs;

	KASSERT(test_space_make(&ts));
	KASSERT_EQ(cap_create(ts.cs, KOBJ_NOTIFICATION, 0, 0), 0);
	KASSERT_EQ(cap_lookup(ts.cs, 0, KOBJ_NOTIFICATION, SYS_CAP_READ, &ref), 0);
	obj = ref.obj;
	refs = atomic_read(&obj->refs);		/* the capability's and ours */
	KEXPECT(ref.held);

	KASSERT_EQ(cap_lookup_noref(ts.cs, 0, KOBJ_NOTIFICATION, SYS_CAP_READ, &ref), 0);
	KEXPECT(cap_ref_obj(&ref) == obj);
	/* (the preemptible build keeps the reference: a preemption ends the section) */
	KEXPECT_EQ(ref.held, (bool)CONFIG_PREEMPT);
	KEXPECT_EQ(atomic_read(&obj->refs), refs + CONFIG_PREEMPT);
	KEXPECT_EQ(cap_ref_hold(&ref), 0);
	KEXPECT(ref.held);
	KEXPECT_EQ(atomic_read(&obj->refs), refs + 1);
	KEXPECT_EQ(cap_ref_hold(&ref), 0);	/* once is enough */
	KEXPECT_EQ(atomic_read(&obj->refs), refs + 1);
	cap_ref_put(&ref);
	KEXPECT_EQ(atomic_read(&obj->refs), refs);

	KEXPECT_EQ(cap_lookup_noref(ts.cs, 0, KOBJ_ENDPOINT, 0, &ref), -ENOTSUP);
	KEXPECT_EQ(cap_lookup_noref(ts.cs, 1, KOBJ_NOTIFICATION, 0, &ref), -EBADF);
	kobject_put(obj);
	test_space_free(&ts);
}

/*
 * The checking build's mark: a reference-free lookup is stale after each
 * kind of quiescent point its task can pass (cap_ref_obj() and
 * cap_ref_hold() then panic, naming the call and the object: CI's
 * cap.inject=noref_sleep shows that message), never after a spinlock,
 * and never once it holds a reference.
 */
KTEST(cap_noref_goes_stale_at_each_quiescent_point)
{
	void (*const points[])(void) = { cond_resched, lock_mutex, sleep_a_tick };
	struct cap_ref ref;

	if (!CONFIG_RCU_CHECKING || CONFIG_PREEMPT)
		KTEST_SKIP("only the checking, non-preemptive build checks reference-free lookups");
	KASSERT(test_space_make(&ts));
	KASSERT_EQ(cap_create(ts.cs, KOBJ_NOTIFICATION, 0, 0), 0);
	for (unsigned int i = 0; i < ARRAY_SIZE(points); i++) {
		KASSERT_EQ(cap_lookup_noref(ts.cs, 0, KOBJ_NOTIFICATION, SYS_CAP_READ, &ref), 0);
		spin_lock(&test_lock);
		spin_unlock(&test_lock);
		KEXPECT(!cap_ref_stale(&ref));
		notification_poll(cap_ref_obj(&ref));	/* (checked: no panic) */
		points[i]();
		KEXPECT(cap_ref_stale(&ref));
	}
	KASSERT_EQ(cap_lookup_noref(ts.cs, 0, KOBJ_NOTIFICATION, SYS_CAP_READ, &ref), 0);
	KEXPECT_EQ(cap_ref_hold(&ref), 0);
	cond_resched();
	KEXPECT(!cap_ref_stale(&ref));		/* a held reference outlives the point */
	cap_ref_put(&ref);
	test_space_free(&ts);
}
