/*
 * The capability space pushed to its ends: filled to the last slot
 * (-ENOSPC after), slots past the end and negative ones (-EBADF), a
 * derivation chain as deep as the space holds revoked from its root and
 * deleted from its middle, a derivation tree as wide, and the whole done
 * in cycles: every round must fit as many as the first and leave the
 * quota's object count where it began.
 */
#include <stdio.h>
#include <limits.h>
#include <string.h>
#include "utest.h"
#include "hostile.h"

#define ROUNDS		3

static long objects(void)
{
	return quota_now().objects;
}

static void bad_slots(int ep)
{
	struct sys_cap_info info;
	int bad[] = { SYS_CAP_MAX_SLOTS, SYS_CAP_MAX_SLOTS + 1, INT_MAX, INT_MIN, -2, -3 };

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(q_cap_copy(ep, bad[i]), -SYS_EBADF);
		CHECK_EQ(q_cap_copy(bad[i], SYS_CAP_ANY_SLOT), -SYS_EBADF);
		CHECK_EQ(q_cap_move(ep, bad[i]), -SYS_EBADF);
		CHECK_EQ(q_cap_delete(bad[i]), -SYS_EBADF);
		CHECK_EQ(q_cap_revoke(bad[i]), -SYS_EBADF);
		CHECK_EQ(q_cap_inspect(bad[i], &info), -SYS_EBADF);
		CHECK_EQ(q_endpoint_create(bad[i]), -SYS_EBADF);
	}
	CHECK_EQ(q_cap_delete(SYS_CAP_ANY_SLOT), -SYS_EBADF);
	CHECK_EQ(q_cap_move(ep, ep), ep);		/* onto itself: nothing moves */
	CHECK_EQ(q_cap_inspect(ep, &info), 0);
	CHECK_EQ(info.type, SYS_OBJ_ENDPOINT);
}

/* Copies of ep in every empty slot: how many, then -ENOSPC. */
static int fill(int ep, int *slots)
{
	int n = 0, r;

	while ((r = q_cap_copy(ep, SYS_CAP_ANY_SLOT)) >= 0)
		slots[n++] = r;
	CHECK_EQ(r, -SYS_ENOSPC);
	CHECK_EQ(q_endpoint_create(SYS_CAP_ANY_SLOT), -SYS_ENOSPC);
	CHECK_EQ(q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_READ, 1), -SYS_ENOSPC);
	return n;
}

static int slots[SYS_CAP_MAX_SLOTS];

static void chain(int ep)
{
	struct sys_cap_info info;
	int n = 0, last = ep, r;

	while ((r = q_cap_copy(last, SYS_CAP_ANY_SLOT)) >= 0)
		slots[n++] = last = r;
	CHECK_EQ(r, -SYS_ENOSPC);
	CHECK_EQ(q_cap_inspect(last, &info), 0);
	CHECK_EQ(info.parent_slot, n > 1 ? slots[n - 2] : ep);
	/* Delete the middle: its child moves up to its parent. */
	CHECK_EQ(q_cap_delete(slots[n / 2]), 0);
	CHECK_EQ(q_cap_inspect(slots[n / 2 + 1], &info), 0);
	CHECK_EQ(info.parent_slot, slots[n / 2 - 1]);
	/* A revoke from the root reaches the bottom of a chain n deep. */
	CHECK_EQ(q_cap_revoke(ep), n - 1);
	CHECK_EQ(q_cap_inspect(ep, &info), 0);
	CHECK_EQ(info.children, 0);
	printf("chain of %d revoked\n", n);
}

static void wide(int ep)
{
	int n = fill(ep, slots);
	struct sys_cap_info info;

	CHECK_EQ(q_cap_inspect(ep, &info), 0);
	CHECK_EQ(info.children, n);
	CHECK_EQ(q_cap_revoke(ep), n);
	/* Now fill again, then delete one by one from the end. */
	CHECK_EQ(fill(ep, slots), n);
	for (int i = n - 1; i >= 0; i--)
		CHECK_EQ(q_cap_delete(slots[i]), 0);
}

int main(void)
{
	long before;
	int first = -1;

	printf("hostile_cap_table: start\n");
	before = objects();
	for (int round = 0; round < ROUNDS; round++) {
		int ep = q_endpoint_create(SYS_CAP_ANY_SLOT), n;

		CHECK(ep >= 0);
		bad_slots(ep);
		/* The table grows to its end at once for the last slot. */
		CHECK_EQ(q_cap_copy(ep, SYS_CAP_MAX_SLOTS - 1), SYS_CAP_MAX_SLOTS - 1);
		n = fill(ep, slots);
		if (first < 0)
			first = n;
		CHECK_EQ(n, first);
		CHECK_EQ(q_cap_revoke(ep), n + 1);
		chain(ep);
		wide(ep);
		CHECK_EQ(q_cap_delete(ep), 0);
		CHECK_EQ(wait_given_back(objects, before), before);
	}
	printf("hostile_cap_table: %d copies fit\n", first);
	return check_result();
}
