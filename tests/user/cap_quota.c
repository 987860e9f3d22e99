/*
 * Quotas (docs/microkernel.md): a task creating objects in a loop gets
 * -SYS_ENOMEM when its quota is spent, and everything else keeps working:
 * another task serves it, its existing capabilities work, and what it
 * frees it may spend again.
 */
#include "check.h"

#define PAGES		16
#define MAX_OBJECTS	200
#define SERVER		"tests/user/helpers/echo_server"

int main(void)
{
	static int made[MAX_OBJECTS];
	int n = 0, ep = q_endpoint_create(SYS_CAP_ANY_SLOT), id, caps[1] = { ep };
	struct sys_exit_status st;
	struct q_msg m;
	long r;

	CHECK(ep >= 0);
	CHECK_EQ(q_recv_slot(SYS_RECV_SLOT_NONE), 0);	/* (this thread's object, made now) */
	while (n < MAX_OBJECTS && (r = q_memory_create(SYS_CAP_ANY_SLOT, PAGES)) >= 0)
		made[n++] = r;
	printf("%d memory objects of %d pages before the quota ran out\n", n, PAGES);
	CHECK(n > 0 && n < MAX_OBJECTS);
	CHECK_EQ(r, -SYS_ENOMEM);
	CHECK_EQ(q_endpoint_create(SYS_CAP_ANY_SLOT) == -SYS_ENOMEM ||
		 q_endpoint_create(SYS_CAP_ANY_SLOT) >= 0, 1);	/* (a small one may still fit) */
	/* Another task, with a quota of its own, serves us meanwhile. */
	id = q_spawn_caps(SERVER, caps, 1, SYS_RECV_SLOT_NONE);
	CHECK(id > 0);
	if (id > 0) {		/* (without a server, a call would wait for ever) */
		m = q_msg(1, 41, 0, 0, 0);
		CHECK_EQ(q_call(ep, &m), 0);
		CHECK_EQ(m.w[0], 42);
		m = q_msg(3, 0, 0, 0, 0);	/* LABEL_EXIT */
		CHECK_EQ(q_send(ep, &m), 0);
		CHECK_EQ(q_task_wait(id, &st), 0);
		CHECK_EQ(st.status, 0);
	}
	/* What it frees, it may spend again (after the grace period that frees it). */
	CHECK_EQ(q_cap_delete(made[--n]), 0);
	for (int tries = 0; (r = q_memory_create(SYS_CAP_ANY_SLOT, PAGES)) == -SYS_ENOMEM &&
	     tries < 1000; tries++)
		q_sleep_ns(1000000);
	CHECK(r >= 0);
	return check_result();
}
