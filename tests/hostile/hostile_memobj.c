/*
 * Memory objects abused: created until the quota refuses (-ENOMEM, then
 * all of it back), sizes out of range, mappings at bad addresses, one
 * capability mapped twice, writable and executable through two copies,
 * SYS_unmap on an object's pages, a mapped capability moved through IPC
 * (lost: a mapping never leaves its space), and a revoke of the copy a
 * child mapped: the child's next touch faults, the parent lives.
 */
#include <stdio.h>
#include <string.h>
#include "utest.h"
#include "hostile.h"

#define ME		"tests/user/hostile_memobj"
#define PAGE		4096L
#define MOST		2048
#define CHILD_SLOT	70

static int mems[MOST];

static long objects(void)
{
	return quota_now().objects;
}

static void sizes_and_addresses(void)
{
	int m = q_memory_create(SYS_CAP_ANY_SLOT, 2), c;
	long a, b;

	CHECK_EQ(q_memory_create(SYS_CAP_ANY_SLOT, 0), -SYS_EINVAL);
	CHECK_EQ(q_memory_create(SYS_CAP_ANY_SLOT, -1), -SYS_EINVAL);
	CHECK_EQ(q_memory_create(SYS_CAP_ANY_SLOT, 257), -SYS_EINVAL);
	CHECK_EQ(q_memory_create(SYS_CAP_ANY_SLOT, 1L << 40), -SYS_EINVAL);
	CHECK(m >= 0);
	CHECK_EQ(q_memory_map(m, (void *)(USER_MAP_BASE + 100), SYS_PROT_READ), -SYS_EINVAL);
	CHECK_EQ(q_memory_map(m, (void *)(USER_TOP - PAGE), SYS_PROT_READ), -SYS_EINVAL);
	CHECK_EQ(q_memory_map(m, (void *)0x100000, SYS_PROT_READ), -SYS_EINVAL);
	CHECK_EQ(q_memory_map(m, (void *)0xffff800000000000UL, SYS_PROT_READ), -SYS_EINVAL);
	CHECK_EQ(q_memory_map(m, (void *)(-2 * PAGE), SYS_PROT_READ), -SYS_EINVAL);
	CHECK_EQ(q_memory_map(m, NULL, 0), -SYS_EINVAL);
	CHECK_EQ(q_memory_map(m, NULL, 8), -SYS_EINVAL);
	CHECK_EQ(q_memory_map(m, NULL, SYS_PROT_WRITE | SYS_PROT_EXEC), -SYS_EINVAL);
	CHECK_EQ(q_memory_unmap(m), -SYS_EINVAL);			/* not mapped */
	a = q_memory_map(m, NULL, SYS_PROT_READ | SYS_PROT_WRITE);
	CHECK(a > 0);
	CHECK_EQ(q_memory_map(m, NULL, SYS_PROT_READ), -SYS_EBUSY);	/* once per capability */
	c = q_cap_copy(m, SYS_CAP_ANY_SLOT);
	CHECK_EQ(q_memory_map(c, (void *)a, SYS_PROT_READ), -SYS_EEXIST);	/* on the first */
	CHECK_EQ(q_memory_map(c, NULL, SYS_PROT_READ | SYS_PROT_EXEC), -SYS_EINVAL);	/* W + X */
	b = q_memory_map(c, NULL, SYS_PROT_READ);
	CHECK(b > 0 && b != a);
	((volatile char *)a)[PAGE + 5] = 42;
	CHECK_EQ(((volatile char *)b)[PAGE + 5], 42);
	CHECK_EQ(q_unmap((void *)a, PAGE), -SYS_EINVAL);		/* only its capability unmaps it */
	CHECK_EQ(q_unmap((void *)(a - PAGE), 4 * PAGE), -SYS_EINVAL);
	CHECK_EQ(q_map((void *)a, PAGE, SYS_PROT_READ), -SYS_EEXIST);
	m = q_cap_move(m, SYS_CAP_ANY_SLOT);		/* in its own space it may move */
	CHECK(m >= 0);
	CHECK_EQ(((volatile char *)a)[PAGE + 5], 42);	/* still mapped */
	CHECK_EQ(q_cap_delete(c), 0);
	CHECK_EQ(q_cap_delete(m), 0);
}

/*
 * A mapped capability sent moved to another thread: the sender's -EBUSY
 * (a mapping never leaves its space), nothing sent, and it is still ours
 * and mapped; the receiver then gets the plain message after it.
 */
static int receiver(void *arg)
{
	struct q_msg m;

	q_recv_slot(SYS_CAP_ANY_SLOT);
	if (q_recv((int)(long)arg, &m) < 0)
		return 1;
	return q_msg_cap(&m) < 0 && !q_msg_cap_lost(&m) ? 0 : 2;
}

static void moved_while_mapped(void)
{
	int mem = q_memory_create(SYS_CAP_ANY_SLOT, 1), ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	int t = q_thread_create(receiver, (void *)(long)ep, SYS_CPU_ANY);
	struct sys_exit_status st;
	struct sys_cap_info info;
	struct q_msg m = q_msg(1, 0, 0, 0, 0);
	long a = q_memory_map(mem, NULL, SYS_PROT_READ | SYS_PROT_WRITE);

	CHECK(a > 0);
	q_msg_move_cap(&m, mem);
	CHECK_EQ(q_send(ep, &m), -SYS_EBUSY);
	m = q_msg(1, 0, 0, 0, 0);
	CHECK_EQ(q_send(ep, &m), 0);
	CHECK_EQ(q_thread_join(t, &st), 0);
	CHECK_EQ(st.status, 0);
	CHECK_EQ(q_cap_inspect(mem, &info), 0);
	CHECK_EQ(info.mapped, 1);
	((volatile char *)a)[1] = 1;
	CHECK_EQ(q_cap_delete(mem), 0);
	CHECK_EQ(q_cap_delete(ep), 0);
}

/* The child: maps slot 0, says so on slot 1, then touches its pages until killed. */
static int child(void)
{
	volatile char *p = (volatile char *)q_memory_map(0, NULL, SYS_PROT_READ | SYS_PROT_WRITE);
	struct q_msg m = q_msg(1, 0, 0, 0, 0);

	if ((long)p < 0)
		return 1;
	p[0] = 1;
	q_send(1, &m);
	for (;;)
		p[0]++;
}

static void revoked_under_child(void)
{
	int mem = q_memory_create(SYS_CAP_ANY_SLOT, 1), ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	int copy = q_cap_copy(mem, SYS_CAP_ANY_SLOT), caps[2] = { copy, ep }, id;
	struct sys_exit_status st = { -1, -1 };
	struct q_msg m;

	id = q_spawn_caps(ME " child", caps, 2, CHILD_SLOT);
	CHECK(id > 0);
	CHECK(q_recv(ep, &m) >= 0);
	CHECK_EQ(q_cap_revoke(mem), 2);		/* our copy and the child's: its mapping goes */
	CHECK_EQ(q_task_wait(id, &st), 0);
	CHECK_EQ(st.killed, SYS_KILLED_FAULT);
	CHECK_EQ(q_cap_delete(CHILD_SLOT), 0);
	CHECK_EQ(q_cap_delete(mem), 0);
	CHECK_EQ(q_cap_delete(ep), 0);
}

static void until_refused(void)
{
	int n = 0, r = 0;

	while (n < MOST && (r = q_memory_create(SYS_CAP_ANY_SLOT, 16)) >= 0)
		mems[n++] = r;
	CHECK_EQ(r, -SYS_ENOMEM);
	for (int i = 0; i < n; i++)
		CHECK_EQ(q_cap_delete(mems[i]), 0);
	printf("%d memory objects of 16 pages before -ENOMEM\n", n);
}

int main(int argc, char **argv)
{
	long before;

	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	printf("hostile_memobj: start\n");
	CHECK_EQ(q_recv_slot(SYS_RECV_SLOT_NONE), 0);
	before = objects();
	sizes_and_addresses();
	moved_while_mapped();
	revoked_under_child();
	for (int i = 0; i < 3; i++)
		until_refused();
	CHECK_EQ(wait_given_back(objects, before), before);
	return check_result();
}
