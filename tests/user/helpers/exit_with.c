/*
 * Ends as its arguments say (tests/user/exit_status.c): exit_with N
 * (exit(N)), return N (from main), abort, fault (a NULL read), threads N
 * (exit(N) while a thread on each other CPU spins in user mode).
 */
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
	if (argc < 2)
		return 100;
	if (!strcmp(argv[1], "abort"))
		abort();
	if (!strcmp(argv[1], "fault"))
		return *(volatile int *)NULL;
	if (!strcmp(argv[1], "return") && argc > 2)
		return atoi(argv[2]);
	if (!strcmp(argv[1], "threads") && argc > 2) {
		for (int cpu = 0; cpu < q_nr_cpus(); cpu++)
			if (cpu != q_cpu())
				q_thread_create(spin, NULL, cpu);
		q_sleep_ns(20 * 1000 * 1000);	/* they run */
		exit(atoi(argv[2]));
	}
	exit(atoi(argv[1]));
}
