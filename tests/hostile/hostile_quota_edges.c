/*
 * Every operation that spends quota, tried with the quota filled to
 * every level from full to the operation's whole cost: a spawn, a
 * thread, a thread's first IPC (its thread object), a capability table
 * grown to its end, an endpoint, a carved quota, a capability sent to a
 * receiver.  Each try must succeed or fail with -ENOMEM (a capability
 * sent: lost), the kernel must survive every half-built failure, and
 * after all of them the counts are back where they began.
 */
#include <stdio.h>
#include <string.h>
#include "utest.h"
#include "hostile.h"

#define ME		"tests/user/hostile_quota_edges"
#define PAGE		4096L
#define FILLER_PAGES	4096
#define FILLER_EPS	512

static long pages[FILLER_PAGES], big;
static size_t big_len;
static int npages, eps[FILLER_EPS], neps;

/* What the operations leave if they leak (user pages and page tables stay with the space). */
static long kept(void)
{
	struct sys_quota_info info = quota_now();

	return info.objects + info.shares + info.tasks + info.threads;
}

static void unfill(void)
{
	for (int i = 0; i < npages; i++)
		CHECK_EQ(q_unmap((void *)pages[i], PAGE), 0);
	for (int i = 0; i < neps; i++)
		CHECK_EQ(q_cap_delete(eps[i]), 0);
	if (big > 0)
		CHECK_EQ(q_unmap((void *)big, big_len), 0);
	npages = neps = 0;
	big = 0;
}

/* Spends the quota to within an endpoint's size, then gives back `room` pages. */
static void fill_leaving(int room)
{
	struct sys_quota_info info;
	long r;

	CHECK_EQ(q_quota_info(SYS_BOOT_SLOT_QUOTA, &info), 0);
	big_len = (info.limit - info.used - 200 * PAGE) / PAGE * PAGE;
	big = big_len > 0 ? q_map(NULL, big_len, SYS_PROT_READ) : 0;
	while (npages < FILLER_PAGES && (r = q_map(NULL, PAGE, SYS_PROT_READ)) > 0)
		pages[npages++] = r;
	while (neps < FILLER_EPS && (r = q_endpoint_create(SYS_CAP_ANY_SLOT)) >= 0)
		eps[neps++] = r;
	for (int i = 0; i < room && npages > 0; i++)
		CHECK_EQ(q_unmap((void *)pages[--npages], PAGE), 0);
}

static int quick(void *arg)
{
	return (int)(long)arg;
}

static volatile int go;

/* Made before the quota is filled; its first IPC call (which makes its thread object) after. */
static int first_ipc(void *arg)
{
	(void)arg;
	while (!go)
		q_sleep_ns(1000000);
	return (int)-q_recv_slot(SYS_CAP_ANY_SLOT);
}

/* Serves the whole test: each call's capability lands in a copy charged to our quota. */
static int cap_ep;

static int cap_receiver(void *arg)
{
	struct q_msg m;

	(void)arg;
	q_recv_slot(SYS_CAP_ANY_SLOT);
	if (q_recv(cap_ep, &m) < 0)
		return 1;
	for (;;) {
		unsigned long info = m.info;

		if (q_msg_label(&m) == 2)
			return 0;
		m = q_msg(1, info, 0, 0, 0);
		if (q_reply_recv(cap_ep, &m) < 0)
			return 2;
	}
}

static int prepared;

static void prepare(int op)
{
	go = 0;
	if (op == 2)
		prepared = q_thread_create(first_ipc, NULL, SYS_CPU_ANY);
}

static int ok_or_enomem(const char *what, long r, int level)
{
	if (r >= 0)
		return 1;
	if (r != -SYS_ENOMEM) {
		printf("FAILED: %s with %d pages of room: %ld, not -ENOMEM\n", what, level, r);
		utest_failed();
	}
	return 0;
}

static int try_one(int op, int level)
{
	struct sys_exit_status st;
	long r;
	int ok = 0;

	switch (op) {
	case 0:		/* a spawn */
		r = q_spawn_caps(ME " child", NULL, 0, SYS_RECV_SLOT_NONE);
		if ((ok = ok_or_enomem("spawn", r, level))) {
			CHECK_EQ(q_task_wait((int)r, &st), 0);
			CHECK_EQ(st.status, 3);
		}
		break;
	case 1:		/* a thread */
		r = q_thread_create(quick, (void *)4, SYS_CPU_ANY);
		if ((ok = ok_or_enomem("thread", r, level))) {
			CHECK_EQ(q_thread_join((int)r, &st), 0);
			CHECK_EQ(st.status, 4);
		}
		break;
	case 2:		/* a thread's first IPC call: its thread object */
		go = 1;
		CHECK_EQ(q_thread_join(prepared, &st), 0);
		ok = ok_or_enomem("first IPC", -st.status, level);
		break;
	case 3:		/* the table grown to its end */
		r = q_cap_copy(SYS_BOOT_SLOT_QUOTA, SYS_CAP_MAX_SLOTS - 1);
		if ((ok = ok_or_enomem("copy to the last slot", r, level)))
			CHECK_EQ(q_cap_delete((int)r), 0);
		break;
	case 4:		/* a carved quota */
		r = q_quota_create(SYS_CAP_ANY_SLOT, 4);
		if ((ok = ok_or_enomem("quota", r, level)))
			CHECK_EQ(q_cap_delete((int)r), 0);
		break;
	case 5: {	/* a capability sent: the copy's node, from our quota */
		struct q_msg m = q_msg(1, 0, 0, 0, 0);
		unsigned long info;

		q_msg_give_cap(&m, SYS_BOOT_SLOT_QUOTA);
		CHECK_EQ(q_call(cap_ep, &m), 0);
		info = m.w[0];
		ok = !(info & SYS_MSG_CAP_LOST);
		if (ok)
			CHECK_EQ(q_cap_delete(SYS_MSG_CAP_SLOT(info)), 0);
		break;
	}
	}
	return ok;
}

#define OPS	6
static const char *const names[OPS] = {
	"spawn", "thread", "first IPC", "table to its end", "carved quota", "capability sent",
};

int main(int argc, char **argv)
{
	struct sys_exit_status st;
	int receiver_tid;
	long before;

	if (argc > 1 && !strcmp(argv[1], "child"))
		return 3;
	printf("hostile_quota_edges: start\n");
	CHECK_EQ(q_recv_slot(SYS_RECV_SLOT_NONE), 0);
	before = kept();
	cap_ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	receiver_tid = q_thread_create(cap_receiver, NULL, SYS_CPU_ANY);
	CHECK(receiver_tid > 0);
	for (int op = 0; op < OPS; op++) {
		int first_ok = -1;

		for (int level = 0; level < 160; level++) {
			int ok;

			prepare(op);
			fill_leaving(level);
			ok = try_one(op, level);
			unfill();
			if (ok) {
				first_ok = level;
				break;
			}
		}
		printf("%s: first works with %d pages of room\n", names[op], first_ok);
		CHECK(first_ok >= 0);
	}
	{
		struct q_msg m = q_msg(2, 0, 0, 0, 0);

		CHECK_EQ(q_send(cap_ep, &m), 0);
		CHECK_EQ(q_thread_join(receiver_tid, &st), 0);
		CHECK_EQ(st.status, 0);
		CHECK_EQ(q_cap_delete(cap_ep), 0);

	}
	CHECK_EQ(wait_given_back(kept, before), before);
	return check_result();
}
