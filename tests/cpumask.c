/*
 * struct cpumask: every operation at the edges of its words (CPU 0, the
 * last bit of a word, the first of the next, NR_CPUS - 1), since a mask
 * wider than one word is what NR_CPUS > 64 relies on; and IPIs to a mask.
 */
#include "ktest.h"

/* The CPUs at the edges of words, below NR_CPUS, in increasing order. */
static int edge_cpus(int *out)
{
	static const int edges[] = { 0, 1, 31, 32, 62, 63, 64, 65, 127, 128, 200, 255, 256 };
	int n = 0;

	for (unsigned i = 0; i < ARRAY_SIZE(edges); i++)
		if (edges[i] < NR_CPUS && (n == 0 || edges[i] > out[n - 1]))
			out[n++] = edges[i];
	if (out[n - 1] != NR_CPUS - 1)
		out[n++] = NR_CPUS - 1;
	return n;
}

KTEST(cpumask_set_test_clear_at_word_edges)
{
	int cpus[16], n = edge_cpus(cpus), cpu, seen = 0;
	struct cpumask m;

	cpumask_clear(&m);
	KEXPECT(cpumask_empty(&m));
	KEXPECT_EQ(cpumask_first(&m), nr_cpumask_bits);
	for (int i = 0; i < n; i++)
		cpumask_set_cpu(cpus[i], &m);
	KEXPECT_EQ(cpumask_weight(&m), n);
	KEXPECT_EQ(cpumask_first(&m), 0);
	KEXPECT_EQ(cpumask_last(&m), NR_CPUS - 1);
	/* for_each_cpu visits exactly the set CPUs, in order, across words. */
	for_each_cpu(cpu, &m) {
		KASSERT(seen < n);
		KEXPECT_EQ(cpu, cpus[seen]);
		seen++;
	}
	KEXPECT_EQ(seen, n);
	for (int i = 0; i < n; i++) {
		KEXPECT(cpumask_test_cpu(cpus[i], &m));
		if (cpus[i] + 1 < NR_CPUS && (i + 1 == n || cpus[i + 1] != cpus[i] + 1))
			KEXPECT(!cpumask_test_cpu(cpus[i] + 1, &m));
		KEXPECT_EQ(cpumask_next(cpus[i], &m), i + 1 < n ? cpus[i + 1] : nr_cpumask_bits);
	}
	/* Out of range reads as not set, never beyond the array. */
	KEXPECT(!cpumask_test_cpu(-1, &m));
	KEXPECT(!cpumask_test_cpu(NR_CPUS, &m));
	for (int i = 0; i < n; i++) {
		cpumask_clear_cpu(cpus[i], &m);
		KEXPECT(!cpumask_test_cpu(cpus[i], &m));
		KEXPECT_EQ(cpumask_weight(&m), n - 1 - i);
	}
	KEXPECT(cpumask_empty(&m));
}

/* The searches step over empty words: CPU 0 and the last CPU only. */
KTEST(cpumask_search_skips_empty_words)
{
	int last = NR_CPUS - 1, cpu, n = 0;
	struct cpumask m;

	cpumask_clear(&m);
	__cpumask_set_cpu(last, &m);
	KEXPECT_EQ(cpumask_first(&m), last);
	KEXPECT_EQ(cpumask_next(-1, &m), last);
	KEXPECT_EQ(cpumask_next(last, &m), nr_cpumask_bits);
	__cpumask_set_cpu(0, &m);
	KEXPECT_EQ(cpumask_next(0, &m), (last ? last : nr_cpumask_bits));
	for_each_cpu(cpu, &m)
		n++;
	KEXPECT_EQ(n, (last ? 2 : 1));
}

KTEST(cpumask_test_and_set_copy_and_logic)
{
	struct cpumask a, b, c;
	int last = NR_CPUS - 1;

	cpumask_clear(&a);
	KEXPECT(!cpumask_test_and_set_cpu(last, &a));
	KEXPECT(cpumask_test_and_set_cpu(last, &a));
	KEXPECT(cpumask_test_and_clear_cpu(last, &a));
	KEXPECT(!cpumask_test_and_clear_cpu(last, &a));
	__cpumask_set_cpu(0, &a);
	__cpumask_set_cpu(last, &a);
	cpumask_copy(&b, &a);
	KEXPECT(cpumask_equal(&a, &b));
	KEXPECT_EQ(cpumask_weight(&b), (last ? 2 : 1));
	__cpumask_clear_cpu(0, &b);
	KEXPECT(!cpumask_equal(&a, &b));
	cpumask_andnot(&c, &a, &b);	/* {0} */
	KEXPECT_EQ(cpumask_weight(&c), 1);
	KEXPECT(cpumask_test_cpu(0, &c));
	cpumask_or(&c, &c, &b);
	KEXPECT(cpumask_equal(&c, &a));
	cpumask_and(&c, &a, &b);
	KEXPECT(cpumask_equal(&c, &b));
}

KTEST(cpumask_format_prints_every_word)
{
	char buf[CPUMASK_FORMAT_LEN];
	struct cpumask m;

	cpumask_clear(&m);
	cpumask_format(buf, sizeof(buf), &m);
	KEXPECT(!strcmp(buf, "0"));
	__cpumask_set_cpu(0, &m);
	__cpumask_set_cpu(1, &m);
	cpumask_format(buf, sizeof(buf), &m);
	KEXPECT(!strcmp(buf, "0x3"));
	if (NR_CPUS <= 64)
		return;
	__cpumask_set_cpu(64, &m);
	cpumask_format(buf, sizeof(buf), &m);
	KEXPECT(!strcmp(buf, "0x1,0000000000000003"));
}

KTEST(cpumask_online_mask_matches_cpu_online)
{
	int cpu, n = 0;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if (cpu_online(cpu))
			n++;
	KEXPECT_EQ(n, num_online_cpus());
	KEXPECT_EQ(cpumask_weight(cpu_online_mask), num_online_cpus());
	KEXPECT(cpumask_test_cpu(0, cpu_online_mask));
}

static struct cpumask ran_here;

static void note_cpu(void *info)
{
	(void)info;
	cpumask_set_cpu(smp_processor_id(), &ran_here);
}

KTEST(on_each_cpu_mask_runs_only_on_the_mask)
{
	struct cpumask want;
	int cpu;

	/* Every other online CPU, the last one included, and not this one. */
	cpumask_clear(&want);
	for_each_online_cpu(cpu)
		if (cpu % 2 == 1 || cpu == cpumask_last(cpu_online_mask))
			__cpumask_set_cpu(cpu, &want);
	__cpumask_clear_cpu(smp_processor_id(), &want);
	cpumask_clear(&ran_here);
	on_each_cpu_mask(&want, note_cpu, NULL, true);
	KEXPECT(cpumask_equal(&ran_here, &want));
	/* This CPU runs it too when it is in the mask. */
	__cpumask_set_cpu(smp_processor_id(), &want);
	cpumask_clear(&ran_here);
	on_each_cpu_mask(&want, note_cpu, NULL, true);
	KEXPECT(cpumask_equal(&ran_here, &want));
}
