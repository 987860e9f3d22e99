/*
 * A task that ends while its threads are in every kind of wait: calling
 * its parent (who holds the reply), receiving and calling on endpoints
 * nobody serves, serving a call it never answers, sleeping for ever,
 * waiting on a notification, spinning.  Ended by exit(5) from main, by
 * abort() in a thread, by its parent's kill, by its main thread leaving
 * first.  The parent must see the right status each time, its held
 * reply must fail with -ESRCH, and nothing may stay queued on its
 * endpoint.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "utest.h"
#include "qcap.h"

#define ME		"tests/user/hostile_task_exit"
#define CHILD_SLOT	80

static int own_recv, own_call, own_serve, ntf;
static volatile int never;

static int t_call_parent(void *arg)
{
	struct q_msg m = q_msg(1, 0, 0, 0, 0);

	(void)arg;
	q_call(0, &m);
	return 0;
}

static int t_recv(void *arg)
{
	struct q_msg m;

	(void)arg;
	q_recv(own_recv, &m);
	return 0;
}

static int t_call(void *arg)
{
	struct q_msg m = q_msg(1, 0, 0, 0, 0);

	q_call((int)(long)arg, &m);
	return 0;
}

static int t_serve_never_reply(void *arg)
{
	struct q_msg m;

	(void)arg;
	q_recv(own_serve, &m);
	while (!never)
		q_sleep_ns(1000000);
	return 0;
}

static int t_sleep(void *arg)
{
	(void)arg;
	q_sleep_ns(UINT64_MAX);
	return 0;
}

static int t_wait(void *arg)
{
	(void)arg;
	q_wait(ntf);
	return 0;
}

static int t_spin(void *arg)
{
	(void)arg;
	while (!never)
		;
	return 0;
}

static int t_abort(void *arg)
{
	(void)arg;
	q_sleep_ns(30000000);
	abort();
}

static int t_late(void *arg)
{
	(void)arg;
	q_sleep_ns(30000000);
	return 9;
}

static void start_waiters(void)
{
	own_recv = q_endpoint_create(SYS_CAP_ANY_SLOT);
	own_call = q_endpoint_create(SYS_CAP_ANY_SLOT);
	own_serve = q_endpoint_create(SYS_CAP_ANY_SLOT);
	ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	q_thread_create(t_call_parent, NULL, SYS_CPU_ANY);
	q_thread_create(t_recv, NULL, SYS_CPU_ANY);
	q_thread_create(t_call, (void *)(long)own_call, SYS_CPU_ANY);
	q_thread_create(t_serve_never_reply, NULL, SYS_CPU_ANY);
	q_thread_create(t_call, (void *)(long)own_serve, SYS_CPU_ANY);
	q_thread_create(t_sleep, NULL, SYS_CPU_ANY);
	q_thread_create(t_wait, NULL, SYS_CPU_ANY);
	q_thread_create(t_spin, NULL, SYS_CPU_ANY);
}

static int child(const char *how)
{
	start_waiters();
	if (!strcmp(how, "abort"))
		q_thread_create(t_abort, NULL, SYS_CPU_ANY);
	if (!strcmp(how, "mainleaves")) {
		q_thread_create(t_late, NULL, SYS_CPU_ANY);
		q_thread_exit(3);
	}
	q_sleep_ns(50000000);
	if (!strcmp(how, "exit"))
		exit(5);
	for (;;)
		q_sleep_ns(10000000);
}

static void one(const char *how, int status, int killed)
{
	int ep = q_endpoint_create(SYS_CAP_ANY_SLOT), caps[1] = { ep }, id;
	struct sys_exit_status st = { -1, -1 };
	char cmd[64];
	struct q_msg m;

	snprintf(cmd, sizeof(cmd), "%s %s", ME, how);
	id = q_spawn_caps(cmd, caps, 1, CHILD_SLOT);
	CHECK(id > 0);
	CHECK(q_recv(ep, &m) >= 0);		/* its call: we hold the reply */
	if (killed == SYS_KILLED_BY_TASK) {
		q_sleep_ns(50000000);
		CHECK_EQ(q_kill(CHILD_SLOT), 0);
	}
	if (!strcmp(how, "mainleaves")) {
		/* Its main thread left; the task lives on in its other threads: kill them. */
		q_sleep_ns(100000000);
		CHECK_EQ(q_kill(CHILD_SLOT), 0);
	}
	CHECK_EQ(q_task_wait(id, &st), 0);
	printf("%s: status %d, killed %d\n", how, st.status, st.killed);
	CHECK_EQ(st.status, status);
	CHECK_EQ(st.killed, killed);
	m = q_msg(1, 0, 0, 0, 0);
	CHECK_EQ(q_reply(&m), -SYS_ESRCH);
	CHECK_EQ(q_send_nonblock(ep, &m), -SYS_EAGAIN);
	CHECK_EQ(q_recv_nonblock(ep, &m), -SYS_EAGAIN);
	CHECK_EQ(q_cap_delete(CHILD_SLOT), 0);
	CHECK_EQ(q_cap_delete(ep), 0);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		return child(argv[1]);
	one("exit", 5, 0);
	one("abort", 0, SYS_KILLED_ABORT);
	one("kill", 0, SYS_KILLED_BY_TASK);
	one("mainleaves", 0, SYS_KILLED_BY_TASK);
	return check_result();
}
