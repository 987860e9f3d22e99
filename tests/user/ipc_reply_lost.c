/*
 * Reply capabilities that go unused, and used wrongly: a server that
 * receives a second call before replying to the first, one whose thread
 * exits holding a call, one killed by a sibling holding a call -- each
 * caller must wake with -SYS_EPIPE, never sleep on (a lost wake-up); a
 * reply used twice, and a reply from a thread that holds none, are
 * -SYS_ESRCH; and a reply that moves the very endpoint its
 * reply-and-receive then waits on reaches the caller, which calls back
 * through it.
 */
#include <stdio.h>
#include "qcap.h"
#include "utest.h"

#define LABEL_PING	3
#define LABEL_STOP	4
#define DEAD		(-2000)		/* join_status(): the thread was killed */

static int ep;
static volatile int held;

/* Calls ep once: its result as the exit status (the reply's w[0], or the error negated). */
static int call_once(void *arg)
{
	struct q_msg m = q_msg(LABEL_PING, (unsigned long)arg, 0, 0, 0);
	long r = q_call(ep, &m);

	return r ? (int)-r : (int)m.w[0];
}

static long join_status(int tid)
{
	struct sys_exit_status st;

	if (q_thread_join(tid, &st))
		return -1000;
	return st.killed ? DEAD : st.status;
}

/* Receives one call and keeps it: exits holding it (arg NULL), or sleeps until killed. */
static int receive_and_hold(void *arg)
{
	struct q_msg m;

	if (q_recv(ep, &m) < 0)
		return 1;
	held = 1;
	if (!arg)
		return 0;
	q_sleep_ns(3600ULL * 1000000000ULL);
	return 2;
}

static void second_call_drops_first(void)
{
	int a = q_thread_create(call_once, (void *)11, SYS_CPU_ANY), b;
	struct q_msg m;

	CHECK(q_recv(ep, &m) >= 0);
	CHECK_EQ(m.w[0], 11);
	b = q_thread_create(call_once, (void *)12, SYS_CPU_ANY);
	CHECK(q_recv(ep, &m) >= 0);	/* a's reply capability goes: a wakes */
	CHECK_EQ(m.w[0], 12);
	CHECK_EQ(join_status(a), SYS_EPIPE);
	m = q_msg(LABEL_PING, 42, 0, 0, 0);
	CHECK_EQ(q_reply(&m), 0);
	CHECK_EQ(join_status(b), 42);
	CHECK_EQ(q_reply(&m), -SYS_ESRCH);	/* one-shot */
}

static void holder_exits_or_is_killed(void)
{
	struct q_msg m = q_msg(LABEL_PING, 0, 0, 0, 0);
	int c, s, cap;

	s = q_thread_create(receive_and_hold, NULL, SYS_CPU_ANY);
	c = q_thread_create(call_once, (void *)21, SYS_CPU_ANY);
	CHECK_EQ(join_status(s), 0);
	CHECK_EQ(join_status(c), SYS_EPIPE);

	held = 0;
	s = q_thread_create(receive_and_hold, (void *)1, SYS_CPU_ANY);
	c = q_thread_create(call_once, (void *)22, SYS_CPU_ANY);
	cap = q_thread_cap(SYS_CAP_ANY_SLOT, s);
	CHECK(cap >= 0);
	while (!held)
		q_yield();
	CHECK_EQ(q_kill(cap), 0);
	CHECK_EQ(join_status(s), DEAD);
	CHECK_EQ(join_status(c), SYS_EPIPE);
	CHECK_EQ(q_cap_delete(cap), 0);

	CHECK_EQ(q_reply(&m), -SYS_ESRCH);	/* nobody called this thread */
}

/* Replies to the first call by moving its own endpoint (slot arg) to the caller; serves on. */
static int gives_itself_away(void *arg)
{
	int mine = (int)(long)arg;
	struct q_msg m;

	if (q_recv(mine, &m) < 0)
		return 1;
	m = q_msg(LABEL_PING, 0, 0, 0, 0);
	q_msg_move_cap(&m, mine);
	if (q_reply_recv(mine, &m) < 0)	/* waits on an endpoint it no longer holds */
		return 2;
	if (q_msg_label(&m) != LABEL_STOP)
		return 3;
	m = q_msg(LABEL_STOP, 77, 0, 0, 0);
	return q_reply(&m) ? 4 : 0;
}

static void reply_moves_its_endpoint(void)
{
	int mine = q_cap_copy(ep, SYS_CAP_ANY_SLOT), t, got;
	struct sys_cap_info info;
	struct q_msg m = q_msg(LABEL_PING, 0, 0, 0, 0);

	CHECK(mine >= 0);
	t = q_thread_create(gives_itself_away, (void *)(long)mine, SYS_CPU_ANY);
	CHECK_EQ(q_recv_slot(SYS_CAP_ANY_SLOT), 0);
	CHECK_EQ(q_call(mine, &m), 0);
	got = q_msg_cap(&m);
	CHECK(got >= 0 && got != mine);
	CHECK_EQ(q_cap_inspect(mine, &info), -SYS_EBADF);	/* moved, not copied */
	m = q_msg(LABEL_STOP, 0, 0, 0, 0);
	CHECK_EQ(q_call(got, &m), 0);
	CHECK_EQ(m.w[0], 77);
	CHECK_EQ(join_status(t), 0);
	CHECK_EQ(q_cap_delete(got), 0);
	q_recv_slot(SYS_RECV_SLOT_NONE);
}

int main(void)
{
	ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	CHECK(ep >= 0);
	second_call_drops_first();
	holder_exits_or_is_killed();
	reply_moves_its_endpoint();
	return check_result();
}
