/*
 * Threads that never make a system call, one spinning on every CPU,
 * while the main thread does what a program does: IPC round trips with a
 * server thread on another CPU, sleeps, thread creation, an expedited
 * membarrier.  The kernel must preempt the spinners (its tick), finish
 * every call, kill a spinner through a thread capability (an IPI takes
 * it out of user mode), and end the task with spinners still spinning.
 */
#include <stdio.h>
#include "utest.h"
#include "qcap.h"

#define MAX_CPUS	16
#define ROUND_TRIPS	100

static volatile int stop;
static volatile unsigned long spins[MAX_CPUS];
static int ep;

static int spinner(void *arg)
{
	long i = (long)arg;

	while (!stop)
		spins[i]++;		/* no system call, ever */
	return 0;
}

static int forever(void *arg)
{
	long i = (long)arg;

	for (;;)
		spins[i]++;
	return 1;
}

static long echo(unsigned long badge, const struct q_msg *req, struct q_msg *reply, void *arg)
{
	(void)badge;
	(void)arg;
	if (q_msg_label(req) == 2)
		return -1;
	reply->w[0] = req->w[0] + 1;
	return 0;
}

static int server(void *arg)
{
	(void)arg;
	q_serve(ep, echo, NULL);
	return 0;
}

static int nothing(void *arg)
{
	return (int)(long)arg;
}

int main(void)
{
	int cpus = q_nr_cpus(), tids[MAX_CPUS], srv, t;
	struct sys_exit_status st;
	struct q_msg m;

	if (cpus > MAX_CPUS)
		cpus = MAX_CPUS;
	ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	CHECK(ep >= 0);
	CHECK_EQ(q_membarrier(SYS_MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0), 0);
	srv = q_thread_create(server, NULL, cpus - 1);
	for (int c = 0; c < cpus; c++)
		tids[c] = q_thread_create(spinner, (void *)(long)c, c);

	/* Everything below shares its CPU with a thread that never enters the kernel. */
	for (int i = 0; i < ROUND_TRIPS; i++) {
		m = q_msg(1, i, 0, 0, 0);
		CHECK_EQ(q_call(ep, &m), 0);
		CHECK_EQ(m.w[0], i + 1);
		if (i % 20 == 0) {
			CHECK_EQ(q_sleep_ns(1000000), 0);
			CHECK_EQ(q_membarrier(SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0), 0);
			t = q_thread_create(nothing, (void *)(long)i, SYS_CPU_ANY);
			CHECK(t > 0);
			CHECK_EQ(q_thread_join(t, &st), 0);
			CHECK_EQ(st.status, i);
			CHECK_EQ(q_set_cpu(i / 20 % cpus), 0);
		}
	}
	stop = 1;
	for (int c = 0; c < cpus; c++) {
		CHECK_EQ(q_thread_join(tids[c], &st), 0);
		CHECK(spins[c] > 0);
	}
	/* A spinner killed through its thread capability: out of user mode by IPI. */
	stop = 0;
	for (int c = 0; c < cpus; c++)
		tids[c] = q_thread_create(forever, (void *)(long)c, c);
	for (int c = 0; c < cpus; c++) {
		int cap = q_thread_cap(SYS_CAP_ANY_SLOT, tids[c]);

		while (spins[c] == 0)
			q_yield();
		CHECK(cap >= 0);
		CHECK_EQ(q_kill(cap), 0);
		CHECK_EQ(q_wait_for(cap, &st), 0);
		CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);
		CHECK_EQ(q_cap_delete(cap), 0);
		CHECK_EQ(q_thread_join(tids[c], &st), 0);
		CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);
	}
	m = q_msg(2, 0, 0, 0, 0);
	q_send(ep, &m);
	CHECK_EQ(q_thread_join(srv, &st), 0);
	/* And the task ends with a spinner on every CPU. */
	for (int c = 0; c < cpus; c++)
		q_thread_create(forever, (void *)(long)c, c);
	return check_result();
}
