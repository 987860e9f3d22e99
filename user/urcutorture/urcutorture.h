/*
 * What the files of urcutorture share (main.c tells the whole story):
 * each flavor as one ops vector, the torture element, the writer's state
 * the readers look at, and each file's entry points.
 *   main.c     the parameters, the run (start, stop, report, verdict)
 *   writers.c  the element pool, the writer, the fake writers, the drain
 *   readers.c  the readers and their check
 *   window.c   mode=window: one reader held across one grace period
 *   memb.c, qsbr.c   each flavor under the names its header gives
 */
#ifndef URCUTORTURE_H
#define URCUTORTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "qcap.h"
#include "urcu/urcu-common.h"
#include "random.h"
#include "torture.h"		/* the element's life, shared with the kernel's rcutorture */

#define UT_PIPE_LEN		TORTURE_PIPE_LEN
#define UT_NELEM		128	/* the element pool */
#define UT_MAX_READERS		64
#define UT_MAX_FAKERS		8
#define UT_MIN_UPDATES		(2 * UT_PIPE_LEN)
#define UT_NS_PER_MS		1000000ULL
#define UT_NS_PER_S		1000000000ULL

/* A flavor of the library, as the torture drives it (rcutorture's rcu_torture_ops). */
struct ut_ops {
	const char *name;
	void (*register_thread)(void), (*unregister_thread)(void);
	void (*read_lock)(void), (*read_unlock)(void);
	void (*quiescent_state)(void);		/* QSBR's; NULL where there is none */
	void (*offline)(void), (*online)(void);	/* QSBR's */
	void (*synchronize)(void);
	void (*call)(struct rcu_head *head, void (*func)(struct rcu_head *head));
	void (*wait_callbacks)(void);		/* rcu_barrier() */
	void (*get_stats)(struct urcu_stats *s);
};
extern const struct ut_ops ut_memb_ops, ut_qsbr_ops;

/* The flavor under test, and the run's injection (main.c). */
extern const struct ut_ops *ut;
extern bool ut_qs_in_reader;	/* inject=qs_in_reader: readers announce while they hold */
extern volatile int ut_stop;

/* The element readers find through ut_current (its life: lib/torture.h; poison: UT_PIPE_LEN). */
struct ut_elem {
	struct rcu_head rh;		/* the deferred path's call_rcu() chain */
	struct torture_life life;
	struct list_head node;		/* on the pool or the writer's pipeline */
};

extern struct ut_elem *ut_current;	/* only the writer changes it */
extern unsigned long ut_writer_gps;	/* the writer's grace periods: the readers' batch clock */

struct ut_reader {
	uint32_t rng;
	int cpu;
	uint32_t nap_mask;		/* naps when (random & nap_mask) == 0 */
	uint64_t nap_ns;
	unsigned long passes, nulls, long_holds, mbtest_errs, recycled;
	unsigned long pipe[UT_PIPE_LEN + 1];
	unsigned long batch[UT_PIPE_LEN + 1];
};

struct ut_writer_stats {
	unsigned long updates, gp_sync, gp_call, deferred, barriers, alloc_fail;
	int frees, deferred_inflight;	/* (atomic: callbacks change them too) */
};
extern struct ut_writer_stats ut_wstats;

struct ut_faker {
	uint32_t rng;
	unsigned long sync, call;
	struct rcu_head rh;
};

static inline uint64_t ut_now(void)
{
	return q_clock_ns();
}

/* writers.c */
void ut_pool_init(void);
int ut_writer(void *arg);
int ut_fake_writer(void *arg);
int ut_drain(void);		/* every element back in the pool: how many are there */

/* readers.c */
int ut_reader(void *arg);

/* window.c */
int ut_window(void);

#endif
