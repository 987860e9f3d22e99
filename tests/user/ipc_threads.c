/*
 * IPC between threads of one task (docs/microkernel.md): call and
 * reply-and-receive through the server loop, badges telling clients
 * apart, send and receive, the non-blocking forms, capabilities carried
 * by messages (copied, moved, refused), notifications, and a thread
 * blocked on an endpoint woken with -SYS_EPIPE when the endpoint can no
 * longer deliver.
 */
#include "qcap.h"
#include "utest.h"

#define EP		0
#define NTF		1
#define LABEL_ECHO	7
#define LABEL_STOP	8
#define CALLS		50

/* The echo server: each word plus one, the caller's badge in w[3]. */
static long echo(unsigned long badge, const struct q_msg *req, struct q_msg *reply, void *arg)
{
	(void)arg;
	if (q_msg_label(req) == LABEL_STOP)
		return -1;
	for (int i = 0; i < 3; i++)
		reply->w[i] = req->w[i] + 1;
	reply->w[3] = badge;
	return 0;
}

static int server(void *arg)
{
	return q_serve(*(int *)arg, echo, NULL) == -1 ? 0 : 1;
}

static void calls_and_badges(void)
{
	static int ep = EP;
	int tid = q_thread_create(server, &ep, SYS_CPU_ANY), a, b;
	struct sys_exit_status st;
	struct q_msg m;

	CHECK(tid > 0);
	a = q_cap_mint(EP, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 1001);
	b = q_cap_mint(EP, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 1002);
	for (int i = 0; i < CALLS; i++) {
		int via = i % 2 ? a : b;

		m = q_msg(LABEL_ECHO, i, 2 * i, 3 * i, 0);
		CHECK_EQ(q_call(via, &m), 0);
		CHECK_EQ(q_msg_label(&m), LABEL_ECHO);
		CHECK_EQ(m.w[0], i + 1);
		CHECK_EQ(m.w[1], 2 * i + 1);
		CHECK_EQ(m.w[2], 3 * i + 1);
		CHECK_EQ(m.w[3], i % 2 ? 1001 : 1002);
	}
	m = q_msg(LABEL_STOP, 0, 0, 0, 0);
	CHECK_EQ(q_send(EP, &m), 0);
	CHECK_EQ(q_thread_join(tid, &st), 0);
	CHECK_EQ(st.status, 0);
	CHECK_EQ(q_cap_revoke(EP), 2);
}

/* A receiver that waits on arg's endpoint and reports what it got (or the error). */
struct got {
	int ep;
	long ret;
	struct q_msg m;
};

static int receiver(void *arg)
{
	struct got *g = arg;

	g->ret = q_recv(g->ep, &g->m);
	return 0;
}

static void send_and_receive(void)
{
	static struct got g = { .ep = EP };
	struct sys_exit_status st;
	struct q_msg m = q_msg(3, 10, 20, 30, 40);
	int tid;

	CHECK_EQ(q_send_nonblock(EP, &m), -SYS_EAGAIN);
	CHECK_EQ(q_recv_nonblock(EP, &m), -SYS_EAGAIN);
	CHECK_EQ(q_syscall(SYS_ipc_recv, EP, 2, 0, 0, 0, 0), -SYS_EINVAL);
	CHECK_EQ(q_syscall(SYS_ipc_send, EP, SYS_MSG_CAP_LOST, 0, 0, 0, 0), -SYS_EINVAL);
	CHECK_EQ(q_syscall(SYS_ipc_send, EP, SYS_MSG_MOVE, 0, 0, 0, 0), -SYS_EINVAL);
	CHECK_EQ(q_syscall(SYS_ipc_reply, 0, 0, 0, 0, 0, 0), -SYS_ESRCH);	/* no call to answer */
	tid = q_thread_create(receiver, &g, SYS_CPU_ANY);
	m = q_msg(3, 10, 20, 30, 40);
	CHECK_EQ(q_send(EP, &m), 0);	/* blocks until the receiver takes it */
	CHECK_EQ(q_thread_join(tid, &st), 0);
	CHECK_EQ(g.ret, 0);		/* (the original capability: no badge) */
	CHECK_EQ(q_msg_label(&g.m), 3);
	CHECK_EQ(g.m.w[0], 10);
	CHECK_EQ(g.m.w[3], 40);
	CHECK_EQ(q_msg_cap(&g.m), -1);
}

/* Sends arg's message on EP (and returns its result as its status). */
static int sender(void *arg)
{
	struct q_msg m = *(struct q_msg *)arg;

	return q_send(EP, &m) ? 1 : 0;
}

static void capabilities_in_messages(void)
{
	static struct got g = { .ep = EP };
	struct sys_cap_info info;
	struct sys_exit_status st;
	struct q_msg m;
	int tid, landed;

	/* A copy, derived from the one sent. */
	CHECK_EQ(q_recv_slot(SYS_CAP_ANY_SLOT), 0);
	tid = q_thread_create(receiver, &g, SYS_CPU_ANY);
	m = q_msg(4, 0, 0, 0, 0);
	q_msg_give_cap(&m, NTF);
	CHECK_EQ(q_send(EP, &m), 0);
	CHECK_EQ(q_thread_join(tid, &st), 0);
	/* (the receiver thread's receive slot is its own: it never asked, so nothing landed) */
	CHECK(q_msg_cap_lost(&g.m));
	CHECK_EQ(q_msg_cap(&g.m), -1);
	/* This thread receives, with a slot: main calls itself through a second thread. */
	m = q_msg(5, 0, 0, 0, 0);
	q_msg_give_cap(&m, NTF);
	CHECK(q_thread_create(sender, &m, SYS_CPU_ANY) > 0);
	CHECK_EQ(q_recv(EP, &g.m), 0);
	landed = q_msg_cap(&g.m);
	CHECK(landed > NTF);
	CHECK_EQ(q_cap_inspect(landed, &info), 0);
	CHECK_EQ(info.type, SYS_OBJ_NOTIFICATION);
	CHECK_EQ(info.parent_slot, NTF);	/* a copy is derived from what was sent */
	/* A move: the sender's slot is empty afterwards. */
	m = q_msg(6, 0, 0, 0, 0);
	q_msg_move_cap(&m, landed);
	CHECK(q_thread_create(sender, &m, SYS_CPU_ANY) > 0);
	CHECK_EQ(q_recv(EP, &g.m), 0);
	CHECK(q_msg_cap(&g.m) >= 0);
	CHECK_EQ(q_cap_inspect(q_msg_cap(&g.m), &info), 0);
	CHECK_EQ(info.type, SYS_OBJ_NOTIFICATION);
	CHECK_EQ(q_cap_delete(q_msg_cap(&g.m)), 0);
	CHECK_EQ(q_recv_slot(SYS_RECV_SLOT_NONE), 0);
	CHECK_EQ(q_recv_slot(-3), -SYS_EBADF);
	CHECK_EQ(q_recv_slot(SYS_CAP_MAX_SLOTS), -SYS_EBADF);
}

static int waiter(void *arg)
{
	return q_wait(*(int *)arg) == 0x30 ? 0 : 1;
}

static void notifications(void)
{
	static int ntf = NTF;
	struct sys_exit_status st;
	int tid, badged = q_cap_mint(NTF, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 0x20);

	CHECK_EQ(q_poll(NTF), 0);
	CHECK_EQ(q_signal(NTF, 0x5), 0);
	CHECK_EQ(q_signal(NTF, 0x2), 0);
	CHECK_EQ(q_poll(NTF), 0x7);
	CHECK_EQ(q_poll(NTF), 0);
	CHECK_EQ(q_signal(NTF, 0), -SYS_EINVAL);
	CHECK_EQ(q_signal(NTF, SYS_BADGE_MAX + 1), -SYS_EINVAL);
	tid = q_thread_create(waiter, &ntf, SYS_CPU_ANY);
	q_sleep_ns(2000000);		/* (most likely it waits by now; either way it gets both) */
	CHECK_EQ(q_signal(badged, 0x10), 0);	/* the badge's bits come with it */
	CHECK_EQ(q_thread_join(tid, &st), 0);
	CHECK_EQ(st.status, 0);
	CHECK_EQ(q_cap_delete(badged), 0);
}

/* The endpoint's last capability that could receive (or send) goes: its waiters wake. */
static void endpoint_death_wakes_waiters(void)
{
	static struct got g;
	struct sys_exit_status st;
	struct q_msg m = q_msg(9, 0, 0, 0, 0);
	int ep = q_endpoint_create(SYS_CAP_ANY_SLOT), send_only, tid;

	g.ep = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_READ, 0);
	tid = q_thread_create(receiver, &g, SYS_CPU_ANY);
	q_sleep_ns(2000000);
	send_only = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 0);
	CHECK_EQ(q_cap_delete(ep), 0);		/* one that could send is left */
	CHECK_EQ(q_cap_delete(send_only), 0);	/* none now: the receiver wakes */
	CHECK_EQ(q_thread_join(tid, &st), 0);
	CHECK_EQ(g.ret, -SYS_EPIPE);
	CHECK_EQ(q_send(send_only, &m), -SYS_EBADF);
	CHECK_EQ(q_recv_nonblock(g.ep, &m), -SYS_EPIPE);
	CHECK_EQ(q_cap_delete(g.ep), 0);
}

int main(void)
{
	CHECK_EQ(q_endpoint_create(EP), EP);
	CHECK_EQ(q_notification_create(NTF), NTF);
	calls_and_badges();
	send_and_receive();
	capabilities_in_messages();
	notifications();
	endpoint_death_wakes_waiters();
	return check_result();
}
