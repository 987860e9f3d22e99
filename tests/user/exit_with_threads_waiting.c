/*
 * A task ends (main returns) while its other threads are in every kind of
 * wait the kernel has -- a receive nobody sends to, a call nobody
 * receives, a notification nobody signals, a long sleep, a join of a
 * thread that never ends -- or busy in the kernel and in user mode:
 * yielding, calling membarrier(), spinning.  Each must leave: the exit
 * status is main's, and the runner's leak check finds every page, stack
 * and object freed.  A wait that does not give up at a kill hangs the
 * test to its timeout; one that forgets what it held shows as a leak.
 */
#include "qcap.h"
#include "quiescent.h"

#define EP		1	/* nobody sends here */
#define NTF		2	/* nobody signals */
#define EP_NOBODY	3	/* nobody receives here */
#define EACH		2	/* threads of each kind */
#define SETTLE_NS	20000000ULL	/* 20 ms: most are in their wait by then */

static int receives(void *a) { struct q_msg m; (void)a; q_recv(EP, &m); return 1; }
static int waits(void *a) { (void)a; q_wait(NTF); return 1; }
static int sleeps(void *a) { (void)a; q_sleep_ns(3600ULL * 1000000000ULL); return 1; }
static int joins(void *a) { struct sys_exit_status st; return q_thread_join((int)(long)a, &st); }

static int calls(void *a)
{
	struct q_msg m = q_msg(1, 2, 3, 4, 5);

	(void)a;
	q_call(EP_NOBODY, &m);
	return 1;
}

static int yields(void *a)
{
	(void)a;
	for (;;)
		q_yield();
	return 1;
}

static int membarriers(void *a)
{
	(void)a;
	for (;;)
		q_membarrier(SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0);
	return 1;
}

static int spins(void *a)
{
	(void)a;
	for (;;)
		;
	return 1;
}

int main(void)
{
	int (*kinds[])(void *) = { receives, calls, waits, sleeps, yields, membarriers, spins };
	int n = q_nr_cpus(), made = 0, waiter = -1;

	if (q_endpoint_create(EP) < 0 || q_notification_create(NTF) < 0 ||
	    q_endpoint_create(EP_NOBODY) < 0 ||
	    q_membarrier(SYS_MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) < 0)
		return 2;
	for (unsigned int k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (int i = 0; i < EACH; i++, made++) {
			int tid = q_thread_create(kinds[k], NULL, made % n);

			if (tid < 0)
				return 3;	/* (no printf: newlib's stdio would double the program) */
			if (kinds[k] == sleeps)
				waiter = tid;
		}
	for (int i = 0; i < EACH; i++, made++)
		if (q_thread_create(joins, (void *)(long)waiter, made % n) < 0)
			return 3;
	q_sleep_ns(SETTLE_NS);
	return 0;
}
