/*
 * Kills and waits that race each other: two threads killing each other
 * at the same moment through capabilities, a thread killed while it
 * joins another or waits on a capability, a child task collected by two
 * threads at once (through its id and through its capability), and a
 * notification ping-pong across CPUs (a lost wake-up hangs it).  Each
 * wait ends once, with one answer.
 */
#include <stdio.h>
#include <string.h>
#include "utest.h"
#include "qcap.h"

#define ME		"tests/user/hostile_kill_race"
#define ROUNDS		20
#define PINGS		300
#define TASK_SLOT	100

static volatile int go;
static int caps[2];

static int mutual(void *arg)
{
	long me = (long)arg;

	while (!go)
		;
	q_kill(caps[1 - me]);
	for (;;)
		q_yield();	/* until the other's kill lands */
	return 0;
}

static void mutual_kills(void)
{
	struct sys_exit_status st;
	int tids[2];

	go = 0;
	for (int i = 0; i < 2; i++) {
		tids[i] = q_thread_create(mutual, (void *)(long)i, i % q_nr_cpus());
		caps[i] = q_thread_cap(SYS_CAP_ANY_SLOT, tids[i]);
		CHECK(caps[i] >= 0);
	}
	go = 1;
	q_sleep_ns(2000000);	/* (each kill landed, or its killer was killed first) */
	for (int i = 0; i < 2; i++)
		q_kill(caps[i]);	/* the survivor, if any */
	for (int i = 0; i < 2; i++) {
		CHECK_EQ(q_thread_join(tids[i], &st), 0);
		CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);
		CHECK_EQ(q_cap_delete(caps[i]), 0);
	}
}

static int sleeps_long(void *arg)
{
	(void)arg;
	q_sleep_ns(10000000000ULL);
	return 1;
}

static int joins(void *arg)
{
	struct sys_exit_status st;

	q_thread_join((int)(long)arg, &st);
	return 2;
}

static int waits_on_cap(void *arg)
{
	struct sys_exit_status st;

	q_wait_for((int)(long)arg, &st);
	return 3;
}

static void killed_while_waiting(void)
{
	int target = q_thread_create(sleeps_long, NULL, SYS_CPU_ANY);
	int tcap = q_thread_cap(SYS_CAP_ANY_SLOT, target);
	int j = q_thread_create(joins, (void *)(long)target, SYS_CPU_ANY);
	int w = q_thread_create(waits_on_cap, (void *)(long)tcap, SYS_CPU_ANY);
	int jc = q_thread_cap(SYS_CAP_ANY_SLOT, j), wc = q_thread_cap(SYS_CAP_ANY_SLOT, w);
	struct sys_exit_status st;

	q_sleep_ns(20000000);
	CHECK_EQ(q_kill(jc), 0);
	CHECK_EQ(q_kill(wc), 0);
	CHECK_EQ(q_thread_join(j, &st), 0);
	CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);
	CHECK_EQ(q_thread_join(w, &st), 0);
	CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);
	/* The target is still there and still ours to collect. */
	CHECK_EQ(q_kill(tcap), 0);
	CHECK_EQ(q_thread_join(target, &st), 0);
	CHECK_EQ(st.killed, SYS_KILLED_BY_TASK);
	CHECK_EQ(q_cap_delete(tcap), 0);
	CHECK_EQ(q_cap_delete(jc), 0);
	CHECK_EQ(q_cap_delete(wc), 0);
}

static volatile int child_id;

static int collect_by_id(void *arg)
{
	struct sys_exit_status st = { -1, -1 };
	int r = q_task_wait(child_id, &st);

	(void)arg;
	return r == 0 ? 100 + st.status : -r;
}

static int collect_by_cap(void *arg)
{
	struct sys_exit_status st = { -1, -1 };
	int r = q_wait_for(TASK_SLOT, &st);

	(void)arg;
	return r == 0 ? 100 + st.status : -r;
}

static void double_collect(void)
{
	struct sys_exit_status st;
	int a, b, sa, sb;

	child_id = q_spawn_caps(ME " child", NULL, 0, TASK_SLOT);
	CHECK(child_id > 0);
	a = q_thread_create(collect_by_id, NULL, 0);
	b = q_thread_create(collect_by_id, NULL, q_nr_cpus() - 1);
	CHECK_EQ(q_thread_join(a, &st), 0);
	sa = st.status;
	CHECK_EQ(q_thread_join(b, &st), 0);
	sb = st.status;
	/* One collects it (exit status 6); the other finds it collected. */
	CHECK((sa == 106) != (sb == 106));
	/* The capability still tells how it ended. */
	a = q_thread_create(collect_by_cap, NULL, 0);
	CHECK_EQ(q_thread_join(a, &st), 0);
	CHECK_EQ(st.status, 106);
	CHECK_EQ(q_cap_delete(TASK_SLOT), 0);
}

static int ping_ntf, pong_ntf;

static int ponger(void *arg)
{
	(void)arg;
	for (int i = 0; i < PINGS; i++) {
		if (q_wait(ping_ntf) != 1)
			return 1;
		if (q_signal(pong_ntf, 2))
			return 2;
	}
	return 0;
}

static void ping_pong(void)
{
	struct sys_exit_status st;
	int t;

	ping_ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	pong_ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	t = q_thread_create(ponger, NULL, q_nr_cpus() - 1);
	CHECK_EQ(q_set_cpu(0), 0);
	for (int i = 0; i < PINGS; i++) {
		CHECK_EQ(q_signal(ping_ntf, 1), 0);
		CHECK_EQ(q_wait(pong_ntf), 2);
	}
	CHECK_EQ(q_thread_join(t, &st), 0);
	CHECK_EQ(st.status, 0);
	CHECK_EQ(q_cap_delete(ping_ntf), 0);
	CHECK_EQ(q_cap_delete(pong_ntf), 0);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child")) {
		q_sleep_ns(20000000);
		return 6;
	}
	for (int r = 0; r < ROUNDS; r++)
		mutual_kills();
	killed_while_waiting();
	for (int r = 0; r < 5; r++)
		double_collect();
	ping_pong();
	return check_result();
}
