/*
 * RCU's private state, shared by the files of kernel/rcu/ and by nothing
 * else (the public API is rcupdate.h).
 */
#ifndef KERNEL_RCU_RCU_H
#define KERNEL_RCU_RCU_H

#include "kernel.h"

/*
 * Grace-period numbers as Linux's rcu_seq: the low bit is the state
 * (1: a grace period is running), so "started" and "completed" are two
 * values of one counter.
 */
static inline unsigned long rcu_seq_snap(unsigned long s)
{
	if (rcu_injected(RCU_INJECT_SNAP_SHORT))
		return (s + 2) & ~1UL;	/* fault injection: only the one already running */
	/* The value after which a full grace period has passed from now. */
	return (s + 3) & ~1UL;
}

static inline bool rcu_seq_done(unsigned long cur, unsigned long target)
{
	return (long)(cur - target) >= 0;
}

struct rcu_state {
	spinlock_t lock;
	unsigned long gp_seq;		/* even: idle; odd: grace period running */
	unsigned long qs_mask;		/* CPUs that still owe it a quiescent state */
	bool gp_needed;			/* start another when this one ends */
	u64 gp_start_ns;
	unsigned long gps_completed;
	atomic_t tours_started;		/* synchronize_rcu() tours */
	unsigned int tours_max_done;	/* highest tour number that has ended */
	unsigned long tours_completed;
};

extern struct rcu_state rcu_state;

void rcu_request_gp(void);
unsigned int rcu_tour_begin(void);
void rcu_tour_end(unsigned int tour);
extern int rcu_stall_timeout_s;
extern unsigned long rcu_stall_reports;
/* Checking build: catch call_rcu() on an rcu_head already queued. */
void rcu_debug_queue(const struct rcu_head *head);
void rcu_debug_dequeue(const struct rcu_head *head);
/* Prints a line for each fault injection that is on (inject.c). */
void rcu_inject_announce(void);

#endif
