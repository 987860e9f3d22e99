/*
 * Capability operations in one task (docs/microkernel.md): create, copy,
 * mint, move, delete, revoke, inspect; slots that are forged (out of
 * range, empty) or name the wrong kind of object; the table growing to
 * its limit; and every right enforced -- each operation tried without
 * the right it needs.
 */
#include "qcap.h"
#include "utest.h"

#define EP		0
#define NTF		1
#define MEM		2
#define FREE_SLOT	3

static int rights_of(int slot)
{
	struct sys_cap_info info;

	return q_cap_inspect(slot, &info) ? -1 : info.rights;
}

static void forged_slots(void)
{
	struct q_msg m = q_msg(1, 0, 0, 0, 0);
	struct sys_cap_info info;

	CHECK_EQ(q_cap_delete(-5), -SYS_EBADF);
	CHECK_EQ(q_cap_delete(SYS_CAP_MAX_SLOTS), -SYS_EBADF);
	/* A slot is an int (lib/syscall.h): the register's upper half is no part of it. */
	CHECK_EQ(q_syscall(SYS_cap_delete, (1L << 40) | SYS_CAP_MAX_SLOTS, 0, 0, 0, 0, 0),
		 -SYS_EBADF);
	CHECK_EQ(q_syscall(SYS_cap_delete, (1L << 40) | (unsigned int)-5, 0, 0, 0, 0, 0),
		 -SYS_EBADF);
	CHECK_EQ(q_syscall(SYS_cap_inspect, (long)EP | (1L << 32), (long)&info, 0, 0, 0, 0), 0);
	CHECK_EQ(info.type, SYS_OBJ_ENDPOINT);
	CHECK_EQ(q_syscall(SYS_ntf_poll, (long)NTF | (0xabcdL << 40), 0, 0, 0, 0, 0), 0);
	CHECK_EQ(q_cap_delete(FREE_SLOT), -SYS_EBADF);
	CHECK_EQ(q_send(FREE_SLOT, &m), -SYS_EBADF);
	CHECK_EQ(q_send(100000, &m), -SYS_EBADF);
	CHECK_EQ(q_signal(FREE_SLOT, 1), -SYS_EBADF);
	CHECK_EQ(q_cap_copy(FREE_SLOT, SYS_CAP_ANY_SLOT), -SYS_EBADF);
	/* The wrong kind of object. */
	CHECK_EQ(q_send(NTF, &m), -SYS_ENOTSUP);
	CHECK_EQ(q_call(MEM, &m), -SYS_ENOTSUP);
	CHECK_EQ(q_signal(EP, 1), -SYS_ENOTSUP);
	CHECK_EQ(q_poll(MEM), -SYS_ENOTSUP);
	CHECK_EQ(q_memory_map(EP, 0, SYS_PROT_READ), -SYS_ENOTSUP);
	CHECK_EQ(q_kill(EP), -SYS_ENOTSUP);
	/* Arguments out of their ranges. */
	CHECK_EQ(q_syscall(SYS_cap_create, SYS_OBJ_TASK, FREE_SLOT, 0, 0, 0, 0), -SYS_EINVAL);
	CHECK_EQ(q_syscall(SYS_cap_create, 99, FREE_SLOT, 0, 0, 0, 0), -SYS_EINVAL);
	CHECK_EQ(q_memory_create(FREE_SLOT, 0), -SYS_EINVAL);
	CHECK_EQ(q_memory_create(FREE_SLOT, 1L << 40), -SYS_EINVAL);
	CHECK_EQ(q_endpoint_create(EP), -SYS_EEXIST);
	CHECK_EQ(q_cap_inspect(EP, (struct sys_cap_info *)16), -SYS_EFAULT);
}

static void derivation(void)
{
	struct sys_cap_info info;

	CHECK_EQ(q_cap_inspect(EP, &info), 0);
	CHECK_EQ(info.type, SYS_OBJ_ENDPOINT);
	CHECK_EQ(info.rights, SYS_CAP_READ | SYS_CAP_WRITE | SYS_CAP_GRANT);
	CHECK_EQ(info.parent_slot, -1);
	CHECK_EQ(q_cap_copy(EP, 5), 5);
	CHECK_EQ(q_cap_inspect(5, &info), 0);
	CHECK_EQ(info.parent_slot, EP);
	CHECK_EQ(info.object, ({ struct sys_cap_info o; q_cap_inspect(EP, &o); o.object; }));
	/* Mint: fewer rights, a badge given once and never changed. */
	CHECK_EQ(q_cap_mint(EP, 6, SYS_CAP_WRITE, 7), 6);
	CHECK_EQ(q_cap_inspect(6, &info), 0);
	CHECK_EQ(info.rights, SYS_CAP_WRITE);
	CHECK_EQ(info.badge, 7);
	CHECK_EQ(q_cap_mint(6, 7, SYS_CAP_WRITE, 8), -SYS_EPERM);
	CHECK_EQ(q_cap_mint(6, 7, SYS_CAP_READ | SYS_CAP_WRITE, 0), 7);
	CHECK_EQ(rights_of(7), SYS_CAP_WRITE);	/* no right comes back */
	CHECK_EQ(q_cap_inspect(7, &info), 0);
	CHECK_EQ(info.badge, 7);
	CHECK_EQ(info.parent_slot, 6);
	CHECK_EQ(q_cap_mint(EP, 8, 1 << 10, 0), -SYS_EINVAL);
	CHECK_EQ(q_cap_mint(EP, 8, SYS_CAP_ALL, SYS_BADGE_MAX + 1), -SYS_EINVAL);
	/* Move: the same capability in another slot, still derived from EP. */
	CHECK_EQ(q_cap_move(5, 9), 9);
	CHECK_EQ(q_cap_inspect(5, &info), -SYS_EBADF);
	CHECK_EQ(q_cap_inspect(9, &info), 0);
	CHECK_EQ(info.parent_slot, EP);
	CHECK_EQ(q_cap_move(9, 6), -SYS_EEXIST);
	/* Deleting a middle one: its child stays derived from EP. */
	CHECK_EQ(q_cap_delete(6), 0);
	CHECK_EQ(q_cap_inspect(7, &info), 0);
	CHECK_EQ(info.parent_slot, EP);
	/* Revoke: every capability derived from EP, transitively; EP stays. */
	CHECK_EQ(q_cap_copy(9, 10), 10);
	CHECK_EQ(q_cap_copy(10, 11), 11);
	CHECK_EQ(q_cap_revoke(EP), 4);	/* 7, 9, 10, 11 */
	for (int s = 5; s <= 11; s++)
		CHECK_EQ(q_cap_inspect(s, &info), -SYS_EBADF);
	CHECK_EQ(q_cap_inspect(EP, &info), 0);
	CHECK_EQ(info.children, 0);
	CHECK_EQ(q_cap_revoke(EP), 0);
}

static void table_grows(void)
{
	struct sys_cap_info info;
	int s;

	CHECK_EQ(q_cap_copy(EP, 500), 500);
	CHECK_EQ(q_cap_copy(EP, SYS_CAP_MAX_SLOTS - 1), SYS_CAP_MAX_SLOTS - 1);
	CHECK_EQ(q_cap_copy(EP, SYS_CAP_MAX_SLOTS), -SYS_EBADF);
	CHECK_EQ(q_cap_inspect(500, &info), 0);
	s = q_cap_copy(EP, SYS_CAP_ANY_SLOT);
	CHECK_EQ(s, FREE_SLOT);		/* the first empty slot */
	/* Fill every slot: then the table is full. */
	for (int i = 0; i < SYS_CAP_MAX_SLOTS; i++)
		q_cap_copy(EP, SYS_CAP_ANY_SLOT);
	CHECK_EQ(q_cap_copy(EP, SYS_CAP_ANY_SLOT), -SYS_ENOSPC);
	CHECK(q_cap_revoke(EP) >= SYS_CAP_MAX_SLOTS - 3);
	CHECK_EQ(q_cap_inspect(500, &info), -SYS_EBADF);
	CHECK_EQ(q_cap_copy(EP, SYS_CAP_ANY_SLOT), FREE_SLOT);
	CHECK_EQ(q_cap_delete(FREE_SLOT), 0);
}

/* A copy of slot with only `rights`, in a fresh slot. */
static int with_rights(int slot, int rights)
{
	return q_cap_mint(slot, SYS_CAP_ANY_SLOT, rights, 0);
}

static void rights_enforced(void)
{
	struct q_msg m = q_msg(1, 0, 0, 0, 0);
	struct sys_exit_status st;
	int no_write = with_rights(EP, SYS_CAP_ALL & ~SYS_CAP_WRITE);
	int no_read = with_rights(EP, SYS_CAP_ALL & ~SYS_CAP_READ);
	int no_grant = with_rights(EP, SYS_CAP_ALL & ~SYS_CAP_GRANT);
	int me = q_thread_cap(SYS_CAP_ANY_SLOT, q_thread_id());

	CHECK_EQ(q_send(no_write, &m), -SYS_EACCES);
	CHECK_EQ(q_call(no_write, &m), -SYS_EACCES);
	CHECK_EQ(q_recv_nonblock(no_read, &m), -SYS_EACCES);
	m = q_msg(1, 0, 0, 0, 0);
	CHECK_EQ(q_reply_recv(no_read, &m), -SYS_EACCES);
	m = q_msg(1, 0, 0, 0, 0);
	q_msg_give_cap(&m, NTF);
	CHECK_EQ(q_send_nonblock(no_grant, &m), -SYS_EACCES);
	CHECK_EQ(q_send_nonblock(EP, &m), -SYS_EAGAIN);	/* (with the right: nobody waits) */

	no_write = with_rights(NTF, SYS_CAP_READ);
	no_read = with_rights(NTF, SYS_CAP_WRITE);
	CHECK_EQ(q_signal(no_write, 1), -SYS_EACCES);
	CHECK_EQ(q_poll(no_read), -SYS_EACCES);
	CHECK_EQ(q_wait(no_read), -SYS_EACCES);
	CHECK_EQ(q_signal(no_read, 1), 0);
	CHECK_EQ(q_poll(no_write), 1);

	CHECK_EQ(q_memory_map(with_rights(MEM, SYS_CAP_WRITE), 0, SYS_PROT_READ), -SYS_EACCES);
	CHECK_EQ(q_memory_map(with_rights(MEM, SYS_CAP_READ), 0,
			      SYS_PROT_READ | SYS_PROT_WRITE), -SYS_EACCES);
	CHECK_EQ(q_memory_map(with_rights(MEM, SYS_CAP_READ), 0,
			      SYS_PROT_READ | SYS_PROT_EXEC), -SYS_EACCES);

	CHECK(me >= 0);
	CHECK_EQ(q_kill(with_rights(me, SYS_CAP_READ)), -SYS_EACCES);
	CHECK_EQ(q_wait_for(with_rights(me, SYS_CAP_WRITE), &st), -SYS_EACCES);
	CHECK_EQ(q_wait_for(me, &st), -SYS_EDEADLK);	/* (with the right: not itself) */
	/* Task capabilities' rights: tests/user/ipc_tasks.c. */
}

static int spin(void *arg)
{
	(void)arg;
	for (;;)
		;
	return 0;
}

/* A thread killed alone through its capability; the task goes on. */
static void thread_kill(void)
{
	int tid = q_thread_create(spin, NULL, SYS_CPU_ANY), t = q_thread_cap(SYS_CAP_ANY_SLOT, tid);
	struct sys_exit_status st;

	CHECK(t >= 0);
	CHECK_EQ(q_kill(t), 0);
	CHECK_EQ(q_wait_for(t, &st), 0);
	CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);
	CHECK_EQ(q_kill(t), -SYS_ESRCH);
	CHECK_EQ(q_thread_join(tid, &st), 0);
	CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);
	CHECK_EQ(q_thread_cap(SYS_CAP_ANY_SLOT, tid), -SYS_ESRCH);
	CHECK_EQ(q_cap_delete(t), 0);
}

int main(void)
{
	q_drop_boot_caps();	/* (it starts nothing; and table_grows() counts every slot) */
	CHECK_EQ(q_endpoint_create(EP), EP);
	CHECK_EQ(q_notification_create(NTF), NTF);
	CHECK_EQ(q_memory_create(MEM, 2), MEM);
	forged_slots();
	derivation();
	table_grows();
	rights_enforced();
	thread_kill();
	return check_result();
}
