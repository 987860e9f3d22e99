/*
 * `kvserver --bench [window_ms=W] [rep=R]` (make bench: tests/bench/urcu.c,
 * docs/benchmarks.md): the server's own lookup, kv_find() on its own
 * table, measured inside the server -- a call from a client would cost a
 * hundred times more and hide it.  Each line is a make bench line
 * (tests/bench/bench.h's format), printed here:
 *
 *   bench=urcu method=M metric=lookups_per_cpu   a reader pinned to each
 *       CPU, looking keys up for W ms under method M: none (no
 *       synchronization at all: the floor), mutex and rwlock (qlock.h's
 *       sleeping locks), memb and qsbr (the two flavors; a QSBR reader
 *       announces a quiescent state after each lookup, as the server
 *       does after each request)
 *   bench=urcu method=M metric=ns_per_lookup     one reader on CPU 0 alone,
 *       LOOPS lookups timed by the clock: under ICOUNT=1 a nanosecond is
 *       one guest instruction, so these count the instructions of a
 *       lookup and of what each method adds to it
 *   bench=urcu op=membarrier running=K metric=us  SYS_membarrier's
 *       private expedited command from CPU 0 while K other threads of the
 *       task spin, each on a CPU of its own: the memb flavor's barrier
 *
 * There is no writer: the readers' own cost is the question.  No speed is
 * asserted; a lookup that misses a key it should find fails the run.
 */
/* (the readers as a program built without the misuse checks: urcu/urcu-common.h) */
#define URCU_CHECKING 0

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qlock.h"
#include "qserver.h"
#include "urcu/urcu-memb.h"
#include "urcu/urcu-qsbr.h"
#include "table.h"

#define KEYS		128
#define LOOPS		20000
#define BARRIERS	40
#define CLOCK_EVERY	256	/* lookups between two readings of the clock */

enum method { M_NONE, M_MUTEX, M_RWLOCK, M_MEMB, M_QSBR, M_NR };
static const char *const method_names[M_NR] = { "none", "mutex", "rwlock", "memb", "qsbr" };

static struct kv_table table = { .retire = kv_free_now };
static struct q_mutex mutex;
static struct q_rwlock rwlock;
static int window_ms = 100, rep;

struct reader {
	enum method m;
	unsigned long lookups, misses;
	volatile int *go;	/* 0: wait; 1: read; 2: stop (the spinners') */
};

/* One lookup of key under method m: 0, or 1 if it missed. */
static inline int lookup(enum method m, unsigned long key)
{
	struct kv_entry *e;
	int miss;

	switch (m) {
	case M_MUTEX:
		q_mutex_lock(&mutex);
		miss = !kv_find(&table, key);
		q_mutex_unlock(&mutex);
		return miss;
	case M_RWLOCK:
		q_read_lock(&rwlock);
		miss = !kv_find(&table, key);
		q_read_unlock(&rwlock);
		return miss;
	case M_MEMB:
		urcu_memb_read_lock();
		e = kv_find(&table, key);
		urcu_memb_read_unlock();
		return !e;
	case M_QSBR:
		urcu_qsbr_read_lock();
		e = kv_find(&table, key);
		urcu_qsbr_read_unlock();
		urcu_qsbr_quiescent_state();	/* the server's, after each request */
		return !e;
	default:
		return !kv_find(&table, key);
	}
}

static void reader_register(enum method m, bool on)
{
	if (m == M_MEMB)
		on ? urcu_memb_register_thread() : urcu_memb_unregister_thread();
	if (m == M_QSBR)
		on ? urcu_qsbr_register_thread() : urcu_qsbr_unregister_thread();
}

/* Lookups for window_ms: how many. */
static int read_window(void *arg)
{
	struct reader *r = arg;
	uint64_t end;
	unsigned long n = 0;

	reader_register(r->m, true);
	end = q_clock_ns() + (uint64_t)window_ms * 1000000;
	do {
		for (int i = 0; i < CLOCK_EVERY; i++, n++)
			r->misses += lookup(r->m, (n * 7) % KEYS);
	} while (q_clock_ns() < end);
	r->lookups = n;
	reader_register(r->m, false);
	return 0;
}

/* A reader per CPU under m: lookups per second per CPU, in thousandths. */
static unsigned long long throughput(enum method m, int *bad)
{
	int ncpus = q_nr_cpus(), tids[Q_SERVE_MAX_THREADS];
	struct reader readers[Q_SERVE_MAX_THREADS] = { 0 };
	struct sys_exit_status st;
	unsigned long long total = 0;

	if (ncpus > Q_SERVE_MAX_THREADS)
		ncpus = Q_SERVE_MAX_THREADS;
	for (int i = 0; i < ncpus; i++) {
		readers[i].m = m;
		tids[i] = q_thread_create(read_window, &readers[i], i);
		*bad += tids[i] < 0;
	}
	for (int i = 0; i < ncpus; i++) {
		if (tids[i] < 0 || q_thread_join(tids[i], &st) || st.status)
			(*bad)++;
		total += readers[i].lookups;
		*bad += readers[i].misses != 0;
	}
	return total * 1000ULL * 1000 / ncpus / window_ms;	/* per s, in thousandths */
}

/* LOOPS lookups under m on this CPU alone: ns each, in thousandths. */
static unsigned long long alone(enum method m, int *bad)
{
	uint64_t t0;
	unsigned long misses = 0;

	reader_register(m, true);
	for (int i = 0; i < KEYS; i++)
		misses += lookup(m, i);		/* (warm: the first touches) */
	t0 = q_clock_ns();
	for (unsigned long i = 0; i < LOOPS; i++)
		misses += lookup(m, (i * 7) % KEYS);
	t0 = q_clock_ns() - t0;
	reader_register(m, false);
	*bad += misses != 0;
	return t0 * 1000 / LOOPS;
}

static int spin(void *arg)
{
	volatile int *go = arg;

	while (*go != 2)
		;
	return 0;
}

/* SYS_membarrier from CPU 0 with k other threads spinning: us per call, in thousandths. */
static unsigned long long barrier_cost(int k, int *bad)
{
	int tids[Q_SERVE_MAX_THREADS];
	volatile int go = 1;
	struct sys_exit_status st;
	uint64_t t0;

	for (int i = 0; i < k; i++)
		tids[i] = q_thread_create(spin, (void *)&go, i + 1);
	t0 = q_clock_ns();
	for (int i = 0; i < BARRIERS; i++)
		*bad += q_membarrier(SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) != 0;
	t0 = q_clock_ns() - t0;
	go = 2;
	for (int i = 0; i < k; i++)
		*bad += tids[i] < 0 || q_thread_join(tids[i], &st) != 0;
	return t0 / BARRIERS;	/* ns per call: us in thousandths */
}

static void emit(const char *labels, const char *metric, unsigned long long milli,
		 const char *unit)
{
	printf("BENCH bench=urcu %s cpus=%d rep=%d metric=%s value=%llu.%03llu unit=%s\n", labels,
	       q_nr_cpus(), rep, metric, milli / 1000, milli % 1000, unit);
}

static bool parse(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "window_ms=", 10))
			window_ms = atoi(argv[i] + 10);
		else if (!strncmp(argv[i], "rep=", 4))
			rep = atoi(argv[i] + 4);
		else
			return false;
	}
	return window_ms > 0;
}

int kv_bench(int argc, char **argv)
{
	char labels[48];
	int bad = 0;

	if (!parse(argc, argv)) {
		printf("kvserver --bench: window_ms=MS rep=N only\n");
		return 2;
	}
	if (q_mutex_init(&mutex) || q_rwlock_init(&rwlock) ||
	    q_membarrier(SYS_MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0))
		return 1;
	q_set_cpu(0);
	for (int i = 0; i < KEYS; i++)
		bad += kv_put(&table, i, i * 3) != 0;
	for (int m = 0; m < M_NR; m++) {
		snprintf(labels, sizeof(labels), "method=%s", method_names[m]);
		emit(labels, "lookups_per_cpu", throughput(m, &bad), "1/s");
		emit(labels, "ns_per_lookup", alone(m, &bad), "ns");
	}
	for (int k = 0; k < q_nr_cpus() && k < Q_SERVE_MAX_THREADS; k++) {
		snprintf(labels, sizeof(labels), "op=membarrier running=%d", k);
		emit(labels, "us", barrier_cost(k, &bad), "us");
	}
	fflush(stdout);
	if (bad)
		printf("kvserver --bench: %d wrong results\n", bad);
	return bad != 0;
}
