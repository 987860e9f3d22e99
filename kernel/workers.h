/*
 * Worker threads for tests, benchmarks and demos: a group of kernel
 * threads (readers, writers, spinners), each running fn on its CPU,
 * started together and stopped together.  Linux's kernel/torture.c plays
 * this part for rcutorture; here the demos use it too, so it lives in the
 * kernel.
 *
 *	static struct my_reader readers[NR_CPUS];
 *	static struct workers rw;
 *
 *	memset(readers, 0, sizeof(readers));
 *	workers_start_others(&rw, NR_CPUS, my_reader_fn, readers, sizeof(readers[0]),
 *			     "my_reader");
 *	...  (worker i runs my_reader_fn(&readers[i]) on CPU rw.cpu[i])
 *	workers_stop(&rw);
 *
 * Worker i's argument is the i-th element of the array args (elements of
 * arg_size bytes), or, when args is NULL, its index i itself.  The name may
 * hold one %d, which becomes the index ("rtort_r/%d").
 */
#ifndef KERNEL_WORKERS_H
#define KERNEL_WORKERS_H

#include "kernel.h"

/* Threads in one group: rcutorture.readers= allows 64, a benchmark 2 per CPU. */
#define MAX_WORKERS	(4 * NR_CPUS > 64 ? 4 * NR_CPUS : 64)

struct workers {
	int nr;					/* threads asked for */
	int cpu[MAX_WORKERS];			/* where worker i runs */
	struct task_struct *task[MAX_WORKERS];	/* NULL: it did not start */
};

/*
 * The CPUs workers usually run on: every online CPU but the caller's, at
 * most max of them; on a single CPU, that CPU (the workers then run only
 * while the caller sleeps or yields).  Returns how many were written.
 */
int worker_cpus(int *cpus, int max);

/* One worker on each of the n CPUs in cpus[]; true if all started. */
bool workers_start_on(struct workers *w, const int *cpus, int n, int (*fn)(void *),
		      void *args, size_t arg_size, const char *name);
/* One worker on each CPU of worker_cpus(), at most max; true if all started. */
bool workers_start_others(struct workers *w, int max, int (*fn)(void *), void *args,
			  size_t arg_size, const char *name);
/* nr workers, worker i on online CPU (first_cpu + i) modulo their number; true if all started. */
bool workers_start_spread(struct workers *w, int nr, int first_cpu, int (*fn)(void *),
			  void *args, size_t arg_size, const char *name);
/*
 * kthread_stop()s every worker that started, in order; nr and cpu[] stay,
 * for a report.  Returns how many workers' functions returned non-zero.
 */
int workers_stop(struct workers *w);

/*
 * Between a worker's passes, outside any read-side critical section: a
 * quiescent state, and a rest (worker_rest()) after each WORKER_BURST_NS
 * of work.  Spinning without pause on every CPU would make each
 * synchronize_rcu() hop wait for a host core (under TCG on a small host:
 * tens of milliseconds), and bursts still give thousands of passes
 * around every update.  *burst_start starts as ktime_get_ns().
 */
#define WORKER_BURST_NS	(2 * NSEC_PER_MSEC)
void worker_pause(u64 *burst_start);

/*
 * A worker's sleep between bursts: one tick, and at 2 * WORKER_BUSY_CPUS
 * CPUs or more one tick per WORKER_BUSY_CPUS CPUs.  Under TCG every vCPU
 * is a host thread on the host's few cores, and a hop or an IPI to a CPU
 * waits behind every vCPU that is busy: resting longer as the CPU count
 * grows keeps about as many workers busy at once at 64 CPUs as at 8 (a
 * 2 ms burst every 12 ms on 8 CPUs, every 82 ms on 64: about 1.5 busy).
 */
#define WORKER_BUSY_CPUS	8
void worker_rest(void);

#endif
