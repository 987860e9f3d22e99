/*
 * Threads: one pinned to each CPU runs there, has its own errno and
 * newlib state, mallocs beside the others (newlib's locks exclude), and
 * its return value comes back to the thread that joins it; q_thread_exit()
 * ends one early with its status; 60 create/join cycles leave nothing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "utest.h"
#include "quiescent.h"

#define MAX_THREADS	64
#define ROUNDS		60


struct job {
	int cpu;
	int ran_on;
	int errno_kept;
};

static int pinned(void *arg)
{
	struct job *j = arg;
	char buf[64];

	j->ran_on = q_cpu();
	errno = 1000 + j->cpu;
	for (int i = 0; i < ROUNDS; i++) {
		char *p = malloc(32 + i);

		if (!p)
			return -1;
		snprintf(buf, sizeof(buf), "cpu %d round %d", j->cpu, i);
		strcpy(p, buf);
		free(p);
		if (i % 50 == 0)
			q_yield();
	}
	j->errno_kept = errno == 1000 + j->cpu;
	return 10 + j->cpu;
}

static int exits_early(void *arg)
{
	(void)arg;
	q_thread_exit(7);
}

static int returns_arg(void *arg)
{
	return (int)(long)arg;
}

int main(void)
{
	static struct job jobs[MAX_THREADS];
	int tids[MAX_THREADS], n = q_nr_cpus();
	struct sys_exit_status st;

	if (n > MAX_THREADS)
		n = MAX_THREADS;
	for (int i = 0; i < n; i++) {
		jobs[i].cpu = i;
		tids[i] = q_thread_create(pinned, &jobs[i], i);
		CHECK(tids[i] > 0);
	}
	for (int i = 0; i < n; i++) {
		if (tids[i] <= 0)
			continue;
		CHECK(q_thread_join(tids[i], &st) == 0);
		CHECK(st.killed == 0 && st.status == 10 + i);
		CHECK(jobs[i].ran_on == i);
		CHECK(jobs[i].errno_kept);
	}
	tids[0] = q_thread_create(exits_early, NULL, SYS_CPU_ANY);
	CHECK(q_thread_join(tids[0], &st) == 0 && st.status == 7);
	CHECK(q_thread_join(tids[0], &st) == -SYS_ESRCH);	/* collected once */
	for (int i = 0; i < ROUNDS; i++) {
		int tid = q_thread_create(returns_arg, (void *)(long)i, SYS_CPU_ANY);

		CHECK(tid > 0 && q_thread_join(tid, &st) == 0 && st.status == i);
	}
	printf("threads on %d CPUs\n", n);
	return utest_result("threads");
}
