/*
 * The scheduler's calls, hostile: threads that yield in a storm on
 * every CPU, threads that hop between CPUs as fast as they can while
 * reading the clock (which must never go back), sleeps of 0, 1 ns and
 * for ever (the last two ended by a kill through a capability, which
 * must come within a slice), set_cpu to CPUs that are not there, and
 * expedited membarriers from every thread at once.
 */
#include <stdio.h>
#include <limits.h>
#include "utest.h"
#include "qcap.h"

#define MAX_THREADS	32
#define YIELDS		300
#define HOPS		100

static int yielder(void *arg)
{
	(void)arg;
	for (int i = 0; i < YIELDS; i++) {
		if (q_yield())
			return 1;
		if (i % 50 == 0 && q_membarrier(SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0))
			return 2;
	}
	return 0;
}

static int hopper(void *arg)
{
	int cpus = q_nr_cpus(), start = (int)(long)arg;
	uint64_t last = q_clock_ns();

	for (int i = 0; i < HOPS; i++) {
		uint64_t now;

		if (q_set_cpu((start + i) % cpus))
			return 1;
		now = q_clock_ns();
		if (now < last) {
			printf("FAILED: the clock went back %llu ns on CPU%d\n",
			       (unsigned long long)(last - now), q_cpu());
			return 2;
		}
		last = now;
	}
	return 0;
}

static int sleeper(void *arg)
{
	q_sleep_ns((uint64_t)(unsigned long)arg);
	return 5;		/* never, for the long ones */
}

static void silly_sleeps(void)
{
	uint64_t forever[] = { UINT64_MAX, 1ULL << 63, UINT64_MAX - 1000 };
	struct sys_exit_status st;

	CHECK_EQ(q_sleep_ns(0), 0);
	CHECK_EQ(q_sleep_ns(1), 0);
	for (unsigned int i = 0; i < sizeof(forever) / sizeof(forever[0]); i++) {
		int t = q_thread_create(sleeper, (void *)(unsigned long)forever[i], SYS_CPU_ANY);
		int cap = q_thread_cap(SYS_CAP_ANY_SLOT, t);
		q_sleep_ns(10000000);
		CHECK_EQ(q_kill(cap), 0);	/* it wakes within a slice (100 ms), or hangs the test */
		CHECK_EQ(q_wait_for(cap, &st), 0);
		CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);
		CHECK_EQ(q_cap_delete(cap), 0);
		CHECK_EQ(q_thread_join(t, &st), 0);
	}
}

static void bad_cpus(void)
{
	int cpus = q_nr_cpus();
	int bad[] = { cpus, -2, INT_MIN, INT_MAX, 4096 };

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(q_set_cpu(bad[i]), -SYS_EINVAL);
		CHECK_EQ(q_thread_create(sleeper, NULL, bad[i]), -SYS_EINVAL);
	}
	CHECK_EQ(q_syscall(SYS_set_cpu, (1L << 32) | 0, 0, 0, 0, 0, 0), 0);	/* an int: CPU0 */
	CHECK_EQ(q_cpu(), 0);
}

int main(void)
{
	int cpus = q_nr_cpus(), n = 0, tids[MAX_THREADS];
	struct sys_exit_status st;

	CHECK_EQ(q_membarrier(SYS_MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0), 0);
	CHECK_EQ(q_membarrier(-1, 0), -SYS_EINVAL);
	CHECK_EQ(q_membarrier(SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED, 1), -SYS_EINVAL);
	bad_cpus();
	silly_sleeps();
	for (int c = 0; c < cpus && n + 4 <= MAX_THREADS; c++) {
		tids[n++] = q_thread_create(yielder, NULL, c);
		tids[n++] = q_thread_create(yielder, NULL, c);
		tids[n++] = q_thread_create(hopper, (void *)(long)c, c);
		tids[n++] = q_thread_create(hopper, (void *)(long)(c + 1), c);
	}
	for (int i = 0; i < n; i++) {
		CHECK(tids[i] > 0);
		CHECK_EQ(q_thread_join(tids[i], &st), 0);
		CHECK_EQ(st.killed, 0);
		CHECK_EQ(st.status, 0);
	}
	return check_result();
}
