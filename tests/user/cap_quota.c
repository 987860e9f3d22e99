/*
 * Quotas (docs/microkernel.md): a quota carved out of ours is charged to
 * ours at once, and a child spending from it runs out of it, not of
 * ours; it comes back when the child and its objects are gone.  A task
 * creating objects in a loop gets -SYS_ENOMEM when its quota is spent,
 * and everything else keeps working: another task, with a share carved
 * before, serves it, its existing capabilities work, and what it frees
 * it may spend again.  The child is this program again, as "cap_quota
 * eat" (eat(), below).
 */
#include <string.h>
#include "qcap.h"
#include "utest.h"

#define PAGES		16
#define MAX_OBJECTS	200
#define SERVER		"tests/user/helpers/echo_server"
#define EATER		"tests/user/cap_quota eat"
#define EAT_MOST	250
#define SHARE_KB	64
#define OURS		SYS_BOOT_SLOT_QUOTA	/* (the kernel starts us with it) */
#define GIVE_BACK_WAIT_NS	10000000000ULL	/* 10 s: long, for a loaded host */

/*
 * "cap_quota eat": one-page memory objects until the quota refuses one.
 * How many it made, or 255 if the refusal was not -SYS_ENOMEM.
 */
static int eat(void)
{
	int n = 0;
	long r;

	while (n < EAT_MOST && (r = q_memory_create(SYS_CAP_ANY_SLOT, 1)) >= 0)
		n++;
	printf("cap_quota eat: %d pages, then error %ld\n", n, r);
	return r == -SYS_ENOMEM ? n : 255;
}

static long used_of(int quota)
{
	struct sys_quota_info info;

	return q_quota_info(quota, &info) ? -1 : info.used;
}

static void carved_share(void)
{
	long before = used_of(OURS);
	int share = q_quota_create(SYS_CAP_ANY_SLOT, SHARE_KB), id;
	uint64_t deadline;
	struct sys_quota_info info;
	struct sys_exit_status st;

	CHECK(before > 0 && share >= 0);
	CHECK(used_of(OURS) >= before + SHARE_KB * 1024);	/* charged to ours at once */
	CHECK_EQ(q_quota_info(share, &info), 0);
	CHECK_EQ(info.limit, SHARE_KB * 1024);
	CHECK_EQ(info.used, 0);
	/* A child spending from it gets at most its share (in one-page objects)... */
	id = q_spawn_quota(EATER, share, NULL, 0, SYS_RECV_SLOT_NONE);
	CHECK(id > 0);
	CHECK_EQ(q_task_wait(id, &st), 0);
	CHECK_EQ(st.killed, 0);
	CHECK(st.status > 0 && st.status < SHARE_KB / 4);
	CHECK_EQ(q_quota_info(share, &info), 0);
	CHECK(info.refused >= 1 && info.peak <= info.limit);
	/* ... while ours has room still. */
	id = q_memory_create(SYS_CAP_ANY_SLOT, PAGES);
	CHECK(id >= 0);
	CHECK_EQ(q_cap_delete(id), 0);
	CHECK_EQ(q_quota_create(SYS_CAP_ANY_SLOT, 1 << 20), -SYS_ENOMEM);	/* more than ours */
	CHECK_EQ(q_quota_create(SYS_CAP_ANY_SLOT, 0), -SYS_EINVAL);
	/* Its capability gone, the child and its objects freed: ours gets it back. */
	CHECK_EQ(q_cap_delete(share), 0);
	for (deadline = q_clock_ns() + GIVE_BACK_WAIT_NS; used_of(OURS) > before &&
	     q_clock_ns() < deadline; )
		q_sleep_ns(1000000);	/* (the frees wait for grace periods) */
	CHECK_EQ(used_of(OURS), before);
}

/* Our own quota spent: -SYS_ENOMEM, and everything else goes on. */
static void spent(void)
{
	static int made[MAX_OBJECTS];
	int n = 0, ep = q_endpoint_create(SYS_CAP_ANY_SLOT), id, caps[1] = { ep }, server_share;
	struct sys_exit_status st;
	struct q_msg m;
	long r;

	CHECK(ep >= 0);
	CHECK_EQ(q_recv_slot(SYS_RECV_SLOT_NONE), 0);	/* (this thread's object, made now) */
	carved_share();
	server_share = q_quota_create(SYS_CAP_ANY_SLOT, SHARE_KB);	/* before ours runs out */
	CHECK(server_share >= 0);
	while (n < MAX_OBJECTS && (r = q_memory_create(SYS_CAP_ANY_SLOT, PAGES)) >= 0)
		made[n++] = r;
	printf("%d memory objects of %d pages before the quota ran out\n", n, PAGES);
	CHECK(n > 0 && n < MAX_OBJECTS);
	CHECK_EQ(r, -SYS_ENOMEM);
	CHECK_EQ(q_endpoint_create(SYS_CAP_ANY_SLOT) == -SYS_ENOMEM ||
		 q_endpoint_create(SYS_CAP_ANY_SLOT) >= 0, 1);	/* (a small one may still fit) */
	/* Another task, with a share carved out before ours ran out, serves us meanwhile. */
	id = q_spawn_quota(SERVER, server_share, caps, 1, SYS_RECV_SLOT_NONE);
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
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "eat"))
		return eat();
	spent();
	return check_result();
}
