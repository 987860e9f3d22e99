/*
 * Threads until the kernel refuses, each blocked on a notification.  The
 * refusal must be -ENOMEM (the quota), every thread must wake with -EPIPE
 * when the notification's last capability goes, and each round must
 * create as many as the first (what a round spent came back).  Then
 * threads that spin without a system call, four a CPU (a flood of them
 * is slow, not wrong: each blocking call of the creator waits for every
 * spinner's slice), half of them killed through capabilities.  At the
 * end the quota is back where it began.
 */
#include <stdio.h>
#include <string.h>
#include "utest.h"
#include "hostile.h"

#define MOST		400
#define ROUNDS		3

static int tids[MOST];
static volatile int stop;

static int started;

static int blocked(void *arg)
{
	long r;

	__atomic_add_fetch(&started, 1, __ATOMIC_RELAXED);
	r = q_wait((int)(long)arg);

	return r < 0 ? (int)-r : 0;
}

static int spinning(void *arg)
{
	(void)arg;
	while (!stop)
		;
	return 7;
}

/*
 * What the kernel spends for our threads and objects (not user pages nor
 * page tables: malloc's heap grows with the threads' blocks, and the
 * tables that map it stay with the address space).
 */
static long used(void)
{
	struct sys_quota_info info = quota_now();

	return info.threads + info.objects;
}

static int flood(int (*fn)(void *), void *arg)
{
	int n = 0, r = 0;

	while (n < MOST && (r = q_thread_create(fn, arg, SYS_CPU_ANY)) > 0)
		tids[n++] = r;
	CHECK_EQ(r, -SYS_ENOMEM);
	return n;
}

int main(void)
{
	struct sys_exit_status st;
	int first = -1;
	long before;

	printf("hostile_thread_flood: start\n");	/* (stdio's buffer first) */
	CHECK_EQ(q_recv_slot(SYS_RECV_SLOT_NONE), 0);	/* (our thread object, made now) */
	before = used();
	for (int round = 0; round < ROUNDS; round++) {
		int ntf = q_notification_create(SYS_CAP_ANY_SLOT), n;

		CHECK(ntf >= 0);
		n = flood(blocked, (void *)(long)ntf);
		if (first < 0)
			first = n;
		printf("round %d: %d blocked threads\n", round, n);
		CHECK(n > 2);
		CHECK_EQ(n, first);
		while (__atomic_load_n(&started, __ATOMIC_RELAXED) < n)
			q_sleep_ns(1000000);
		q_sleep_ns(20000000);
		started = 0;
		CHECK_EQ(q_cap_delete(ntf), 0);		/* nobody can signal: they wake */
		for (int i = 0; i < n; i++) {
			CHECK_EQ(q_thread_join(tids[i], &st), 0);
			/* -EPIPE, or -EBADF for one that had not looked its slot up yet */
			CHECK(st.status == SYS_EPIPE || st.status == SYS_EBADF);
		}
		wait_given_back(used, before);
	}
	{
		int n = 4 * q_nr_cpus();

		for (int i = 0; i < n; i++) {
			tids[i] = q_thread_create(spinning, NULL, SYS_CPU_ANY);
			CHECK(tids[i] > 0);
		}
		for (int i = 0; i < n; i += 2) {
			int cap = q_thread_cap(SYS_CAP_ANY_SLOT, tids[i]);

			CHECK_EQ(q_kill(cap), 0);
			CHECK_EQ(q_cap_delete(cap), 0);
		}
		stop = 1;
		for (int i = 0; i < n; i++) {
			CHECK_EQ(q_thread_join(tids[i], &st), 0);
			CHECK_EQ(st.status, i % 2 ? 7 : 0);
			CHECK_EQ(st.killed, i % 2 ? 0 : SYS_KILLED_BY_TASK);
		}
	}
	CHECK_EQ(wait_given_back(used, before), before);
	return check_result();
}
