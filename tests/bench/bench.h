/*
 * make bench: in-kernel benchmarks of RCU against the locks it replaces.
 *
 * Each benchmark is a KBENCH named bench_*: a test in a section of its
 * own, which `make test` never lists and only bench.run=1 runs.
 * tools/bench.py boots the production kernel (CHECKING=0) with
 * `ktest.filter=bench_* bench.run=1` at each CPU count and reads the
 * result lines, one per measurement and repetition:
 *
 *	# BENCH bench=read struct=list method=rcu writers=1 cpus=4 rep=2 \
 *		metric=lookups_per_cpu value=123456.000 unit=1/s
 *
 * No benchmark asserts a speed: the only checks are correctness checks
 * (a reader that found a node it was not allowed to see, for instance).
 * See docs/benchmarks.md for what each one measures and why.
 */
#ifndef TESTS_BENCH_BENCH_H
#define TESTS_BENCH_BENCH_H

#include "ktest.h"

/* Command line (tests/bench/bench.c; bench.run=1 itself is the runner's). */
extern int bench_reps;		/* bench.reps: repetitions of every measurement (>= 5) */
extern int bench_window_ms;	/* bench.window_ms: each throughput window */

/*
 * One result line.  `labels` is a string of extra key=value words
 * ("struct=list method=rcu writers=0"); value_milli is the value times
 * 1000 so that fractions print without floating point.
 */
void bench_emit(const char *bench, const char *labels, int rep, const char *metric,
		u64 value_milli, const char *unit);
/* value_milli for `count` events in `ns` nanoseconds: events per second. */
u64 bench_rate_milli(u64 count, u64 ns);
/* value_milli for a mean: total / count (ns per operation, cycles per ...). */
u64 bench_mean_milli(u64 total, u64 count);
/*
 * How long the user program cmdline (a boot module) runs, from its start
 * to its end, in ns; 0 if it did not start, failed or was killed.
 */
u64 bench_run_program(const char *cmdline);

/*
 * A reader-writer spinlock on one atomic word: bit 0 is the writer, each
 * reader adds 2.  Writer-preferring: once the writer bit is set, arriving
 * readers back out and wait, so a continuous stream of readers cannot
 * starve the writer.  A reader's lock is one fully ordered atomic add on
 * the shared word -- the cache-line transfer RCU readers do not make.
 */
struct bench_rwlock {
	int cnt;
};
#define BENCH_RW_WRITER	1
#define BENCH_RW_READER	2

static __always_inline void bench_read_lock(struct bench_rwlock *l)
{
	for (;;) {
		/*
		 * Fully ordered (acquire at least): the critical section's loads
		 * come after it.  Pairs with the release in bench_write_unlock():
		 * a reader that gets in after a writer sees the writer's updates.
		 */
		int old = __atomic_fetch_add(&l->cnt, BENCH_RW_READER, __ATOMIC_SEQ_CST);

		if (likely(!(old & BENCH_RW_WRITER)))
			return;
		__atomic_fetch_sub(&l->cnt, BENCH_RW_READER, __ATOMIC_RELAXED);
		while (READ_ONCE(l->cnt) & BENCH_RW_WRITER)
			cpu_relax();
	}
}

static __always_inline void bench_read_unlock(struct bench_rwlock *l)
{
	/*
	 * Release: the critical section's loads are done before the writer,
	 * which waits for the reader count to reach zero with an acquire
	 * load (bench_write_lock()), can change what they read.
	 */
	__atomic_fetch_sub(&l->cnt, BENCH_RW_READER, __ATOMIC_RELEASE);
}

static inline void bench_write_lock(struct bench_rwlock *l)
{
	int old = READ_ONCE(l->cnt);

	/* Set the writer bit (one writer at a time), then wait out the readers. */
	for (;;) {
		if (old & BENCH_RW_WRITER) {
			cpu_relax();
			old = READ_ONCE(l->cnt);
			continue;
		}
		if (__atomic_compare_exchange_n(&l->cnt, &old, old | BENCH_RW_WRITER, false,
						__ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			break;
	}
	/* Acquire: pairs with the release in bench_read_unlock(). */
	while (__atomic_load_n(&l->cnt, __ATOMIC_ACQUIRE) != BENCH_RW_WRITER)
		cpu_relax();
}

static inline void bench_write_unlock(struct bench_rwlock *l)
{
	/* Release: pairs with the readers' fully ordered add in bench_read_lock(). */
	__atomic_fetch_and(&l->cnt, ~BENCH_RW_WRITER, __ATOMIC_RELEASE);
}

/*
 * A sequence counter (Linux's seqcount_t), writers serialised by a
 * spinlock of their own.  Odd: a writer is inside.  A reader samples the
 * counter, reads, and retries if the counter was odd or has moved.
 * Readers write nothing shared, but may read a half-made update (and
 * follow a pointer into a node that was just recycled), so what they
 * read must stay mapped and type-stable: the nodes come from a pool and
 * are never freed while the benchmark runs.
 */
struct bench_seqcount {
	unsigned int seq;
};

static __always_inline unsigned int bench_read_seqbegin(const struct bench_seqcount *s)
{
	unsigned int seq;

	while ((seq = READ_ONCE(s->seq)) & 1)
		cpu_relax();
	/*
	 * The data loads come after the counter load.  Pairs with the
	 * smp_wmb() in bench_write_seqcount_end(): seeing that writer's
	 * even count, we see everything it wrote before.
	 */
	smp_rmb();
	return seq;
}

static __always_inline bool bench_read_seqretry(const struct bench_seqcount *s,
						unsigned int seq)
{
	/*
	 * The data loads are done before the counter is read again.  Pairs
	 * with the smp_wmb() in bench_write_seqcount_begin(): if any of our
	 * loads saw a store of a writer, this load sees that writer's odd
	 * (or later) count, and we retry.
	 */
	smp_rmb();
	return READ_ONCE(s->seq) != seq;
}

static inline void bench_write_seqcount_begin(struct bench_seqcount *s)
{
	WRITE_ONCE(s->seq, s->seq + 1);
	smp_wmb();	/* the odd count before the data: pairs with bench_read_seqretry() */
}

static inline void bench_write_seqcount_end(struct bench_seqcount *s)
{
	smp_wmb();	/* the data before the even count: pairs with bench_read_seqbegin() */
	WRITE_ONCE(s->seq, s->seq + 1);
}

/*
 * The element every structure holds.  One cache line, so that one node's
 * reference count does not share a line with its neighbour's.
 */
#define BENCH_POISON_KEY	(-1)
struct bench_node {
	int key;
	int value;
	int ref;			/* refcount method: the list holds one */
	int pad;
	union {
		struct list_head list;
		struct hlist_node hnode;
	};
	struct rcu_head rh;		/* rcu method: back to the pool after a grace period */
	struct bench_node *pool_next;	/* on the free pool */
} __aligned(64);

enum bench_kind { BENCH_LIST, BENCH_HASH };

/* How lookups are protected; the order is the order of the tables. */
enum bench_method {
	BM_NONE,		/* no protection, readers only: the floor */
	BM_RCU,
	BM_RWLOCK,
	BM_SPINLOCK,
	BM_SEQLOCK,
	BM_REFCOUNT,
	BM_NR,
};
extern const char *const bench_method_names[BM_NR];

#define BENCH_LIST_SIZE		64
#define BENCH_HASH_BUCKETS	1024
#define BENCH_HASH_SIZE		1024
#define BENCH_SPARE_NODES	1024	/* the pool beyond the live nodes */

/*
 * A shared structure and everything any method needs to protect it.
 * Lookups find keys 0 .. nelem-1; every key is always present (the
 * writer replaces an element by a copy with the same key).
 */
struct bench_table {
	enum bench_kind kind;
	int nelem;
	struct list_head list;			/* BENCH_LIST */
	struct hlist_head *buckets;		/* BENCH_HASH */
	struct bench_node *nodes;		/* nelem + BENCH_SPARE_NODES, type-stable */
	struct bench_node **cur;		/* the writer's map: key -> node in the structure */

	spinlock_t pool_lock;
	struct bench_node *pool;
	int pool_count;

	/* One lock per structure for each method (the locks are the subject). */
	spinlock_t lock __aligned(64);		/* spinlock method: readers and writer */
	struct bench_rwlock rw __aligned(64);	/* rwlock method */
	struct bench_seqcount seq __aligned(64);	/* seqlock method */
	spinlock_t wlock __aligned(64);		/* rcu, seqlock, refcount: writers only */
};

static __always_inline unsigned int bench_hash(int key)
{
	return ((u32)key * 2654435761u) >> 22;	/* 10 bits: 1024 buckets */
}

struct bench_table *bench_table_create(enum bench_kind kind);
void bench_table_destroy(struct bench_table *t);
struct bench_node *bench_pool_get(struct bench_table *t);
void bench_pool_put(struct bench_table *t, struct bench_node *n);

/*
 * "Busy" CPUs for the update-side benchmarks: one thread on each CPU in
 * [first, nr_cpu) running RCU readers over a list, cond_resched() every
 * 64 lookups, until bench_busy_stop().  True if every one started.
 */
bool bench_busy_start(int first_cpu);
void bench_busy_stop(void);

#endif
