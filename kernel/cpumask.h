/*
 * CPU masks with Linux's names (<linux/cpumask.h>): one bit per CPU in a
 * bitmap of NR_CPUS bits, so raising NR_CPUS past the width of a word is
 * one number in param.h.  Pass masks by pointer (struct cpumask *); the
 * ordering of each operation is that of the bit operation under it
 * (lib/bitops.h): cpumask_set_cpu() and cpumask_clear_cpu() are atomic
 * and relaxed, cpumask_test_and_set_cpu() is fully ordered, the __ forms
 * are plain.
 */
#ifndef KERNEL_CPUMASK_H
#define KERNEL_CPUMASK_H

#include "bitops.h"
#include "param.h"	/* NR_CPUS */

struct cpumask {
	unsigned long bits[BITS_TO_LONGS(NR_CPUS)];
};
typedef struct cpumask cpumask_t;

#define cpumask_bits(maskp)	((maskp)->bits)
/* Every mask has NR_CPUS bits; searches return NR_CPUS for "none". */
#define nr_cpumask_bits		NR_CPUS

/* The online CPUs.  Changed only through set_cpu_online() (smp.c). */
extern struct cpumask __cpu_online_mask;
#define cpu_online_mask		((const struct cpumask *)&__cpu_online_mask)

static inline void cpumask_set_cpu(int cpu, struct cpumask *m)
{
	set_bit(cpu, cpumask_bits(m));
}

static inline void cpumask_clear_cpu(int cpu, struct cpumask *m)
{
	clear_bit(cpu, cpumask_bits(m));
}

static inline void __cpumask_set_cpu(int cpu, struct cpumask *m)
{
	__set_bit(cpu, cpumask_bits(m));
}

static inline void __cpumask_clear_cpu(int cpu, struct cpumask *m)
{
	__clear_bit(cpu, cpumask_bits(m));
}

static inline bool cpumask_test_cpu(int cpu, const struct cpumask *m)
{
	return cpu >= 0 && cpu < nr_cpumask_bits && test_bit(cpu, cpumask_bits(m));
}

static inline bool cpumask_test_and_set_cpu(int cpu, struct cpumask *m)
{
	return test_and_set_bit(cpu, cpumask_bits(m));
}

static inline bool cpumask_test_and_clear_cpu(int cpu, struct cpumask *m)
{
	return test_and_clear_bit(cpu, cpumask_bits(m));
}

static inline void cpumask_clear(struct cpumask *m)
{
	bitmap_zero(cpumask_bits(m), nr_cpumask_bits);
}

static inline void cpumask_copy(struct cpumask *dst, const struct cpumask *src)
{
	bitmap_copy(cpumask_bits(dst), cpumask_bits(src), nr_cpumask_bits);
}

static inline bool cpumask_empty(const struct cpumask *m)
{
	return bitmap_empty(cpumask_bits(m), nr_cpumask_bits);
}

static inline bool cpumask_equal(const struct cpumask *a, const struct cpumask *b)
{
	return bitmap_equal(cpumask_bits(a), cpumask_bits(b), nr_cpumask_bits);
}

static inline int cpumask_weight(const struct cpumask *m)
{
	return bitmap_weight(cpumask_bits(m), nr_cpumask_bits);
}

/* The first CPU in m, or nr_cpumask_bits (NR_CPUS) if it is empty. */
static inline int cpumask_first(const struct cpumask *m)
{
	return find_first_bit(cpumask_bits(m), nr_cpumask_bits);
}

/* The first CPU in m after n (n = -1: the first), or nr_cpumask_bits. */
static inline int cpumask_next(int n, const struct cpumask *m)
{
	return find_next_bit(cpumask_bits(m), nr_cpumask_bits, n + 1);
}

/* The highest CPU in m, or nr_cpumask_bits if it is empty. */
static inline int cpumask_last(const struct cpumask *m)
{
	int cpu, last = nr_cpumask_bits;

	for (cpu = cpumask_first(m); cpu < nr_cpumask_bits; cpu = cpumask_next(cpu, m))
		last = cpu;
	return last;
}

static inline void cpumask_and(struct cpumask *dst, const struct cpumask *a,
			       const struct cpumask *b)
{
	bitmap_and(cpumask_bits(dst), cpumask_bits(a), cpumask_bits(b), nr_cpumask_bits);
}

static inline void cpumask_or(struct cpumask *dst, const struct cpumask *a,
			      const struct cpumask *b)
{
	bitmap_or(cpumask_bits(dst), cpumask_bits(a), cpumask_bits(b), nr_cpumask_bits);
}

static inline void cpumask_andnot(struct cpumask *dst, const struct cpumask *a,
				  const struct cpumask *b)
{
	bitmap_andnot(cpumask_bits(dst), cpumask_bits(a), cpumask_bits(b), nr_cpumask_bits);
}

/* Each CPU in mask, in increasing order. */
#define for_each_cpu(cpu, mask)						\
	for ((cpu) = cpumask_first(mask); (cpu) < nr_cpumask_bits;	\
	     (cpu) = cpumask_next((cpu), (mask)))

/*
 * Writes m into buf as hexadecimal ("0x3"; words above the first follow
 * in full, "0x1,0000000000000000" for CPU 64), as much as fits.
 */
int cpumask_format(char *buf, int len, const struct cpumask *m);
#define CPUMASK_FORMAT_LEN	(20 + 17 * (BITS_TO_LONGS(NR_CPUS) - 1))

#endif
