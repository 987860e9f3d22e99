/*
 * pingpong CLIENT_CPU SERVER_CPU ROUNDS [task]: the main thread, on
 * CLIENT_CPU, calls a server thread on SERVER_CPU ROUNDS times through an
 * endpoint (tests/ipc_switch.c counts how the kernel switched); with
 * `task`, the server is another task (pingpong serve SERVER_CPU, given
 * the endpoint in its slot 0), so each call and reply also switches
 * address spaces (tests/bench/ipc.c times both; make profile counts
 * their instructions).  The rounds are timed inside too (timed.h), after
 * a few of warm-up.  Exit status 0 when every reply was right.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qcap.h"
#include "timed.h"

#define LABEL_ADD	1
#define LABEL_STOP	2

static long add_one(unsigned long badge, const struct q_msg *req, struct q_msg *reply, void *arg)
{
	(void)badge;
	(void)arg;
	if (q_msg_label(req) == LABEL_STOP)
		return -1;
	reply->w[0] = req->w[0] + 1;
	return 0;
}

static int server(void *arg)
{
	return q_serve(*(int *)arg, add_one, NULL) == -1 ? 0 : 1;
}

#define SELF		"tests/user/helpers/pingpong"
#define SERVER_TASK	50	/* our slot for the server task's capability */

/* The server in a task of its own; its task capability in SERVER_TASK. */
static int start_server_task(int ep, int cpu)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), SELF " serve %d", cpu);
	return q_spawn_caps(cmd, &ep, 1, SERVER_TASK) < 0 ? -1 : 0;
}

/* One call, its reply checked. */
static int call_add(long i, void *arg)
{
	struct q_msg m = q_msg(LABEL_ADD, i, 0, 0, 0);

	return q_call(*(int *)arg, &m) || m.w[0] != (unsigned long)i + 1;
}

int main(int argc, char **argv)
{
	static int ep;
	int client_cpu, server_cpu, rounds, tid;
	struct sys_exit_status st;
	char labels[80];
	struct q_msg m;
	long wrong;

	if (argc == 3 && !strcmp(argv[1], "serve")) {
		ep = 0;
		return q_set_cpu(atoi(argv[2])) ? 3 : server(&ep);
	}
	if (argc != 4 && argc != 5)
		return 2;
	client_cpu = atoi(argv[1]);
	server_cpu = atoi(argv[2]);
	rounds = atoi(argv[3]);
	ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	if (ep < 0 || q_set_cpu(client_cpu))
		return 3;
	tid = argc == 5 ? start_server_task(ep, server_cpu) : q_thread_create(server, &ep, server_cpu);
	if (tid < 0)
		return 4;
	snprintf(labels, sizeof(labels), "bench=ipc op=ipc between=%s cpus_apart=%d",
		 argc == 5 ? "tasks" : "threads", client_cpu != server_cpu);
	wrong = timed_loop(rounds, call_add, &ep, labels);
	m = q_msg(LABEL_STOP, 0, 0, 0, 0);
	q_send(ep, &m);
	if ((argc == 5 ? q_wait_for(SERVER_TASK, &st) : q_thread_join(tid, &st)) || st.status)
		return 5;
	return wrong ? 6 : 0;
}
