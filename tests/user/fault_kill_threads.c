/*
 * A task killed while its threads run on other CPUs: one thread spins in
 * user mode on every other CPU, then the first thread faults.  The kernel
 * must stop them all (an IPI brings each into the kernel, where it sees
 * the kill on its way back to user mode), free everything and go on.
 */
#include <stdio.h>
#include "quiescent.h"

static volatile int running;

static int spin(void *arg)
{
	(void)arg;
	__atomic_fetch_add(&running, 1, __ATOMIC_RELAXED);
	for (;;)
		;
	return 0;	/* (never) */
}

int main(void)
{
	int others = 0;

	q_set_cpu(0);
	for (int cpu = 1; cpu < q_nr_cpus(); cpu++)
		others += q_thread_create(spin, NULL, cpu) > 0;
	while (__atomic_load_n(&running, __ATOMIC_RELAXED) < others)
		q_yield();
	printf("%d threads spin on the other CPUs; now a NULL write\n", others);
	*(volatile int *)NULL = 1;
	return 0;
}
