/*
 * Quotas (docs/microkernel.md, "Quotas"): every page a task makes the
 * kernel spend is charged to its quota -- its program, its stacks, the
 * pages it maps, its threads' kernel stacks, its page tables, its
 * objects -- so a child given a small share is refused at its share,
 * with -SYS_ENOMEM, while its parent and every other task go on.
 *
 *   carved_share()  a share carved out of ours is charged to ours at once;
 *                   a child given too small a share for its program is
 *                   refused at its spawn; a child given a share it can
 *                   start in ("cap_quota eat", below) spends it on pages,
 *                   threads and memory objects until each is refused at
 *                   the share, and while it sits there full, our quota
 *                   has exactly the room it had and serves us; the share
 *                   comes back when the child is gone.
 *   spent()         our own quota spent on memory objects: -SYS_ENOMEM,
 *                   and everything else goes on -- another task, with a
 *                   share carved before, serves us, and what we free we
 *                   may spend again.
 */
#include <string.h>
#include "qcap.h"
#include "utest.h"

#define PAGE		4096UL
#define PAGES		16
#define MAX_OBJECTS	200
#define SERVER		"tests/user/helpers/echo_server"
#define EATER		"tests/user/cap_quota eat"
#define TINY_KB		64	/* less than a program needs: its first stack alone is 128 KiB */
#define SHARE_KB	512	/* a program (about 300 KiB started) and some to spend */
#define EAT_MOST	((int)(SHARE_KB * 1024 / PAGE) + 64)	/* more: the share did not hold */
#define OURS		SYS_BOOT_SLOT_QUOTA	/* (the kernel starts us with it) */
#define GIVE_BACK_WAIT_NS	10000000000ULL	/* 10 s: long, for a loaded host */

/* The eater's slots: its share, and where it reports to its parent. */
#define EAT_SHARE	0
#define EAT_REPORT	1

static long used_of(int quota)
{
	struct sys_quota_info info;

	return q_quota_info(quota, &info) ? -1 : info.used;
}

static volatile int release_threads;

/*
 * A thread that sits until released.  The first ("probe") then calls on
 * slots no table holds, with the share full and no thread object of its
 * own yet (a thread's first IPC makes one): -SYS_EBADF, which the
 * arguments alone decide, never -SYS_ENOMEM for the object.  Its exit
 * status: 0 if so.
 */
static int sitting(void *probe)
{
	while (!release_threads)
		q_sleep_ns(1000000);
	if (!probe)
		return 0;
	return (q_syscall(SYS_ipc_recv, SYS_CAP_MAX_SLOTS, SYS_RECV_NONBLOCK, 0, 0, 0, 0) !=
		-SYS_EBADF) |
	       (q_syscall(SYS_ipc_call, -1, 0, 0, 0, 0, 0) != -SYS_EBADF) << 1 |
	       (q_syscall(SYS_ntf_wait, SYS_CAP_MAX_SLOTS + 7, 0, 0, 0, 0, 0) != -SYS_EBADF) << 2;
}

/* Pages, one at a time, until refused: how many (EAT_MOST: never refused); *err the refusal. */
static long eat_pages(long *addrs, long *err)
{
	long n = 0;

	while (n < EAT_MOST && (*err = q_map(NULL, PAGE, SYS_PROT_READ | SYS_PROT_WRITE)) >= 0)
		addrs[n++] = *err;
	return n;
}

static int eat_threads(int *tids, int most, long *err)
{
	int n = 0;

	while (n < most && (*err = q_thread_create(sitting, (void *)(long)!n, SYS_CPU_ANY)) >= 0)
		tids[n++] = *err;
	return n;
}

static int eat_objects(long *err)
{
	int n = 0;

	while (n < EAT_MOST && (*err = q_memory_create(SYS_CAP_ANY_SLOT, 1)) >= 0)
		n++;
	return n;
}

/* Then notifications, small, until refused too: no room left for any object. */
static int eat_crumbs(long *err)
{
	int n = 0;

	while (n < EAT_MOST && (*err = q_syscall(SYS_cap_create, SYS_OBJ_NOTIFICATION,
						 SYS_CAP_ANY_SLOT, 0, 0, 0, 0)) >= 0)
		n++;
	return n;
}

/*
 * "cap_quota eat": spends the share in its slot 0 on pages, then threads,
 * then memory objects, each until refused (freeing the pages before the
 * threads); reports to its parent through slot 1 while it holds the
 * threads and objects, and ends once answered.  Exit status 0 if every
 * refusal was -SYS_ENOMEM at the share, with the share's counts saying so.
 */
static int eat(void)
{
	static long addrs[EAT_MOST];
	static int tids[64];
	struct sys_exit_status st;
	struct sys_quota_info info;
	long pages, err_pages, err_threads, err_objects, err_crumbs;
	int threads, objects;
	struct q_msg m;

	/* What the report needs, made while there is room: our thread object, stdout's buffer. */
	CHECK_EQ(q_recv_slot(SYS_RECV_SLOT_NONE), 0);
	printf("cap_quota eat: spending a share of %d KiB\n", SHARE_KB);
	pages = eat_pages(addrs, &err_pages);
	CHECK_EQ(q_quota_info(EAT_SHARE, &info), 0);
	CHECK(pages < EAT_MOST);		/* refused at its share */
	CHECK_EQ(err_pages, -SYS_ENOMEM);
	CHECK(info.used <= info.limit && info.pages >= pages * (long)PAGE);
	CHECK(info.limit - info.used < 2 * (long)PAGE);	/* (a page and maybe its table) */
	for (long i = 0; i < pages; i++)
		CHECK_EQ(q_unmap((void *)addrs[i], PAGE), 0);
	threads = eat_threads(tids, 64, &err_threads);
	objects = eat_objects(&err_objects);
	CHECK(eat_crumbs(&err_crumbs) < EAT_MOST);
	CHECK_EQ(err_crumbs, -SYS_ENOMEM);
	CHECK_EQ(q_quota_info(EAT_SHARE, &info), 0);
	CHECK(threads >= 1 && threads < 64);
	CHECK_EQ(err_threads, -SYS_ENOMEM);
	CHECK(objects < EAT_MOST);
	CHECK_EQ(err_objects, -SYS_ENOMEM);
	CHECK(info.used <= info.limit && info.threads > 0 && info.objects >= objects * (long)PAGE);
	printf("cap_quota eat: %ld pages, then %d threads and %d memory objects, each refused "
	       "at its share: %ld of %ld KiB (pages %ld, tables %ld, threads %ld, objects %ld)\n",
	       pages, threads, objects, info.used / 1024, info.limit / 1024, info.pages / 1024,
	       info.tables / 1024, info.threads / 1024, info.objects / 1024);
	m = q_msg(1, pages, threads, objects, utest_failures);
	CHECK_EQ(q_call(EAT_REPORT, &m), 0);		/* held full until the parent answers */
	release_threads = 1;
	for (int i = 0; i < threads; i++) {
		CHECK_EQ(q_thread_join(tids[i], &st), 0);
		CHECK_EQ(st.status, 0);		/* (the probe's: 1, 2, 4 its broken promises) */
	}
	return check_result();
}

/* Waits until ours is back to at most `used` (the frees wait for grace periods). */
static void wait_given_back(long used)
{
	uint64_t deadline = q_clock_ns() + GIVE_BACK_WAIT_NS;

	while (used_of(OURS) > used && q_clock_ns() < deadline)
		q_sleep_ns(1000000);
	CHECK(used_of(OURS) <= used);
}

static void tiny_share_refused(void)
{
	long before = used_of(OURS);
	int tiny = q_quota_create(SYS_CAP_ANY_SLOT, TINY_KB);
	struct sys_quota_info info;

	CHECK(tiny >= 0);
	CHECK_EQ(q_spawn_quota(EATER, tiny, NULL, 0, SYS_RECV_SLOT_NONE), -SYS_ENOMEM);
	CHECK_EQ(q_quota_info(tiny, &info), 0);
	CHECK(info.refused >= 1);
	CHECK_EQ(info.used, 0);		/* what the spawn got before it was refused is back */
	CHECK_EQ(q_cap_delete(tiny), 0);
	wait_given_back(before);
}

static void carved_share(void)
{
	long before = used_of(OURS);
	int share = q_quota_create(SYS_CAP_ANY_SLOT, SHARE_KB);
	int report = q_endpoint_create(SYS_CAP_ANY_SLOT), caps[2] = { share, report }, id, mine;
	struct sys_quota_info info;
	struct sys_exit_status st;
	struct q_msg m;
	long addr;

	CHECK(before > 0 && share >= 0 && report >= 0);
	CHECK(used_of(OURS) >= before + SHARE_KB * 1024);	/* charged to ours at once */
	CHECK_EQ(q_quota_info(share, &info), 0);
	CHECK_EQ(info.limit, SHARE_KB * 1024);
	CHECK_EQ(info.used, 0);
	CHECK_EQ(q_recv_slot(SYS_RECV_SLOT_NONE), 0);	/* (our thread's object, made now) */
	before = used_of(OURS);
	id = q_spawn_quota(EATER, share, caps, 2, SYS_RECV_SLOT_NONE);
	CHECK(id > 0);
	if (id <= 0)
		return;
	/* The child, full at its share, waits for our answer: ours is as it was. */
	CHECK(q_recv(report, &m) >= 0);
	CHECK_EQ(used_of(OURS), before);
	printf("the child's report: %ld pages, %ld threads, %ld memory objects, %ld failures\n",
	       m.w[0], m.w[1], m.w[2], m.w[3]);
	addr = q_map(NULL, PAGES * PAGE, SYS_PROT_READ | SYS_PROT_WRITE);
	CHECK(addr > 0);
	CHECK_EQ(q_unmap((void *)addr, PAGES * PAGE), 0);
	mine = q_memory_create(SYS_CAP_ANY_SLOT, PAGES);
	CHECK(mine >= 0);
	CHECK_EQ(q_cap_delete(mine), 0);
	m = q_msg(1, 0, 0, 0, 0);
	CHECK_EQ(q_reply(&m), 0);
	CHECK_EQ(q_task_wait(id, &st), 0);
	CHECK_EQ(st.killed, 0);
	CHECK_EQ(st.status, 0);
	CHECK_EQ(q_quota_info(share, &info), 0);
	CHECK(info.refused >= 3 && info.peak <= info.limit);
	CHECK_EQ(q_quota_create(SYS_CAP_ANY_SLOT, 1 << 20), -SYS_ENOMEM);	/* more than ours */
	CHECK_EQ(q_quota_create(SYS_CAP_ANY_SLOT, 0), -SYS_EINVAL);
	/* Its capability gone, the child and its objects freed: ours gets it back. */
	CHECK_EQ(q_cap_delete(share), 0);
	CHECK_EQ(q_cap_delete(report), 0);
	wait_given_back(before - SHARE_KB * 1024);
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
	server_share = q_quota_create(SYS_CAP_ANY_SLOT, SHARE_KB);	/* before ours runs out */
	CHECK(server_share >= 0);
	while (n < MAX_OBJECTS && (r = q_memory_create(SYS_CAP_ANY_SLOT, PAGES)) >= 0)
		made[n++] = r;
	printf("%d memory objects of %d pages before the quota ran out\n", n, PAGES);
	CHECK(n > 0 && n < MAX_OBJECTS);
	CHECK_EQ(r, -SYS_ENOMEM);
	r = q_endpoint_create(SYS_CAP_ANY_SLOT);
	CHECK(r == -SYS_ENOMEM || r >= 0);	/* (a small one may still fit) */
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
	/* (stdout's buffer, on our heap, is charged to ours: made before anything is counted) */
	printf("cap_quota: a share too small, a share spent, our own quota spent\n");
	tiny_share_refused();
	carved_share();
	spent();
	return check_result();
}
