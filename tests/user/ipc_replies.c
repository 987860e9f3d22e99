/*
 * What a reply may carry, and when it carries nothing (docs/microkernel.md,
 * "Reply capabilities"):
 *   - a capability only if the call was received through an endpoint
 *     capability with the grant right, as a send needs it: otherwise
 *     -SYS_EACCES, nothing moves, and the reply capability stays;
 *   - to a caller that gave up (its thread killed) it is refused with
 *     -SYS_ESRCH, and a capability it would have moved stays where it was.
 * Shown failing before the fix: the reply without the grant right
 * delivered its capability, and the refused reply's moved capability had
 * left our slot (for the dead caller's receive slot).
 */
#include <string.h>
#include "qcap.h"
#include "utest.h"

#define NOTHING		1	/* a caller's exit status: a reply without a capability */
#define A_CAP		2	/* ... with one */

/* Calls the endpoint in slot (long)arg once; tells what came back by its exit status. */
static int call_once(void *arg)
{
	struct q_msg m = q_msg(1, 5, 0, 0, 0);

	q_recv_slot(SYS_CAP_ANY_SLOT);
	if (q_call((int)(long)arg, &m))
		return 100;
	return q_msg_cap(&m) >= 0 ? A_CAP : NOTHING;
}

static int caller_status(int tid)
{
	struct sys_exit_status st;

	return q_thread_join(tid, &st) ? -1 : st.killed ? -2 : st.status;
}

int main(void)
{
	int ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	int no_grant = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_READ | SYS_CAP_WRITE, 0);
	int ntf = q_notification_create(SYS_CAP_ANY_SLOT), tid, t, mine;
	struct sys_cap_info info;
	struct q_msg m, r;

	CHECK(ep >= 0 && no_grant >= 0 && ntf >= 0);

	/* Received without the grant right: no capability in the reply. */
	tid = q_thread_create(call_once, (void *)(long)ep, SYS_CPU_ANY);
	CHECK(q_recv(no_grant, &m) >= 0);
	r = q_msg(1, 6, 0, 0, 0);
	q_msg_give_cap(&r, ntf);
	CHECK_EQ(q_reply(&r), -SYS_EACCES);
	r = q_msg(1, 6, 0, 0, 0);
	CHECK_EQ(q_reply(&r), 0);		/* the reply capability stayed */
	CHECK_EQ(caller_status(tid), NOTHING);

	/* With it: the capability goes. */
	tid = q_thread_create(call_once, (void *)(long)ep, SYS_CPU_ANY);
	CHECK(q_recv(ep, &m) >= 0);
	r = q_msg(1, 6, 0, 0, 0);
	q_msg_give_cap(&r, ntf);
	CHECK_EQ(q_reply(&r), 0);
	CHECK_EQ(caller_status(tid), A_CAP);

	/* The caller killed while we hold its call: what we would move stays ours. */
	tid = q_thread_create(call_once, (void *)(long)ep, SYS_CPU_ANY);
	CHECK(q_recv(ep, &m) >= 0);
	t = q_thread_cap(SYS_CAP_ANY_SLOT, tid);
	CHECK_EQ(q_kill(t), 0);
	CHECK_EQ(caller_status(tid), -2);
	q_cap_delete(t);
	mine = q_notification_create(SYS_CAP_ANY_SLOT);
	r = q_msg(1, 6, 0, 0, 0);
	q_msg_move_cap(&r, mine);
	CHECK_EQ(q_reply(&r), -SYS_ESRCH);
	CHECK(q_cap_inspect(mine, &info) == 0 && info.type == SYS_OBJ_NOTIFICATION);
	return check_result();
}
