/*
 * fastpath MODE CLIENT_CPU SERVER_CPU ROUNDS: a client thread calls a server
 * thread ROUNDS times (tests/ipc_fastpath.c counts which way the kernel
 * took, kernel/user/fastpath.c):
 *   plain  words only, the server in reply-and-receive: the fast path's case;
 *   cap    each call and each reply carries a capability (a copy of a
 *          notification), which must arrive in a new slot: the general way;
 *   late   the server replies, yields, then receives: each call finds no
 *          receiver waiting and queues: the general way;
 *   victim as plain, but the kernel kills the server thread (the test's
 *          hook) in the middle: the client's call then fails, with
 *          -EPIPE (the server's reply capability went with it), and the
 *          client stops: exit status 7 if so, the server thread killed.
 * Exit status 0 when every reply was right.
 */
#include <stdlib.h>
#include <string.h>
#include "qcap.h"

#define LABEL_ADD	1
#define LABEL_STOP	2

static int ep, ntf;
static const char *mode;

/* A capability received in msg: in a slot of its own, a notification; then deleted. */
static int cap_arrived(const struct q_msg *m)
{
	struct sys_cap_info info;
	int slot = q_msg_cap(m);

	if (slot < 0 || slot == ntf || q_cap_inspect(slot, &info) || info.type != SYS_OBJ_NOTIFICATION)
		return 0;
	return q_cap_delete(slot) == 0;
}

static int server(void *arg)
{
	struct q_msg m;
	long badge;
	int wrong = 0;

	(void)arg;
	if (q_recv_slot(SYS_CAP_ANY_SLOT))
		return 1;
	badge = q_recv(ep, &m);
	for (;;) {
		unsigned long w0 = m.w[0];

		if (badge < 0)
			return 2;
		if (q_msg_label(&m) == LABEL_STOP)
			return wrong ? 3 : 0;
		if (!strcmp(mode, "cap") && !cap_arrived(&m))
			wrong++;
		m = q_msg(LABEL_ADD, w0 + 1, 0, 0, 0);
		if (!strcmp(mode, "cap"))
			q_msg_give_cap(&m, ntf);
		if (!strcmp(mode, "late")) {
			if (q_reply(&m))
				wrong++;
			q_yield();	/* the client runs, and calls before we receive */
			badge = q_recv(ep, &m);
		} else {
			badge = q_reply_recv(ep, &m);
		}
	}
}

int main(int argc, char **argv)
{
	struct sys_exit_status st;
	int cpu, server_cpu, rounds, tid;
	long wrong = 0;
	struct q_msg m;

	if (argc != 5)
		return 2;
	mode = argv[1];
	cpu = atoi(argv[2]);
	server_cpu = atoi(argv[3]);
	rounds = atoi(argv[4]);
	ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	if (ep < 0 || ntf < 0 || q_set_cpu(cpu) || q_recv_slot(SYS_CAP_ANY_SLOT))
		return 3;
	tid = q_thread_create(server, NULL, server_cpu);
	if (tid < 0)
		return 4;
	for (long i = 0; i < rounds; i++) {
		long r;

		m = q_msg(LABEL_ADD, i, 0, 0, 0);
		if (!strcmp(mode, "cap"))
			q_msg_give_cap(&m, ntf);
		r = q_call(ep, &m);
		if (!strcmp(mode, "victim") && r)
			return r == -SYS_EPIPE && !q_thread_join(tid, &st) && st.killed ? 7 : 8;
		if (r || m.w[0] != (unsigned long)i + 1)
			wrong++;
		else if (!strcmp(mode, "cap") && !cap_arrived(&m))
			wrong++;
	}
	m = q_msg(LABEL_STOP, 0, 0, 0, 0);
	q_send(ep, &m);
	if (q_thread_join(tid, &st) || st.status)
		return 5;
	return wrong ? 6 : 0;
}
