/*
 * What the two flavors of the user-space RCU library share (urcu.h: the
 * memb flavor; urcu-qsbr.h: QSBR; user/lib/urcu_*.c; docs/urcu.md): the
 * callback head, each thread's reader, the grace-period state readers
 * look at, the misuse reports, the statistics.  Programs include a
 * flavor's header, not this one.
 */
#ifndef URCU_COMMON_H
#define URCU_COMMON_H

#include <stdbool.h>
#include "quiescent.h"
#include "compiler.h"
#include "barrier.h"
#include "list.h"
#include "urcu/pointer.h"

/*
 * URCU_CHECKING=1 (the default, as the kernel's checking build): every
 * read-side call counts its nesting and reports misuse by name.  Define
 * it 0 before including a flavor's header and QSBR's rcu_read_lock() is
 * nothing at all; the memb flavor keeps its nesting count (it needs one).
 */
#ifndef URCU_CHECKING
#define URCU_CHECKING 1
#endif

enum urcu_flavor { URCU_MEMB, URCU_QSBR };
_Static_assert(URCU_QSBR < Q_URCU_FLAVORS, "struct q_thread_head has a reader per flavor");

/* What call_rcu() queues; embed it in the structure to be freed. */
struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};

/* A flavor's grace-period state that its readers read. */
struct urcu_gp {
	unsigned long seq;	/* the grace-period number (from 1): +1 as each one begins */
	int waiting;		/* 0, or 1 + the notification a writer sleeps on until a reader lets go */
	unsigned long wakeups;	/* readers that woke it (statistics) */
};

/*
 * A registered thread's reader.  The writer reads ctr; nesting is the
 * thread's own.  ctr: 0 while the thread reads nothing (memb: outside
 * every read-side section; QSBR: offline), else the grace-period number
 * it last saw (memb: when its outermost section began; QSBR: at its last
 * quiescent state).  A grace period numbered above ctr waits for it.
 */
struct urcu_reader {
	unsigned long ctr;
	int nesting;
	int tid;
	enum urcu_flavor flavor;
	struct list_head node;		/* on its flavor's registry */
};

static inline struct urcu_reader *urcu_reader_of(enum urcu_flavor f)
{
	return q_thread_head()->urcu[f];
}

/*
 * Misuse, named as the kernel names its own ("urcu: BUG: synchronize_rcu()
 * inside rcu_read_lock() ..."): printed, then the handler runs.  The
 * default handler aborts the task; a test may install one that returns,
 * and the call that was misused then returns without acting.
 */
typedef void (*urcu_misuse_handler_t)(const char *message);
urcu_misuse_handler_t urcu_set_misuse_handler(urcu_misuse_handler_t handler);
void urcu_misuse(enum urcu_flavor f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The readers' slow paths (user/lib/urcu_check.c, urcu_domain.c). */
void urcu_misuse_unregistered(enum urcu_flavor f, const char *call);
void urcu_misuse_unbalanced(enum urcu_flavor f);
/* A reader let go while a writer sleeps (gp->waiting): wakes it. */
void urcu_wake_writer(struct urcu_gp *gp);

/* What a flavor did, for tests and tortures (urcu_memb_get_stats(), ...). */
struct urcu_stats {
	unsigned long grace_periods;	/* synchronize_rcu() calls that waited */
	unsigned long writer_sleeps;	/* times a writer slept until a reader let go */
	unsigned long wakeups;		/* readers that woke a sleeping writer */
	unsigned long callbacks_queued, callbacks_invoked;
	unsigned long barriers;		/* rcu_barrier() calls */
	int readers;			/* threads registered now */
};

/*
 * Fault injection, so that a test shows it catches the fault (urcutorture,
 * tests/urcu_window.c): "no_wait" makes synchronize_rcu() of every flavor
 * wait for nothing.  0, or -SYS_EINVAL for an unknown name.
 */
int urcu_inject(const char *name);

#endif
