/*
 * Threads killed or ended in the middle of IPC, in every role: a caller
 * queued with nobody receiving, a server holding a reply capability, a
 * caller whose server holds its reply, a server that returns owing a
 * reply or takes a second call owing the first, receivers and senders
 * whose other side's last capability goes, and kills at random moments
 * of a stream of calls.  Every wait must end with the right answer; a
 * lost wake-up hangs (the test's timeout).
 */
#include <stdio.h>
#include "utest.h"
#include "qcap.h"
#include "hostile.h"

static int ep;
static volatile int received, release;

static void pause_ms(int ms)
{
	q_sleep_ns((uint64_t)ms * 1000000);
}

/* A thread with a capability to it; the runtime's join collects it after. */
static int spawn(int (*fn)(void *), void *arg, int cpu, int *cap)
{
	int tid = q_thread_create(fn, arg, cpu);

	CHECK(tid > 0);
	*cap = q_thread_cap(SYS_CAP_ANY_SLOT, tid);
	CHECK(*cap >= 0);
	return tid;
}

static int caller(void *arg)
{
	struct q_msg m = q_msg(1, (long)arg, 0, 0, 0);
	long r = q_call(ep, &m);

	return r < 0 ? (int)-r : 1000 + (int)m.w[0];
}

static int holder(void *arg)
{
	struct q_msg m;
	long r = q_recv(ep, &m);

	(void)arg;
	__atomic_store_n(&received, 1, __ATOMIC_RELEASE);
	while (!release)
		pause_ms(1);
	if ((long)arg == 1)
		return 0;		/* returns owing the reply */
	m = q_msg(1, 5, 0, 0, 0);
	return r < 0 ? 1 : (int)-q_reply(&m);
}

static void wait_received(void)
{
	while (!__atomic_load_n(&received, __ATOMIC_ACQUIRE))
		pause_ms(1);
	received = 0;
}

static int join_status(int tid)
{
	struct sys_exit_status st = { -1, -1 };

	CHECK_EQ(q_thread_join(tid, &st), 0);
	CHECK_EQ(st.killed, 0);
	return st.status;
}

static void queued_caller_killed(void)
{
	struct q_msg m;
	int cap, tid = spawn(caller, (void *)7, SYS_CPU_ANY, &cap);

	pause_ms(20);
	kill_and_collect(tid, cap, SYS_KILLED_BY_TASK);
	CHECK_EQ(q_recv_nonblock(ep, &m), -SYS_EAGAIN);	/* it left the queue */
}

static void server_killed_holding_reply(void)
{
	int cap, c = q_thread_create(caller, (void *)1, SYS_CPU_ANY);
	int tid = spawn(holder, NULL, SYS_CPU_ANY, &cap);

	wait_received();
	kill_and_collect(tid, cap, SYS_KILLED_BY_TASK);
	CHECK_EQ(join_status(c), SYS_EPIPE);
}

static void caller_killed_while_held(void)
{
	int cap, c = spawn(caller, (void *)1, SYS_CPU_ANY, &cap);
	int h = q_thread_create(holder, NULL, SYS_CPU_ANY);

	wait_received();
	kill_and_collect(c, cap, SYS_KILLED_BY_TASK);
	release = 1;
	CHECK_EQ(join_status(h), SYS_ESRCH);
	release = 0;
}

static void server_returns_owing(void)
{
	int c = q_thread_create(caller, (void *)1, SYS_CPU_ANY);
	int h = q_thread_create(holder, (void *)1, SYS_CPU_ANY);

	wait_received();
	release = 1;
	CHECK_EQ(join_status(h), 0);
	CHECK_EQ(join_status(c), SYS_EPIPE);
	release = 0;
}

static int two_calls_server(void *arg)
{
	struct q_msg m;

	(void)arg;
	CHECK(q_recv(ep, &m) >= 0);
	CHECK(q_recv(ep, &m) >= 0);	/* drops the first reply */
	m = q_msg(1, 1, 0, 0, 0);
	return (int)-q_reply(&m);
}

static void second_call_drops_first(void)
{
	int c1 = q_thread_create(caller, (void *)1, SYS_CPU_ANY), c2;
	int s;

	pause_ms(10);
	c2 = q_thread_create(caller, (void *)2, SYS_CPU_ANY);
	pause_ms(10);
	s = q_thread_create(two_calls_server, NULL, SYS_CPU_ANY);
	CHECK_EQ(join_status(s), 0);
	{
		int a = join_status(c1), b = join_status(c2);

		/* One caller got the reply (1001), the other -EPIPE. */
		CHECK((a == SYS_EPIPE && b == 1001) || (a == 1001 && b == SYS_EPIPE));
	}
}

static int receiver_on(void *arg)
{
	struct q_msg m;

	return (int)-q_recv((int)(long)arg, &m);
}

static int sender_on(void *arg)
{
	struct q_msg m = q_msg(1, 0, 0, 0, 0);

	return (int)-q_send((int)(long)arg, &m);
}

static int callers_started;

static int caller_on(void *arg)
{
	struct q_msg m = q_msg(1, 0, 0, 0, 0);

	__atomic_add_fetch(&callers_started, 1, __ATOMIC_RELAXED);
	return (int)-q_call((int)(long)arg, &m);
}

/* Waiters on both sides; the other side's last capability goes (a delete, then a revoke). */
static void last_capability_gone(void)
{
	enum { N = 3 };
	int e = q_endpoint_create(SYS_CAP_ANY_SLOT);
	int r = q_cap_mint(e, SYS_CAP_ANY_SLOT, SYS_CAP_READ, 0);
	int w = q_cap_mint(e, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 0);
	int w2 = q_cap_copy(w, SYS_CAP_ANY_SLOT);
	int tids[N];

	CHECK(w2 >= 0);

	for (int i = 0; i < N; i++)
		tids[i] = q_thread_create(receiver_on, (void *)(long)r, SYS_CPU_ANY);
	pause_ms(20);
	CHECK_EQ(q_cap_delete(e), 0);		/* w, w2 can still send */
	CHECK_EQ(q_cap_revoke(w), 1);		/* w2 goes: w still can */
	pause_ms(10);
	CHECK_EQ(q_cap_delete(w), 0);		/* nobody can send now */
	for (int i = 0; i < N; i++)
		CHECK_EQ(join_status(tids[i]), SYS_EPIPE);
	CHECK_EQ(q_cap_delete(r), 0);

	e = q_endpoint_create(SYS_CAP_ANY_SLOT);
	w = q_cap_mint(e, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 0);
	for (int i = 0; i < N; i++)
		tids[i] = q_thread_create(i % 2 ? sender_on : caller_on, (void *)(long)w,
					  SYS_CPU_ANY);
	pause_ms(20);
	CHECK_EQ(q_cap_revoke(e), 1);		/* w goes, e stays: they wait on */
	pause_ms(10);
	CHECK_EQ(q_cap_delete(e), 0);		/* the last: they wake */
	for (int i = 0; i < N; i++) {
		int st = join_status(tids[i]);

		/* -EPIPE, or -EBADF for one that had not looked w up before the revoke */
		CHECK(st == SYS_EPIPE || st == SYS_EBADF);
	}
}

/* The revoke above may catch threads queued on w before it went: they must wait on e, not fail. */
static void revoke_keeps_root_waiters(void)
{
	enum { N = 3 };
	int e = q_endpoint_create(SYS_CAP_ANY_SLOT);
	int w = q_cap_copy(e, SYS_CAP_ANY_SLOT);
	int tids[N], answered = 0;
	struct q_msg m;

	callers_started = 0;
	for (int i = 0; i < N; i++)
		tids[i] = q_thread_create(caller_on, (void *)(long)w, SYS_CPU_ANY);
	while (__atomic_load_n(&callers_started, __ATOMIC_RELAXED) < N)
		pause_ms(1);
	pause_ms(50);
	CHECK_EQ(q_cap_revoke(e), 1);		/* their slot is gone; e receives still */
	/* Those queued before the revoke wait on, and are answered; one not queued yet got -EBADF. */
	while (q_recv_nonblock(e, &m) >= 0) {
		m = q_msg(1, 0, 0, 0, 0);
		CHECK_EQ(q_reply(&m), 0);
		answered++;
	}
	for (int i = 0; i < N; i++) {
		int st = join_status(tids[i]);

		CHECK(st == 0 || st == SYS_EBADF);
		answered -= st == 0;
	}
	CHECK_EQ(answered, 0);
	CHECK_EQ(q_cap_delete(e), 0);
}

/* A stream of calls to a server, callers killed at random moments. */
static int streamer(void *arg)
{
	struct q_msg m;

	for (long i = 0;; i++) {
		m = q_msg(1, i, 0, 0, 0);
		long r = q_call((int)(long)arg, &m);

		if (r == -SYS_EPIPE)
			return 0;
		if (r != 0 || m.w[0] != (unsigned long)i + 1)
			return 99;
	}
}

static int stream_server(void *arg)
{
	struct q_msg m;
	long r = q_recv((int)(long)arg, &m);

	while (r >= 0 || r == -SYS_ESRCH) {
		if (q_msg_label(&m) == 9)
			return 0;
		m.w[0]++;
		r = q_reply_recv((int)(long)arg, &m);
	}
	return (int)-r;
}

static void kills_at_random(void)
{
	enum { CLIENTS = 3, ROUNDS = 40 };
	int e = q_endpoint_create(SYS_CAP_ANY_SLOT), caps[CLIENTS], tids[CLIENTS];
	int cpus = q_nr_cpus(), srv = q_thread_create(stream_server, (void *)(long)e, 0);
	unsigned int seed = 12345;
	struct q_msg m;

	for (int i = 0; i < CLIENTS; i++)
		tids[i] = spawn(streamer, (void *)(long)e, i % cpus, &caps[i]);
	for (int round = 0; round < ROUNDS; round++) {
		int i = round % CLIENTS;

		seed = seed * 1103515245 + 12345;
		if (seed >> 16 & 1)
			pause_ms(1);
		else
			q_yield();
		kill_and_collect(tids[i], caps[i], SYS_KILLED_BY_TASK);
		tids[i] = spawn(streamer, (void *)(long)e, (round + i) % cpus, &caps[i]);
	}
	for (int i = 0; i < CLIENTS; i++)
		kill_and_collect(tids[i], caps[i], SYS_KILLED_BY_TASK);
	m = q_msg(9, 0, 0, 0, 0);
	CHECK_EQ(q_send(e, &m), 0);
	CHECK_EQ(join_status(srv), 0);
	CHECK_EQ(q_cap_delete(e), 0);
}

int main(void)
{
	ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	CHECK(ep >= 0);
	queued_caller_killed();
	server_killed_holding_reply();
	caller_killed_while_held();
	server_returns_owing();
	second_call_drops_first();
	last_capability_gone();
	revoke_keeps_root_waiters();
	kills_at_random();
	CHECK_EQ(q_cap_delete(ep), 0);
	return check_result();
}
