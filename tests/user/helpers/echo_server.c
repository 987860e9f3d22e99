/*
 * echo_server: serves the endpoint in slot 0 (tests/user/ipc_tasks.c,
 * cap_quota.c give it one with q_spawn_caps()): each call gets its first
 * word plus one and its badge back.  LABEL_HOLD first signals the
 * notification in slot 2 ("I hold a call") and waits for the one in
 * slot 1 before it replies; LABEL_EXIT ends it.
 */
#include "qcap.h"

#define EP		0
#define RELEASE		1
#define HELD		2
#define LABEL_ECHO	1
#define LABEL_HOLD	2
#define LABEL_EXIT	3

static long echo(unsigned long badge, const struct q_msg *req, struct q_msg *reply, void *arg)
{
	(void)arg;
	if (q_msg_label(req) == LABEL_EXIT)
		return -1;
	if (q_msg_label(req) == LABEL_HOLD) {
		q_signal(HELD, 1);
		q_wait(RELEASE);
	}
	reply->w[0] = req->w[0] + 1;
	reply->w[1] = badge;
	return 0;
}

int main(void)
{
	return q_serve(EP, echo, NULL) == -1 ? 0 : 1;
}
