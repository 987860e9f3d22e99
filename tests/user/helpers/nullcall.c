/* make bench (tests/bench/user.c): N system calls that do nothing but return, then exit. */
#include <stdlib.h>
#include "quiescent.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;

	for (long i = 0; i < n; i++)
		q_syscall(SYS_task_id, 0, 0, 0, 0, 0, 0);
	return 0;
}
