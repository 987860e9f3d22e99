/*
 * Spins in user mode until killed:
 *   spin          on every CPU, one thread pinned to each, the first on
 *                 CPU 0 (tests/user_rcu.c: grace periods must end while
 *                 user code runs everywhere);
 *   spin CPU      on that CPU alone, the others stay idle (tests/user_rcu.c);
 *   spin upto N   on CPUs 0 to N-1 only (tests/user_membarrier.c: the CPUs
 *                 without one must see nothing).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

	if (argc > 2 && !strcmp(argv[1], "upto")) {
		if (atoi(argv[2]) > 0 && atoi(argv[2]) < n)
			n = atoi(argv[2]);
	} else if (argc > 1) {
		int cpu = atoi(argv[1]);

		if (cpu < 0 || cpu >= n || q_set_cpu(cpu) < 0)
			return 2;
		printf("spinning in user mode on CPU%d\n", cpu);
		spin(NULL);
	}
	q_set_cpu(0);
	for (int cpu = 1; cpu < n; cpu++)
		if (q_thread_create(spin, NULL, cpu) < 0)
			return 1;
	printf("spinning in user mode on %d CPU%s\n", n, n == 1 ? "" : "s");
	spin(NULL);
	return 0;
}
