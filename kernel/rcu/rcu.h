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
 * values of one counter.  It starts 300 grace periods below the wrap, as
 * Linux's does, so that a boot that runs about 300 crosses it
 * (tests/arith_wrap.c drives them): compare only with rcu_seq_done(),
 * never with < or >.
 */
#define RCU_SEQ_INIT	((0UL - 300UL) << 1)

static inline unsigned long rcu_seq_snap(unsigned long s)
{
	if (rcu_injected(RCU_INJECT_SNAP_SHORT))
		return (s + 2) & ~1UL;	/* fault injection: only the one already running */
	/* The value after which a full grace period has passed from now. */
	return (s + 3) & ~1UL;
}

/* Has cur reached target?  Wrap-safe while they are less than 2^63 apart. */
static inline bool rcu_seq_done(unsigned long cur, unsigned long target)
{
	return (long)(cur - target) >= 0;
}

/*
 * The polled API counts "waits": every synchronize_rcu() tour and every
 * asynchronous grace period takes the next number as it starts
 * (rcu_wait_begin()) and, when it ends, raises the highest number ended
 * (rcu_wait_end()).  Full-width, starting below the wrap like gp_seq.
 */
#define RCU_WAITS_INIT	(0UL - 300UL)

struct rcu_state {
	spinlock_t lock;
	unsigned long gp_seq;		/* even: idle; odd: grace period running */
	struct cpumask qs_mask;		/* CPUs that still owe it a quiescent state */
	bool gp_needed;			/* start another when this one ends */
	u64 gp_start_ns;
	unsigned long gp_wait;		/* the running grace period's wait number */
	unsigned long gps_completed;
	/* rcu_report_qs(): reports, those that found the lock taken, time to get it */
	unsigned long qs_reports, qs_contended;
	u64 qs_lock_wait_ns;
	unsigned long gp_requests;	/* rcu_request_gp() calls: each takes the lock */
	atomic_long_t waits_started;	/* last wait number handed out */
	unsigned long waits_done;	/* highest wait number that has ended */
	atomic_long_t tours_started;	/* synchronize_rcu() tours, for reports */
	atomic_long_t tours_completed;
};

extern struct rcu_state rcu_state;

/* A run of callbacks that wait for the same grace period (callbacks.c). */
struct rcu_segment {
	struct rcu_head *head, **tail;
	unsigned long gp;		/* the grace period it waits for */
};

/* Per CPU: its callbacks (callbacks.c) and its idle state (gp.c). */
struct rcu_data {
	struct rcu_segment done;	/* ready to invoke */
	struct rcu_segment wait;	/* waiting for wait.gp */
	struct rcu_segment next;	/* waiting for next.gp (later than wait.gp) */
	long ncbs;			/* callbacks queued here, all segments */
	bool idle;			/* in the idle extended quiescent state */
	bool irq_from_idle;		/* an interrupt took us out of idle */
	bool cb_work;			/* rcuc has work: set (release) before waking it */
	unsigned long gp_requested;	/* the last grace period call_rcu() asked for here */
	struct task_struct *cb_thread;
	unsigned long long cbs_invoked;
	/* Reports made on the way back to user mode (rcu_user_return()): asynchronous, expedited */
	unsigned long user_qs, exp_user_qs;
};

extern struct rcu_data rcu_data[NR_CPUS];

/* callbacks.c */
void rcu_init_callbacks(void);
void wake_cb_threads(void);
void wake_cb_thread(int cpu);

void rcu_request_gp(void);
unsigned long rcu_wait_begin(void);
void rcu_wait_end(unsigned long wait);
extern int rcu_stall_timeout_s;
extern unsigned long rcu_stall_reports;
/* For the stall check: callbacks on cpu waiting for a grace period nobody asked for. */
long rcu_cbs_wait_unrequested(int cpu, unsigned long *gp);
/* Checking build: catch call_rcu() on an rcu_head already queued. */
void rcu_debug_queue(const struct rcu_head *head, const char *caller);
void rcu_debug_dequeue(const struct rcu_head *head);
/* Checking build: marks the task as running callback func (it must not sleep). */
void *rcu_debug_callback_enter(rcu_callback_t func);
void rcu_debug_callback_exit(void *outer);
/*
 * synchronize_rcu_expedited() (expedited.c): this CPU passed a quiescent
 * state (true if an expedited grace period was waiting for it); does one
 * wait for it (its IPI left a note)?
 */
bool rcu_exp_note_qs(void);
extern struct cpumask exp_noted;
/* Inline: rcu_user_return() asks on every return to user mode. */
static inline bool rcu_exp_noted(void)
{
	return cpumask_test_cpu(smp_processor_id(), &exp_noted);
}
/* In a handler: the interrupt came from the idle loop's extended quiescent state (gp.c). */
bool rcu_irq_from_idle(void);
void rcu_exp_get_stats(struct rcu_stats *s);
bool rcu_exp_waits_for(int cpu, struct sched_waiter *w);
/*
 * Test seams (checking build; NULL: nothing).  rcu_gp_end_hook is called
 * by rcu_gp_end() with the new gp_seq, rcu_state.lock held and interrupts
 * off, the moment callbacks can see the grace period ended: what every
 * other view of its end (the polled API's) must already show
 * (tests/rcu_poll_edges.c).
 */
extern void (*rcu_gp_end_hook)(unsigned long gp_seq);
/* Skips n wait numbers of the polled API (sync.c), never more than 2^62 at once. */
void rcu_poll_skip_waits(unsigned long n);
/* Prints a line for each fault injection that is on (inject.c). */
void rcu_inject_announce(void);

/*
 * A table of fault injections (rcu.inject= here, srcu.inject= in srcu.c):
 * each entry's boot word and what it breaks, and beside it a bool array
 * that says which the command line asked for.  inject.c reads both.
 */
struct rcu_injection_desc {
	const char *name;	/* on the command line */
	const char *what;	/* what it breaks, for the boot banner */
};
/* A table's entry from one line of RCU_INJECTIONS(X) or SRCU_INJECTIONS(X). */
#define __INJECTION_DESC(id, iname, iwhat)	[id] = { .name = iname, .what = iwhat },
/* The same line, for what a bad value gets told: "expected one of: 'no_wait' (...)". */
#define __INJECTION_HELP(id, name, what)	" '" name "' (" what ")"
/* Turns on the entry of descs[n] named val; false (the word is refused) if none is. */
bool rcu_inject_table_set(const struct rcu_injection_desc *descs, bool *on, int n,
			  const char *val);
/* At boot, "KEY: FAULT INJECTION KEY.inject=NAME: what" for each entry that is on. */
void rcu_inject_table_announce(const char *key, const struct rcu_injection_desc *descs,
			       const bool *on, int n);

#endif
