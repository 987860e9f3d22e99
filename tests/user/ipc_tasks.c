/*
 * IPC between tasks (docs/microkernel.md): a server started with the only
 * capability that can receive on its endpoint, clients telling themselves
 * apart by badge; a client killed while the server holds its call leaves
 * the server serving; the server killed while a client waits for its
 * reply wakes the client with -SYS_EPIPE, and every later call fails at
 * once.  Task capabilities: their rights enforced, kill and wait.
 */
#include "qcap.h"
#include "utest.h"

#define SERVER		"tests/user/helpers/echo_server"
#define CALLER		"tests/user/helpers/caller"
#define LABEL_ECHO	1
#define LABEL_HOLD	2

static int client, release, held;

static long call_echo(int via, unsigned long x, struct q_msg *m)
{
	*m = q_msg(LABEL_ECHO, x, 0, 0, 0);
	return q_call(via, m);
}

static int hold_call(void *arg)
{
	struct q_msg m = q_msg(LABEL_HOLD, 1, 0, 0, 0);

	(void)arg;
	return q_call(client, &m) == -SYS_EPIPE ? 0 : 1;
}

int main(void)
{
	int ep = q_endpoint_create(SYS_CAP_ANY_SLOT), server, caller, a, b, tid;
	int caps[3], caller_caps[1];
	struct sys_exit_status st;
	struct q_msg m;

	release = q_notification_create(SYS_CAP_ANY_SLOT);
	held = q_notification_create(SYS_CAP_ANY_SLOT);
	caps[0] = ep;
	caps[1] = release;
	caps[2] = held;
	server = 801;
	CHECK(q_spawn_caps(SERVER, caps, 3, server) > 0);
	/* The clients' capabilities: write only, badged.  Then ours to receive goes. */
	client = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 0);
	a = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 11);
	b = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 22);
	CHECK_EQ(q_cap_delete(ep), 0);		/* the server's copy is the only one that receives */
	CHECK_EQ(call_echo(a, 1, &m), 0);
	CHECK_EQ(m.w[0], 2);
	CHECK_EQ(m.w[1], 11);
	CHECK_EQ(call_echo(b, 5, &m), 0);
	CHECK_EQ(m.w[1], 22);

	/* A client killed while the server holds its call: the server goes on. */
	caller_caps[0] = q_cap_mint(client, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 33);
	CHECK(q_spawn_caps(CALLER " 2", caller_caps, 1, 800) > 0);
	caller = 800;
	CHECK_EQ(q_wait(held), 1);		/* the server holds its call */
	CHECK_EQ(q_kill(caller), 0);
	CHECK_EQ(q_wait_for(caller, &st), 0);
	CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);
	CHECK_EQ(q_signal(release, 1), 0);	/* its reply goes nowhere */
	CHECK_EQ(call_echo(a, 7, &m), 0);
	CHECK_EQ(m.w[0], 8);

	/* Task capabilities' rights. */
	CHECK_EQ(q_kill(q_cap_mint(server, SYS_CAP_ANY_SLOT, SYS_CAP_READ, 0)), -SYS_EACCES);
	CHECK_EQ(q_wait_for(q_cap_mint(server, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 0), &st),
		 -SYS_EACCES);

	/* The server killed while a client waits for its reply. */
	tid = q_thread_create(hold_call, NULL, SYS_CPU_ANY);
	CHECK_EQ(q_wait(held), 1);
	CHECK_EQ(q_kill(server), 0);
	CHECK_EQ(q_wait_for(server, &st), 0);
	CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);
	CHECK_EQ(q_thread_join(tid, &st), 0);
	CHECK_EQ(st.status, 0);			/* its call ended with -SYS_EPIPE */
	CHECK_EQ(call_echo(a, 9, &m), -SYS_EPIPE);	/* nobody can ever receive now */
	return check_result();
}
