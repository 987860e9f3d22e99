/*
 * Spins in user mode on every CPU until killed: one thread pinned to each
 * CPU, the first thread on CPU 0 (tests/user_rcu.c: grace periods must
 * end while user code runs everywhere).  `spin N`: on CPUs 0 to N-1 only
 * (tests/user_membarrier.c: the CPUs without one must see nothing).
 */
#include <stdio.h>
#include <stdlib.h>
#include "quiescent.h"

static int spin(void *arg)
{
	(void)arg;
	for (;;)
		;
	return 0;	/* (never) */
}

int main(int argc, char **argv)
{
	int n = q_nr_cpus();

	if (argc > 1 && atoi(argv[1]) > 0 && atoi(argv[1]) < n)
		n = atoi(argv[1]);

	q_set_cpu(0);
	for (int cpu = 1; cpu < n; cpu++)
		if (q_thread_create(spin, NULL, cpu) < 0)
			return 1;
	printf("spinning in user mode on %d CPU%s\n", n, n == 1 ? "" : "s");
	spin(NULL);
	return 0;
}
