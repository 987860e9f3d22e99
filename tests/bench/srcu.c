/*
 * make bench: SRCU's read side, the price of readers that may sleep.
 *
 * bench_srcu_readside times empty srcu_read_lock()/srcu_read_unlock()
 * pairs on CPU 0 with the other CPUs idle, exactly as bench_readside
 * (tests/bench/read.c) times the other read sides, and reports them as
 * its rows with method=srcu.  Where rcu_read_lock() compiles to nothing,
 * each SRCU pair makes two atomic adds on this CPU's counters and two full
 * barriers (mfence on x86-64, dmb ish on AArch64).  And, as a control,
 * the same loop around a reader that was never meant to be empty: a walk
 * of the benchmark's 64-element list inside srcu_read_lock() and inside
 * rcu_read_lock(), method=srcu_list and rcu_list.
 */
#include "bench.h"

#define SRCU_BENCH_ITERS	200000
#define SRCU_BENCH_WALKS	20000

DEFINE_STATIC_SRCU(bench_srcu);

static u64 empty_pairs(u64 *ns)
{
	u64 c0, t0 = ktime_get_ns();

	c0 = arch_cycles();
	for (int i = 0; i < SRCU_BENCH_ITERS; i++) {
		int idx = srcu_read_lock(&bench_srcu);

		srcu_read_unlock(&bench_srcu, idx);
	}
	c0 = arch_cycles() - c0;
	*ns = ktime_get_ns() - t0;
	return c0;
}

static int walk(struct bench_table *t, int key)
{
	struct bench_node *n;

	list_for_each_entry_rcu(n, &t->list, list, true)
		if (READ_ONCE(n->key) == key)
			return READ_ONCE(n->value);
	return -1;
}

/* Lookups of every key in turn, under SRCU or RCU. */
static u64 walks(struct bench_table *t, bool srcu, long *sum)
{
	u64 c0 = arch_cycles();

	for (int i = 0; i < SRCU_BENCH_WALKS; i++) {
		int key = i & (t->nelem - 1), idx = 0;

		if (srcu)
			idx = srcu_read_lock(&bench_srcu);
		else
			rcu_read_lock();
		*sum += walk(t, key);
		if (srcu)
			srcu_read_unlock(&bench_srcu, idx);
		else
			rcu_read_unlock();
	}
	return arch_cycles() - c0;
}

KBENCH(bench_srcu_readside)
{
	struct bench_table *t = bench_table_create(BENCH_LIST);
	long sum_srcu = 0, sum_rcu = 0;

	KASSERT(t);
	for (int rep = 0; rep < bench_reps; rep++) {
		u64 ns, cycles = empty_pairs(&ns);

		bench_emit("readside", "method=srcu", rep, "cycles_per_cs",
			   bench_mean_milli(cycles, SRCU_BENCH_ITERS), "cycles");
		bench_emit("readside", "method=srcu", rep, "ns_per_cs",
			   bench_mean_milli(ns, SRCU_BENCH_ITERS), "ns");
		bench_emit("readside", "method=srcu_list", rep, "cycles_per_cs",
			   bench_mean_milli(walks(t, true, &sum_srcu), SRCU_BENCH_WALKS), "cycles");
		bench_emit("readside", "method=rcu_list", rep, "cycles_per_cs",
			   bench_mean_milli(walks(t, false, &sum_rcu), SRCU_BENCH_WALKS), "cycles");
		cond_resched();
	}
	/* The same lookups found the same values. */
	KEXPECT_EQ(sum_srcu, sum_rcu);
	/* Every pair was balanced: the domain is empty, and a grace period ends at once. */
	synchronize_srcu(&bench_srcu);
	bench_table_destroy(t);
}
