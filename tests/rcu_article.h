/*
 * What the tests of "What is RCU, Fundamentally?" share
 * (tests/rcu_article_*.c): the freed-memory pattern, the budget of a
 * wait, the CPUs readers run on and the pause between their passes.
 * Everything here is static: a test file exports nothing.
 */
#ifndef TESTS_RCU_ARTICLE_H
#define TESTS_RCU_ARTICLE_H

#include "ktest.h"

/* The freed-memory pattern as the reader sees it in an int or a pointer. */
#define POISON_INT	((int)0x6b6b6b6b)
#define POISON_PTR	((void *)0x6b6b6b6b6b6b6b6bUL)

/* Budget of a wait that only runs out when the kernel misbehaves. */
#define BUDGET_NS	(30 * NSEC_PER_SEC)	/* generous: 16 vCPUs on 2 host cores are slow */

static inline bool budget_left(u64 start)
{
	return ktime_get_ns() - start < BUDGET_NS;
}

/*
 * The CPUs readers run on: every CPU but the test's own (CPU 0); with a
 * single CPU, CPU 0 itself, where readers share the CPU with the updater.
 */
static inline int reader_cpus(int *out)
{
	int cpu, n = 0;

	for_each_online_cpu(cpu) {
		if (cpu != smp_processor_id())
			out[n++] = cpu;
	}
	if (n == 0)
		out[n++] = smp_processor_id();
	return n;
}

/*
 * Between passes, outside the critical section: a quiescent state.
 * Readers run in bursts of READER_BURST_NS, then sleep a tick.  Spinning
 * without pause on every CPU would make each synchronize_rcu() hop wait
 * for a host core (under TCG on a small host: tens of milliseconds), and
 * bursts still give thousands of passes around every update.
 */
#define READER_BURST_NS	(2 * NSEC_PER_MSEC)

static inline void reader_pause(u64 *burst_start)
{
	if (ktime_get_ns() - *burst_start >= READER_BURST_NS) {
		msleep(1);
		*burst_start = ktime_get_ns();
	} else {
		cond_resched();
	}
}

static inline bool ptr_poisoned(const void *p)
{
	return p == POISON_PTR || p == NULL;
}

#endif
