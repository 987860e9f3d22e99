/*
 * Threads that change under the kernel's feet: hopping between CPUs as
 * fast as they can while they are killed at random moments, threads
 * created and ending in a loop on every CPU, and an expedited membarrier
 * from another thread all the while (it must find every CPU, whatever
 * runs there, and never wait for a thread that is gone).  Every kill
 * lands, every membarrier returns, and the thread quota comes back.
 */
#include <stdio.h>
#include <string.h>
#include "utest.h"
#include "hostile.h"

#define ROUNDS		30
#define BARRIERS	200

static volatile int stop;

static int hopper(void *arg)
{
	int cpus = q_nr_cpus();

	for (long i = (long)arg;; i++)
		q_set_cpu(i % cpus);
	return 0;
}

static int brief(void *arg)
{
	return (int)(long)arg;
}

static int barrier_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < BARRIERS && !stop; i++)
		if (q_membarrier(SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0))
			return 1;
	return 0;
}

static long threads_charged(void)
{
	return quota_now().threads;
}

int main(void)
{
	struct sys_exit_status st;
	unsigned int seed = 99;
	long before;
	int b;

	CHECK_EQ(q_recv_slot(SYS_RECV_SLOT_NONE), 0);
	before = threads_charged();
	CHECK_EQ(q_membarrier(SYS_MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0), 0);
	b = q_thread_create(barrier_thread, NULL, SYS_CPU_ANY);
	for (int r = 0; r < ROUNDS; r++) {
		int h = q_thread_create(hopper, (void *)(long)r, SYS_CPU_ANY);
		int cap = q_thread_cap(SYS_CAP_ANY_SLOT, h);
		int t = q_thread_create(brief, (void *)(long)r, r % q_nr_cpus());

		seed = seed * 1103515245 + 12345;
		q_sleep_ns((seed >> 16) % 3 * 1000000);
		kill_and_collect(h, cap, SYS_KILLED_BY_TASK);
		CHECK_EQ(q_thread_join(t, &st), 0);
		CHECK_EQ(st.status, r);
	}
	stop = 1;
	CHECK_EQ(q_thread_join(b, &st), 0);
	CHECK_EQ(st.status, 0);
	CHECK_EQ(wait_given_back(threads_charged, before), before);
	return check_result();
}
