/*
 * For the hostile_*.c programs: what they measure after they abused the
 * kernel -- one of their quota's counts, and a wait until it is back
 * where it began (what a program deleted stays charged until a grace
 * period frees it), bounded so that a leak fails instead of hanging --
 * and how they kill and collect a thread.
 */
#ifndef HOSTILE_H
#define HOSTILE_H

#include <string.h>
#include "qcap.h"
#include "utest.h"

#define GIVE_BACK_MS	5000

/* Our quota's counts (docs/microkernel.md, "Quotas"); all -1 if it cannot be read. */
static inline struct sys_quota_info quota_now(void)
{
	struct sys_quota_info info;

	if (q_quota_info(SYS_BOOT_SLOT_QUOTA, &info))
		memset(&info, 0xff, sizeof(info));
	return info;
}

/* Waits until count() is down to before, or GIVE_BACK_MS passed: count()'s last value. */
static inline long wait_given_back(long (*count)(void), long before)
{
	uint64_t end = q_clock_ns() + GIVE_BACK_MS * 1000000ULL;
	long now;

	while ((now = count()) > before && q_clock_ns() < end)
		q_sleep_ns(2000000);
	return now;
}

/*
 * Kills thread tid through its capability cap and collects it both ways
 * -- the capability's wait, then the join -- each saying it was killed
 * as `killed`; the capability goes.
 */
static inline void kill_and_collect(int tid, int cap, int killed)
{
	struct sys_exit_status st;

	CHECK_EQ(q_kill(cap), 0);
	CHECK_EQ(q_wait_for(cap, &st), 0);
	CHECK_EQ(st.killed, killed);
	CHECK_EQ(q_cap_delete(cap), 0);
	CHECK_EQ(q_thread_join(tid, &st), 0);
	CHECK_EQ(st.killed, killed);
}

#endif
