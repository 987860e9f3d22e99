/*
 * A revoke drops cap_mutex between batches of deletions; meanwhile
 * everything under it is revoking: nothing can be copied, minted, moved
 * or sent from it, its root cannot be deleted or revoked again, and the
 * capabilities still there work until they are deleted.  Afterwards the
 * root is whole again.  (The hook runs between two batches, the mutex
 * released: tests try each derivation there.)
 */
#include "cap_test.h"
#include "object/lookup.h"

#define CHILDREN	40	/* three batches and a bit */

static struct test_space ts, other;
static int hook_runs;
static int results[8];

/* A capability still under the revoke (a child not deleted yet). */
static long remaining_child(struct cspace *cs)
{
	for (long s = 1; s <= CHILDREN + 1; s++) {
		struct cap_ref ref;

		if (!cap_lookup(cs, s, KOBJ_ENDPOINT, 0, &ref)) {
			kobject_put(ref.obj);
			return s;
		}
	}
	return -1;
}

static void between_batches(struct cspace *cs, long slot)
{
	long child = remaining_child(cs);
	struct cap_ref ref;

	if (hook_runs++ || child < 0)
		return;
	results[0] = cap_copy(cs, slot, SYS_CAP_ANY_SLOT);
	results[1] = cap_mint(cs, child, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 5);
	results[2] = cap_move(cs, child, 200);
	results[3] = cap_transfer(cs, child, other.cs, 0, false);
	results[4] = cap_delete(cs, slot);
	results[5] = cap_revoke(cs, child);
	results[6] = cap_lookup(cs, child, KOBJ_ENDPOINT, SYS_CAP_WRITE, &ref);
	if (!results[6])
		kobject_put(ref.obj);
	results[7] = cap_delete(cs, child);
}

KTEST(cap_revoke_nothing_escapes_while_it_drops_the_lock)
{
	struct sys_cap_info info;

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no revoke hook");
	KASSERT(test_space_make(&ts) && test_space_make(&other));
	KASSERT_EQ(cap_create(ts.cs, KOBJ_ENDPOINT, 0, 0), 0);
	for (int i = 1; i <= CHILDREN; i++)
		KASSERT_EQ(cap_copy(ts.cs, 0, i), i);
	KASSERT_EQ(cap_copy(ts.cs, 1, CHILDREN + 1), CHILDREN + 1);	/* a grandchild */
	hook_runs = 0;
	memset(results, 0, sizeof(results));
	cap_revoke_batch_hook = between_batches;
	KEXPECT_EQ(cap_revoke(ts.cs, 0), CHILDREN + 1 - 1);	/* less the one the hook deleted */
	cap_revoke_batch_hook = NULL;
	KEXPECT(hook_runs >= 2);
	KEXPECT_EQ(results[0], -EBUSY);		/* copy of the root */
	KEXPECT_EQ(results[1], -EBUSY);		/* mint of a child */
	KEXPECT_EQ(results[2], -EBUSY);		/* move of a child */
	KEXPECT_EQ(results[3], -EBUSY);		/* a child sent to another space */
	KEXPECT_EQ(results[4], -EBUSY);		/* delete of the root */
	KEXPECT_EQ(results[5], -EBUSY);		/* a revoke inside the revoke */
	KEXPECT_EQ(results[6], 0);		/* still usable until deleted */
	KEXPECT_EQ(results[7], 0);		/* and deletable */
	KEXPECT_EQ(cap_inspect(ts.cs, 0, &info), 0);
	KEXPECT_EQ(info.children, 0);
	KEXPECT_EQ(info.revoking, 0);
	KEXPECT_EQ(cap_inspect(other.cs, 0, &info), -EBADF);
	KEXPECT_EQ(cap_copy(ts.cs, 0, 1), 1);	/* the root derives again */
	test_space_free(&other);
	test_space_free(&ts);
}
