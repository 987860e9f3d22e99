/*
 * Waits that can never end, and waits twice: a thread joining itself, a
 * thread joined twice and by two joiners at once, a thread waiting on a
 * capability to itself, a thread killing itself through one, capabilities
 * to threads that are not ours or are gone; and a task waiting on a
 * capability to itself (a child, given one), which must be refused as a
 * thread's wait on itself is, not hang until someone kills it.
 */
#include <stdio.h>
#include <string.h>
#include "utest.h"
#include "qcap.h"

#define ME		"tests/user/wait_self"
#define CHILD_TASK_SLOT	60
#define WATCHDOG_MS	20000	/* only a broken kernel waits for it */

static volatile int go;

static void pause_ms(int ms)
{
	q_sleep_ns((uint64_t)ms * 1000000);
}

static int waits_for_go(void *arg)
{
	while (!go)
		pause_ms(1);
	return (int)(long)arg;
}

static int joiner(void *arg)
{
	struct sys_exit_status st;

	return q_thread_join((int)(long)arg, &st) == 0 ? st.status : 1000;
}

static int kills_itself(void *arg)
{
	int cap = q_thread_cap(SYS_CAP_ANY_SLOT, q_thread_id());
	struct sys_exit_status st;

	(void)arg;
	if (cap < 0)
		return 1;
	if (q_wait_for(cap, &st) != -SYS_EDEADLK)
		return 2;
	q_kill(cap);
	q_yield();		/* leaves at its way back to user mode, at the latest */
	q_sleep_ns(1000000);
	return 3;		/* never */
}

static void threads(void)
{
	struct sys_exit_status st;
	int t, j1, j2, a, b, cap;
	long k;

	CHECK_EQ(q_thread_join(q_thread_id(), &st), -SYS_EDEADLK);
	t = q_thread_create(waits_for_go, (void *)5, SYS_CPU_ANY);
	j1 = q_thread_create(joiner, (void *)(long)t, SYS_CPU_ANY);
	j2 = q_thread_create(joiner, (void *)(long)t, SYS_CPU_ANY);
	pause_ms(20);
	go = 1;
	CHECK_EQ(q_thread_join(j1, &st), 0);
	a = st.status;
	CHECK_EQ(q_thread_join(j2, &st), 0);
	b = st.status;
	/* One joiner collected it (5), the other found it gone. */
	CHECK((a == 5 && b == 1000) || (a == 1000 && b == 5));
	CHECK_EQ(q_thread_join(t, &st), -SYS_ESRCH);		/* collected already */
	CHECK(q_thread_cap(SYS_CAP_ANY_SLOT, t) < 0);		/* gone */
	CHECK(q_thread_cap(SYS_CAP_ANY_SLOT, 0) < 0);
	CHECK(q_thread_cap(SYS_CAP_ANY_SLOT, -1) < 0);
	CHECK(q_thread_cap(SYS_CAP_ANY_SLOT, 1 << 30) < 0);

	t = q_thread_create(kills_itself, NULL, SYS_CPU_ANY);
	CHECK_EQ(q_thread_join(t, &st), 0);
	CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);

	/* A capability to a thread that ended but was not collected: wait works, kill is refused. */
	go = 0;
	t = q_thread_create(waits_for_go, (void *)6, SYS_CPU_ANY);
	cap = q_thread_cap(SYS_CAP_ANY_SLOT, t);
	CHECK(cap >= 0);
	go = 1;
	CHECK_EQ(q_wait_for(cap, &st), 0);
	CHECK_EQ(st.status, 6);
	CHECK_EQ(q_wait_for(cap, &st), 0);	/* again: the same */
	CHECK_EQ(st.status, 6);
	k = q_kill(cap);
	CHECK(k == -SYS_ESRCH || k == 0);
	CHECK_EQ(q_thread_join(t, &st), 0);
	CHECK_EQ(st.status, 6);
	CHECK_EQ(q_wait_for(cap, &st), 0);	/* collected: the capability still tells */
	CHECK_EQ(q_cap_delete(cap), 0);
}

/* The child: receives a capability to its own task and waits on it. */
static int self_waiter(void)
{
	struct q_msg m;
	struct sys_exit_status st;
	long r;

	q_recv_slot(SYS_CAP_ANY_SLOT);
	if (q_recv(0, &m) < 0 || q_msg_cap(&m) < 0)
		return 90;
	r = q_wait_for(q_msg_cap(&m), &st);
	printf("wait_self child: wait on its own task returned %ld\n", r);
	return r == -SYS_EDEADLK ? 0 : 91;
}

/* Kills the child if its wait is still going after WATCHDOG_MS (go: it ended). */
static int watchdog(void *arg)
{
	(void)arg;
	for (int ms = 0; ms < WATCHDOG_MS && !go; ms += 10)
		pause_ms(10);
	if (!go)
		q_kill(CHILD_TASK_SLOT);
	return 0;
}

static void task_waits_for_itself(void)
{
	int ep = q_endpoint_create(SYS_CAP_ANY_SLOT), caps[1] = { ep }, id, w;
	struct sys_exit_status st = { -1, -1 };
	struct q_msg m = q_msg(1, 0, 0, 0, 0);

	id = q_spawn_caps(ME " selfwait", caps, 1, CHILD_TASK_SLOT);
	CHECK(id > 0);
	q_msg_give_cap(&m, CHILD_TASK_SLOT);
	CHECK_EQ(q_send(ep, &m), 0);
	go = 0;
	w = q_thread_create(watchdog, NULL, SYS_CPU_ANY);
	CHECK_EQ(q_task_wait(id, &st), 0);
	go = 1;
	if (st.killed == SYS_KILLED_BY_TASK)
		printf("FAILED: a task waiting on a capability to itself still waited after %d ms: "
		       "killed (a thread's wait on itself is -EDEADLK)\n", WATCHDOG_MS);
	CHECK_EQ(st.killed, 0);
	CHECK_EQ(st.status, 0);
	q_thread_join(w, &st);
	CHECK_EQ(q_cap_delete(CHILD_TASK_SLOT), 0);
	CHECK_EQ(q_cap_delete(ep), 0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "selfwait"))
		return self_waiter();
	threads();
	task_waits_for_itself();
	return check_result();
}
