/*
 * make bench (tests/bench/user.c) and tests/user_nmi.c: nullcall N [CPU]
 * makes N system calls that do nothing but return (on CPU, if given),
 * then exits.
 */
#include <stdlib.h>
#include "quiescent.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;

	if (argc > 2)
		q_set_cpu(atoi(argv[2]));
	for (long i = 0; i < n; i++)
		q_syscall(SYS_task_id, 0, 0, 0, 0, 0, 0);
	return 0;
}
