/*
 * make bench: the routing table of lab rwlock_to_rcu (kernel/route.c),
 * its lookups per CPU per second with every CPU looking up and, in the
 * second measurement, one updater changing routes on the last CPU.  Run
 * it before and after the conversion:
 *
 *	make bench CMDLINE=ktest.filter=bench_route
 *
 * and compare the bench=route rows of build/bench/results.csv.  The
 * number is whatever the table's code costs: the reader-writer lock's
 * shared count, or RCU's nothing.
 */
#include "bench.h"
#include "workers.h"
#include "route.h"

#define RB_ROUTES	64

struct route_reader {
	u64 lookups, ns, misses;
	u32 rng;
};

static struct route_reader route_readers[NR_CPUS];
static struct workers route_group;
static unsigned long route_end;		/* jiffies: the window closes */
static bool route_go;

static int route_reader_fn(void *arg)
{
	struct route_reader *r = arg;
	u32 iface;
	u64 t0;

	/* [route_go_acquire] pairs [route_go_release]: the window's end is set before go. */
	while (!smp_load_acquire(&route_go))
		cond_resched();
	t0 = ktime_get_ns();
	while ((long)(jiffies - READ_ONCE(route_end)) < 0) {
		for (int i = 0; i < 64; i++)
			if (!route_lookup(prandom_u32(&r->rng) % RB_ROUTES, &iface))
				r->misses++;
		r->lookups += 64;
		cond_resched();
	}
	r->ns = ktime_get_ns() - t0;
	return 0;
}

static int route_updater_fn(void *arg)
{
	u32 rng = 12345, n = 0;

	(void)arg;
	while (!kthread_should_stop()) {
		route_change(prandom_u32(&rng) % RB_ROUTES, ++n);
		cond_resched();
	}
	return 0;
}

static void run_route(int writers, int rep)
{
	int cpu, ncpu = num_online_cpus();
	struct task_struct *w = NULL;
	u64 rate_sum = 0, misses = 0;
	char labels[48];

	WRITE_ONCE(route_go, false);
	for_each_online_cpu(cpu)
		route_readers[cpu] = (struct route_reader){ .rng = prandom_seed(cpu + 1 + 100 * rep) };
	KEXPECT(workers_start_spread(&route_group, ncpu, 0, route_reader_fn, route_readers,
				     sizeof(route_readers[0]), "route_reader"));
	if (writers)
		w = kthread_run_on_cpu(route_updater_fn, NULL, ncpu - 1, "route_updater");
	WRITE_ONCE(route_end, jiffies + (u64)bench_window_ms * HZ / 1000 + 1);
	/* [route_go_release] pairs [route_go_acquire]: the window's end before go. */
	smp_store_release(&route_go, true);
	workers_stop(&route_group);
	if (w)
		kthread_stop(w);
	for_each_online_cpu(cpu) {
		rate_sum += bench_rate_milli(route_readers[cpu].lookups, route_readers[cpu].ns);
		misses += route_readers[cpu].misses;
	}
	KEXPECT_EQ(misses, 0);		/* every route is there all along */
	snprintf(labels, sizeof(labels), "struct=route writers=%d", writers);
	bench_emit("route", labels, rep, "lookups_per_cpu", rate_sum / ncpu, "1/s");
}

KBENCH(bench_route)
{
	for (int a = 0; a < RB_ROUTES; a++)
		KASSERT(route_add(a, a));
	for (int rep = 0; rep < bench_reps; rep++)
		for (int writers = 0; writers <= 1; writers++)
			run_route(writers, rep);
	for (int a = 0; a < RB_ROUTES; a++)
		KEXPECT(route_del(a));
	rcu_barrier();
}
