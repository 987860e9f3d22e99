/*
 * make bench (tests/bench/user.c), make profile and tests/user_nmi.c:
 * nullcall N [CPU] makes N system calls that do nothing but return (on
 * CPU, if given), timed inside too (timed.h), then exits.
 */
#include <stdlib.h>
#include "timed.h"

static int null_call(long i, void *arg)
{
	(void)i;
	(void)arg;
	q_syscall(SYS_task_id, 0, 0, 0, 0, 0, 0);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;

	if (argc > 2)
		q_set_cpu(atoi(argv[2]));
	timed_loop(n, null_call, NULL, "bench=user op=syscall");
	return 0;
}
