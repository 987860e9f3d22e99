/*
 * The programs tests/lifetimes.c plays against each other, each step
 * told by the kernel test through notifications (its slots are the
 * test's: 0 the endpoint, 1 "go" to wait on, 2 "ready" to signal, 3
 * "done" to signal):
 *
 *   lifetimes server CPU WHAT   on CPU (-1: any): receives one call,
 *                               signals ready, waits for go, then WHAT:
 *       reply_cap     replies with a capability: must get -ESRCH (its caller is gone)
 *       kill_thread   kills the thread the call's capability names: must get -ESRCH
 *       reply         replies: must get -ESRCH (its caller was killed)
 *       reply_recv    replies and receives the next call in one, replies to that
 *   lifetimes caller CPU WHAT   on CPU: calls slot 0 with a capability in
 *                               its receive slot, WHAT it sends:
 *       plain         nothing; then signals done
 *       cap           a notification of its own
 *       thread        a capability to its own thread
 *
 * Exit status 0 when every answer was the expected one, else the step
 * that went wrong (the test reports it).
 */
#include <stdlib.h>
#include <string.h>
#include "qcap.h"

#define EP	0
#define GO	1
#define READY	2
#define DONE	3

static int server(const char *what)
{
	struct q_msg m;
	long r;

	q_recv_slot(SYS_CAP_ANY_SLOT);
	if (q_recv(EP, &m) < 0)
		return 10;
	q_signal(READY, 1);
	q_wait(GO);
	if (!strcmp(what, "reply_cap")) {
		struct q_msg reply = q_msg(1, 0, 0, 0, 0);
		int mine = q_notification_create(SYS_CAP_ANY_SLOT);

		q_msg_give_cap(&reply, mine);
		r = q_reply(&reply);
		return r == -SYS_ESRCH ? 0 : 20;
	}
	if (!strcmp(what, "kill_thread")) {
		if (q_msg_cap(&m) < 0)
			return 30;
		r = q_kill(q_msg_cap(&m));
		return r == -SYS_ESRCH ? 0 : 31;
	}
	if (!strcmp(what, "reply")) {
		struct q_msg reply = q_msg(1, 0, 0, 0, 0);

		r = q_reply(&reply);
		return r == -SYS_ESRCH ? 0 : 40;
	}
	if (!strcmp(what, "reply_recv")) {
		m = q_msg(1, 1, 0, 0, 0);
		if (q_reply_recv(EP, &m) < 0)
			return 50;
		m = q_msg(1, 2, 0, 0, 0);
		return q_reply(&m) ? 51 : 0;
	}
	return 99;
}

static int caller(const char *what)
{
	struct q_msg m = q_msg(1, 0, 0, 0, 0);
	long r;

	q_recv_slot(SYS_CAP_ANY_SLOT);
	if (!strcmp(what, "cap"))
		q_msg_give_cap(&m, q_notification_create(SYS_CAP_ANY_SLOT));
	else if (!strcmp(what, "thread"))
		q_msg_give_cap(&m, q_thread_cap(SYS_CAP_ANY_SLOT, q_thread_id()));
	r = q_call(EP, &m);
	if (!strcmp(what, "plain"))
		q_signal(DONE, 1);
	return r ? 60 : 0;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 100;
	if (atoi(argv[2]) >= 0)
		q_set_cpu(atoi(argv[2]));
	if (!strcmp(argv[1], "server"))
		return server(argv[3]);
	if (!strcmp(argv[1], "caller"))
		return caller(argv[3]);
	return 100;
}
