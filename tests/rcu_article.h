/*
 * What the tests of "What is RCU, Fundamentally?" share
 * (tests/rcu_article_*.c): the freed-memory pattern and the budget of a
 * wait (their readers are workers: kernel/workers.h).
 * Everything here is static: a test file exports nothing.
 */
#ifndef TESTS_RCU_ARTICLE_H
#define TESTS_RCU_ARTICLE_H

#include "ktest.h"

/* The freed-memory pattern as the reader sees it in an int or a pointer. */
#define POISON_INT	((int)(POISON_FREE * 0x01010101u))	/* POISON_FREE in each byte */
#define POISON_PTR	((void *)(POISON_FREE * 0x0101010101010101UL))

/*
 * Budget of a wait that only runs out when the kernel misbehaves: 30 s,
 * and 10 s more for every CPU, since under TCG every vCPU shares the same
 * two host cores (16 vCPUs on a loaded host took more than 30 s).
 */
#define BUDGET_BASE_NS		(30 * NSEC_PER_SEC)
#define BUDGET_PER_CPU_NS	(10 * NSEC_PER_SEC)

static inline bool budget_left(u64 start)
{
	u64 budget = BUDGET_BASE_NS + BUDGET_PER_CPU_NS * (u64)num_online_cpus();

	return ktime_get_ns() - start < budget;
}

static inline bool ptr_poisoned(const void *p)
{
	return p == POISON_PTR || p == NULL;
}

#endif
