/*
 * make run's boot module: a program in user mode, in its own address
 * space, saying hello through newlib's printf and the console system call.
 */
#include <stdio.h>
#include "quiescent.h"

int main(int argc, char **argv)
{
	printf("Hello from user mode: %s, task %d, on CPU%d of %d (argc %d)\n", argv[0],
	       q_task_id(), q_cpu(), q_nr_cpus(), argc);
	return 0;
}
