/*
 * What the files of rcutorture share (tests/rcutorture.c, the run and its
 * verdict, has the whole story): the torture element and its pool, the
 * writer's state the readers look at, and the record of one run.
 *   rcutorture.c          the parameters, setup, start, stop, report, the tests
 *   rcutorture_writers.c  the element pool, the writer and its grace-period
 *                         methods, the fake writers, the final drain
 *   rcutorture_readers.c  the readers, in threads and in interrupt handlers,
 *                         and their check
 *   rcutorture_onoff.c    the on/off thread (CPU hotplug throughout)
 */
#ifndef TESTS_RCUTORTURE_H
#define TESTS_RCUTORTURE_H

#include "ktest.h"
#include "torture.h"		/* the element's life, shared with urcutorture */

#define RT_PIPE_LEN		TORTURE_PIPE_LEN
#define RT_NELEM		128	/* the element pool */
#define RT_MAX_READERS		64
#define RT_MAX_FAKERS		8
#define RT_POISON_INT		((int)(POISON_FREE * 0x01010101u))	/* as kfree() would leave it */
#define RT_MIN_UPDATES		(2 * RT_PIPE_LEN)
#define RT_HUNG_WRITER_NS	ktest_budget_ns(120, 10)	/* only a hung writer needs this long */

struct rt_elem {
	struct rcu_head rh;		/* the deferred (call_rcu chain) path */
	struct torture_life life;	/* see the comment at the top of rcutorture.c */
	struct list_head node;		/* on the free pool or the pipeline */
};

/* The element readers find; only the writer thread changes it. */
extern struct rt_elem *rt_current;

/* The free pool: the writer takes, the writer and callbacks give back. */
extern spinlock_t rt_pool_lock;
extern struct list_head rt_pool;
extern int rt_pool_count;

/* Retired elements waiting for the writer's grace periods (writer only). */
extern struct list_head rt_pipeline;

/* Writer grace periods completed: the readers' Batch clock. */
extern unsigned long rt_writer_gps;

extern atomic_t rt_frees;		/* elements returned to the pool */
extern atomic_t rt_deferred_inflight;	/* elements on a call_rcu chain */
extern atomic_t rt_deferred_cbs;	/* callbacks of those chains */

struct rt_writer_stats {
	unsigned long long updates;
	unsigned long long gp_sync, gp_call, gp_poll, poll_early, gp_exp;
	unsigned long long deferred, kfreed, alloc_fail;
};
extern struct rt_writer_stats rt_wstats;

/* The writer's call_rcu() grace period: its callback says it is over. */
extern struct completion rt_wgp_done;

struct rt_reader {
	u32 rng;
	u32 sleep_mask;			/* sleeps when (random & sleep_mask) == 0 */
	unsigned long long passes, nulls, long_holds;
	unsigned long long pipe[RT_PIPE_LEN + 1];
	unsigned long long batch[RT_PIPE_LEN + 1];
	unsigned long long mbtest_errs, recycled;
};

struct rt_faker {
	u32 rng;
	unsigned long long sync, call, poll, exp;
	struct rcu_head rh;
	atomic_t cbs;
};

/* Readers in interrupt handlers, one slot per CPU (rcutorture_readers.c). */
extern struct rt_reader rt_irq_readers[NR_CPUS];

/* One run: what rt_setup() builds, rt_start() and rt_stop() drive, rt_report() reads. */
struct rt_run {
	int ncpus, nreaders, nfakers;
	long live_before;		/* kmalloc's live objects before the run */
	struct rt_reader *readers;
	struct rt_faker *fakers;
	struct workers reader_group, faker_group;
	struct task_struct *writer;
	struct task_struct *onoff;	/* CPU hotplug throughout (rcutorture_onoff) */
	int onoff_ms;
	unsigned long onoffs, onoff_errors;
	bool started;			/* every thread started */
	struct rcu_stats s0, s1;
	u64 t0, t_run, t_stop;
	int run_frees;			/* elements back in the pool while it ran */
};
extern struct rt_run rt;

/* Each thread its own random stream, seeded from the clock and its salt. */
static inline u32 rt_seed(int salt)
{
	return prandom_seed((u32)ktime_get_ns() ^ (0x9e3779b9u * (u32)(salt + 1)));
}

/* rcutorture_writers.c */
void rt_elem_free(struct rt_elem *e);
int rt_writer(void *arg);
int rt_fake_writer(void *arg);
void rt_drain(void);

/* rcutorture_readers.c */
int rt_reader(void *arg);

/* rcutorture_onoff.c */
int rt_onoff(void *arg);

#endif
