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

static struct test_space ts;

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

KTEST_EXPECT_PANIC(cap_noref_used_after_cond_resched_is_caught,
		   "BUG: ktest_fn_cap_noref_used_after_cond_resched_is_caught's reference-free notification")
{
	struct cap_ref ref;

	if (!CONFIG_RCU_CHECKING || CONFIG_PREEMPT)
		KTEST_SKIP("only the checking, non-preemptive build checks reference-free lookups");
	KASSERT(test_space_make(&ts));
	KASSERT_EQ(cap_create(ts.cs, KOBJ_NOTIFICATION, 0, 0), 0);
	KASSERT_EQ(cap_lookup_noref(ts.cs, 0, KOBJ_NOTIFICATION, SYS_CAP_READ, &ref), 0);
	cond_resched();		/* a quiescent state, always: the object may be gone */
	notification_poll(cap_ref_obj(&ref));
	KEXPECT(!"the use after cond_resched() was caught");
}
