/*
 * Spawns abused: children until the quota refuses (-ENOMEM), one a CPU
 * spinning without a system call and the rest asleep for ever (a flood
 * of spinners is slow, not wrong: every blocking call of the spawner
 * waits for each one's slice), all killed and collected, the same number
 * each round and the quota's task count back to zero; and spawn requests
 * that fail late -- a task slot taken or out of range, a capability to
 * pass that is not there -- each refused with nothing left running or
 * charged.
 */
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include "utest.h"
#include "hostile.h"

#define ME		"tests/user/hostile_spawn"
#define MOST		64
#define ROUNDS		2

static int ids[MOST], slots[MOST];

static long tasks(void)
{
	struct sys_quota_info info = quota_now();

	return info.tasks + info.threads;
}

static int bomb(void)
{
	int n = 0, r = 0;

	for (; n < MOST; n++) {
		r = q_spawn_caps(n < q_nr_cpus() ? ME " spin" : ME " sleep", NULL, 0,
				 SYS_CAP_ANY_SLOT);
		if (r < 0)
			break;
		ids[n] = r;
		/* (the task slot: the one a capability to it went to, found by its task) */
	}
	CHECK_EQ(r, -SYS_ENOMEM);
	return n;
}

/* Every task capability we hold, killed and waited for, then deleted. */
static int kill_all(void)
{
	struct sys_cap_info info;
	struct sys_exit_status st;
	int n = 0;

	for (int s = 0; s < SYS_BOOT_SLOT_QUOTA; s++) {
		if (q_cap_inspect(s, &info) || info.type != SYS_OBJ_TASK)
			continue;
		CHECK_EQ(q_kill(s), 0);
		slots[n++] = s;
	}
	for (int i = 0; i < n; i++) {
		CHECK_EQ(q_wait_for(slots[i], &st), 0);
		CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);
		CHECK_EQ(q_cap_delete(slots[i]), 0);
	}
	for (int i = 0; i < n; i++)
		CHECK_EQ(q_task_wait(ids[i], &st), 0);
	return n;
}

static void late_refusals(void)
{
	int ep = q_endpoint_create(SYS_CAP_ANY_SLOT), taken = q_endpoint_create(SYS_CAP_ANY_SLOT);
	int caps[2] = { ep, 500 };
	int bad_slots[] = { taken, SYS_CAP_MAX_SLOTS, INT_MAX, -3 };

	for (unsigned int i = 0; i < sizeof(bad_slots) / sizeof(bad_slots[0]); i++) {
		int r = q_spawn_caps(ME " spin", caps, 1, bad_slots[i]);

		printf("spawn with task slot %d: %d\n", bad_slots[i], r);
		CHECK(r < 0);
	}
	CHECK_EQ(q_spawn_caps(ME " spin", caps, 2, SYS_RECV_SLOT_NONE), -SYS_EBADF);
	CHECK(q_spawn_caps(ME " spin", caps, 9, SYS_RECV_SLOT_NONE) < 0);
	CHECK(q_spawn_caps(ME " spin", caps, -1, SYS_RECV_SLOT_NONE) < 0);
	CHECK_EQ(q_cap_delete(ep), 0);
	CHECK_EQ(q_cap_delete(taken), 0);
}

int main(int argc, char **argv)
{
	int first = -1;
	long before;

	if (argc > 1 && !strcmp(argv[1], "spin"))
		for (;;)
			;
	if (argc > 1 && !strcmp(argv[1], "sleep"))
		for (;;)
			q_sleep_ns(UINT64_MAX);
	printf("hostile_spawn: start\n");
	before = tasks();
	late_refusals();
	CHECK_EQ(wait_given_back(tasks, before), before);
	for (int round = 0; round < ROUNDS; round++) {
		uint64_t t0 = q_clock_ns(), t1;
		int n = bomb(), k;

		t1 = q_clock_ns();

		if (first < 0)
			first = n;
		printf("round %d: %d children before -ENOMEM\n", round, n);
		CHECK_EQ(n, first);
		k = kill_all();
		printf("spawned in %llu ms, killed and collected in %llu ms\n",
		       (unsigned long long)(t1 - t0) / 1000000,
		       (unsigned long long)(q_clock_ns() - t1) / 1000000);
		CHECK_EQ(k, n);
		CHECK_EQ(wait_given_back(tasks, before), before);
	}
	return check_result();
}
