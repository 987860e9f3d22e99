/*
 * IPC's arguments, hostile: info words with bits no sender may set,
 * capability fields naming slots past the space or empty ones, moves of
 * no capability, a capability sent without the grant right, replies
 * with nothing owed, receive flags and receive slots out of range, the
 * wrong kind of capability for each call, and an endpoint moved through
 * itself.  Each must get its error (lib/ipc.h, docs/microkernel.md) and
 * change nothing.
 */
#include <stdio.h>
#include "utest.h"
#include "qcap.h"

#define RAW(nr, slot, info)	q_syscall(nr, slot, (long)(info), 1, 2, 3, 4)

static int ep, ntf;
static volatile long got_info, got_badge, bad_reply;

static int receiver(void *arg)
{
	struct q_msg m;

	q_recv_slot((int)(long)arg);
	got_badge = q_recv(ep, &m);
	got_info = (long)m.info;
	if (got_badge >= 0 && q_msg_label(&m) == 9) {
		/* A reply naming an empty slot: refused, and the reply capability kept for the next. */
		m = q_msg(9, 0, 0, 0, 0);
		q_msg_give_cap(&m, 700);
		bad_reply = q_reply(&m);
		m = q_msg(9, 0, 0, 0, 0);
		q_reply(&m);
	}
	if (got_badge >= 0 && q_msg_label(&m) == 7) {
		m = q_msg(7, 0, 0, 0, 0);
		q_reply(&m);
	}
	return 0;
}

static void bad_info_words(void)
{
	unsigned long bad[] = {
		1UL << 51, 1UL << 63, SYS_MSG_CAP_LOST, SYS_MSG_MOVE,
		~0UL, SYS_MSG_MOVE | SYS_MSG_CAP_LOST,
	};

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(RAW(SYS_ipc_send, ep, bad[i] | SYS_MSG_NONBLOCK), -SYS_EINVAL);
		CHECK_EQ(RAW(SYS_ipc_call, ep, bad[i]), -SYS_EINVAL);
		CHECK_EQ(RAW(SYS_ipc_reply, 0, bad[i]), -SYS_EINVAL);
		CHECK_EQ(RAW(SYS_ipc_reply_recv, ep, bad[i]), -SYS_EINVAL);
	}
	/* NONBLOCK is a send's only: on a reply it is no flag. */
	CHECK_EQ(RAW(SYS_ipc_reply, 0, SYS_MSG_NONBLOCK), -SYS_EINVAL);
	CHECK_EQ(RAW(SYS_ipc_reply_recv, ep, SYS_MSG_NONBLOCK), -SYS_EINVAL);
	/* A capability field past the space. */
	CHECK_EQ(RAW(SYS_ipc_send, ep, SYS_MSG_CAP(SYS_CAP_MAX_SLOTS) | SYS_MSG_NONBLOCK), -SYS_EBADF);
	CHECK_EQ(RAW(SYS_ipc_send, ep, SYS_MSG_CAP_MASK | SYS_MSG_NONBLOCK), -SYS_EBADF);
	CHECK_EQ(RAW(SYS_ipc_call, ep, SYS_MSG_CAP(0xfffe)), -SYS_EBADF);
	/* A reply's endpoint argument must be 0; receive flags; receive slots. */
	CHECK_EQ(RAW(SYS_ipc_reply, ep + 1, 1), -SYS_EINVAL);
	CHECK_EQ(q_syscall(SYS_ipc_recv, ep, 2, 0, 0, 0, 0), -SYS_EINVAL);
	CHECK_EQ(q_syscall(SYS_ipc_recv, ep, -1, 0, 0, 0, 0), -SYS_EINVAL);
	CHECK_EQ(q_recv_slot(-3), -SYS_EBADF);
	CHECK_EQ(q_recv_slot(SYS_CAP_MAX_SLOTS), -SYS_EBADF);
	CHECK_EQ(q_recv_slot(1 << 30), -SYS_EBADF);
}

static void wrong_kinds(void)
{
	int w = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 0);
	int r = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_READ, 0);
	struct q_msg m = q_msg(1, 0, 0, 0, 0);

	CHECK_EQ(q_recv_nonblock(w, &m), -SYS_EACCES);
	CHECK_EQ(q_send_nonblock(r, &m), -SYS_EACCES);
	q_msg_give_cap(&m, ntf);
	CHECK_EQ(q_send_nonblock(w, &m), -SYS_EACCES);	/* no grant right */
	m = q_msg(1, 0, 0, 0, 0);
	CHECK_EQ(q_send_nonblock(ntf, &m), -SYS_ENOTSUP);
	CHECK_EQ(q_recv_nonblock(ntf, &m), -SYS_ENOTSUP);
	CHECK_EQ(q_signal(ep, 1), -SYS_ENOTSUP);
	CHECK_EQ(q_poll(ep), -SYS_ENOTSUP);
	CHECK_EQ(q_signal(ntf, 0), -SYS_EINVAL);
	CHECK_EQ(q_signal(ntf, SYS_BADGE_MAX + 1), -SYS_EINVAL);
	CHECK_EQ(q_signal(ntf, SYS_BADGE_MAX), 0);
	CHECK_EQ(q_poll(ntf), (long)SYS_BADGE_MAX);
	CHECK_EQ(q_poll(ntf), 0);
	CHECK_EQ(q_cap_delete(w), 0);
	CHECK_EQ(q_cap_delete(r), 0);
}

/* Nothing owed: a reply has nobody to go to. */
static void reply_owed_nothing(void)
{
	struct q_msg m = q_msg(1, 0, 0, 0, 0);
	long r = q_reply(&m);

	printf("reply with nothing owed: %ld\n", r);
	CHECK(r < 0);
}

/*
 * A send, a call and a reply naming an empty slot (in range): refused, as
 * any empty slot is (-EBADF), before anything is sent -- the receiver
 * then gets the plain message after them, with no capability lost.
 */
static void empty_cap_slot(void)
{
	int t = q_thread_create(receiver, (void *)(long)SYS_CAP_ANY_SLOT, SYS_CPU_ANY);
	struct sys_exit_status st;
	struct q_msg m = q_msg(1, 0, 0, 0, 0);
	long r;

	q_sleep_ns(20000000);
	q_msg_give_cap(&m, 700);		/* empty */
	r = q_send(ep, &m);
	printf("send naming an empty slot: %ld\n", r);
	CHECK_EQ(r, -SYS_EBADF);
	m = q_msg(1, 0, 0, 0, 0);
	q_msg_give_cap(&m, 700);
	CHECK_EQ(q_call(ep, &m), -SYS_EBADF);
	m = q_msg(1, 0, 0, 0, 0);
	q_msg_give_cap(&m, 700);
	CHECK_EQ(q_reply(&m), -SYS_ESRCH);	/* nothing owed comes first */
	m = q_msg(1, 0, 0, 0, 0);
	CHECK_EQ(q_send(ep, &m), 0);		/* the receiver still waits: this one */
	CHECK_EQ(q_thread_join(t, &st), 0);
	CHECK_EQ(got_info & (SYS_MSG_CAP_LOST | SYS_MSG_CAP_MASK), 0);

	t = q_thread_create(receiver, (void *)(long)SYS_RECV_SLOT_NONE, SYS_CPU_ANY);
	m = q_msg(9, 0, 0, 0, 0);
	CHECK_EQ(q_call(ep, &m), 0);		/* answered by the second reply */
	CHECK_EQ(q_msg_label(&m), 9);
	CHECK_EQ(bad_reply, -SYS_EBADF);
	CHECK_EQ(q_thread_join(t, &st), 0);
}

/* The endpoint moved through itself to a receiver of our own space; a call then works on the new slot. */
static void moved_through_itself(void)
{
	int t = q_thread_create(receiver, (void *)(long)SYS_CAP_ANY_SLOT, SYS_CPU_ANY), slot;
	struct sys_exit_status st;
	struct sys_cap_info info;
	struct q_msg m = q_msg(1, 0, 0, 0, 0);

	q_sleep_ns(20000000);
	q_msg_move_cap(&m, ep);
	CHECK_EQ(q_send(ep, &m), 0);
	CHECK_EQ(q_thread_join(t, &st), 0);
	slot = SYS_MSG_CAP_SLOT(got_info);
	CHECK(slot >= 0);
	CHECK_EQ(q_cap_inspect(ep, &info), -SYS_EBADF);		/* it left our slot */
	if (slot < 0)
		return;
	ep = slot;
	t = q_thread_create(receiver, (void *)(long)SYS_RECV_SLOT_NONE, SYS_CPU_ANY);
	m = q_msg(7, 0, 0, 0, 0);
	CHECK_EQ(q_call(ep, &m), 0);
	CHECK_EQ(q_msg_label(&m), 7);
	CHECK_EQ(q_thread_join(t, &st), 0);
}

/* The slot is an int: garbage in the register's upper half is no part of it. */
static void upper_half(void)
{
	long slot = (0x12345678L << 32) | ntf;

	CHECK_EQ(q_syscall(SYS_ntf_signal, slot, 4, 0, 0, 0, 0), 0);
	CHECK_EQ(q_syscall(SYS_ntf_poll, slot, 0, 0, 0, 0, 0), 4);
}

int main(void)
{
	ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	CHECK(ep >= 0 && ntf >= 0);
	bad_info_words();
	wrong_kinds();
	reply_owed_nothing();
	empty_cap_slot();
	moved_through_itself();
	upper_half();
	CHECK_EQ(q_cap_delete(ep), 0);
	CHECK_EQ(q_cap_delete(ntf), 0);
	return check_result();
}
