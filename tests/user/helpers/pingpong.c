/*
 * pingpong CLIENT_CPU SERVER_CPU ROUNDS: the main thread, on CLIENT_CPU,
 * calls a server thread on SERVER_CPU ROUNDS times through an endpoint
 * (tests/ipc_switch.c counts how the kernel switched).  Exit status 0
 * when every reply was right.
 */
#include <stdlib.h>
#include "qcap.h"

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

int main(int argc, char **argv)
{
	static int ep;
	int client_cpu, server_cpu, rounds, tid, wrong = 0;
	struct sys_exit_status st;
	struct q_msg m;

	if (argc != 4)
		return 2;
	client_cpu = atoi(argv[1]);
	server_cpu = atoi(argv[2]);
	rounds = atoi(argv[3]);
	ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	if (ep < 0 || q_set_cpu(client_cpu))
		return 3;
	tid = q_thread_create(server, &ep, server_cpu);
	if (tid < 0)
		return 4;
	for (int i = 0; i < rounds; i++) {
		m = q_msg(LABEL_ADD, i, 0, 0, 0);
		if (q_call(ep, &m) || m.w[0] != (unsigned long)i + 1)
			wrong++;
	}
	m = q_msg(LABEL_STOP, 0, 0, 0, 0);
	q_send(ep, &m);
	if (q_thread_join(tid, &st) || st.status)
		return 5;
	return wrong ? 6 : 0;
}
