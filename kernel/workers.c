/*
 * Worker threads for tests, benchmarks and demos (see workers.h).
 */
#include "workers.h"

int worker_cpus(int *cpus, int max)
{
	int cpu, n = 0, self = smp_processor_id();

	for_each_online_cpu(cpu) {
		if (cpu != self && n < max)
			cpus[n++] = cpu;
	}
	if (n == 0 && max > 0)
		cpus[n++] = self;
	return n;
}

/* Starts worker i of w on w->cpu[i]; false if it could not. */
static bool start_one(struct workers *w, int i, int (*fn)(void *), void *args,
		      size_t arg_size, const char *name)
{
	char comm[TASK_COMM_LEN];
	void *arg = args ? (char *)args + (size_t)i * arg_size : (void *)(uintptr_t)i;

	snprintf(comm, sizeof(comm), name, i);
	w->task[i] = kthread_run_on_cpu(fn, arg, w->cpu[i], comm);
	if (!w->task[i])
		printk("workers: cannot start %s on CPU%d\n", comm, w->cpu[i]);
	return w->task[i] != NULL;
}

static bool start_all(struct workers *w, int (*fn)(void *), void *args, size_t arg_size,
		      const char *name)
{
	bool all = true;

	for (int i = 0; i < w->nr; i++)
		all &= start_one(w, i, fn, args, arg_size, name);
	return all;
}

/* A group of nr workers: more than MAX_WORKERS is a bug in the caller. */
static void set_size(struct workers *w, int nr, const char *name)
{
	if (nr < 0 || nr > MAX_WORKERS)
		panic("workers: %d workers asked for %s, at most %d", nr, name, MAX_WORKERS);
	w->nr = nr;
}

bool workers_start_on(struct workers *w, const int *cpus, int n, int (*fn)(void *),
		      void *args, size_t arg_size, const char *name)
{
	set_size(w, n, name);
	for (int i = 0; i < n; i++)
		w->cpu[i] = cpus[i];
	return start_all(w, fn, args, arg_size, name);
}

bool workers_start_others(struct workers *w, int max, int (*fn)(void *), void *args,
			  size_t arg_size, const char *name)
{
	int cpus[NR_CPUS];

	return workers_start_on(w, cpus, worker_cpus(cpus, min(max, NR_CPUS)), fn, args,
				arg_size, name);
}

bool workers_start_spread(struct workers *w, int nr, int first_cpu, int (*fn)(void *),
			  void *args, size_t arg_size, const char *name)
{
	int ncpus = num_online_cpus();

	set_size(w, nr, name);
	for (int i = 0; i < nr; i++)
		w->cpu[i] = (first_cpu + i) % ncpus;
	return start_all(w, fn, args, arg_size, name);
}

int workers_stop(struct workers *w)
{
	int failed = 0;

	for (int i = 0; i < w->nr; i++) {
		if (w->task[i])
			failed += kthread_stop(w->task[i]) != 0;
		w->task[i] = NULL;
	}
	return failed;
}

void worker_rest(void)
{
	int ticks = max(1, num_online_cpus() / WORKER_BUSY_CPUS);

	msleep((unsigned int)ticks * (1000 / HZ));
}

/*
 * worker_pause() reads the clock once every WORKER_PASSES_PER_READ passes
 * on a CPU, not at every pass: reading it costs under emulation (the
 * comment above ndelay(), kernel/time.c), and a pass is often shorter
 * than the read.  A burst may run on for up to that many passes.
 */
#define WORKER_PASSES_PER_READ	32
static unsigned int worker_passes[NR_CPUS];

void worker_pause(u64 *burst_start)
{
	unsigned int *passes = &worker_passes[smp_processor_id()];

	if (++*passes % WORKER_PASSES_PER_READ == 0 &&
	    ktime_get_ns() - *burst_start >= WORKER_BURST_NS) {
		worker_rest();
		*burst_start = ktime_get_ns();
	} else {
		cond_resched();
	}
}
