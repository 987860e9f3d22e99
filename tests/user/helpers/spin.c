/*
 * Spins in user mode on every CPU until killed: one thread pinned to each
 * CPU, the first thread on CPU 0 (tests/user_rcu.c: grace periods must
 * end while user code runs everywhere).
 */
#include <stdio.h>
#include "quiescent.h"

static int spin(void *arg)
{
	(void)arg;
	for (;;)
		;
	return 0;	/* (never) */
}

int main(void)
{
	int n = q_nr_cpus();

	q_set_cpu(0);
	for (int cpu = 1; cpu < n; cpu++)
		if (q_thread_create(spin, NULL, cpu) < 0)
			return 1;
	printf("spinning in user mode on %d CPU%s\n", n, n == 1 ? "" : "s");
	spin(NULL);
	return 0;
}
