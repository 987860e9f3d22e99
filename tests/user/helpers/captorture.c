/*
 * captorture's user half (tests/captorture.c starts it and reports):
 *
 *   captorture MS        for MS milliseconds, on every CPU: a server, a
 *                        client calling servers through whatever
 *                        capability a slot of the shared region holds,
 *                        and a mutator minting, copying, moving,
 *                        deleting and revoking those capabilities and
 *                        dropping decoys (notifications, receive-only
 *                        endpoints) among them; and a grower that keeps
 *                        spawning children that grow their capability
 *                        table from 16 slots to the last, then spend the
 *                        rest of the share of our quota they were given
 *                        until the kernel refuses (-ENOMEM), while their
 *                        own client calls the servers from another task
 *                        (a reply's capability then finds no room)
 *   captorture child N   a child: N server capabilities in slots 0..N-1
 *
 * A call either gets the right answer from the server its capability
 * names (the badge says which) or one of the errors a vanished or
 * wrong capability gives (-EBADF, -ENOTSUP, -EACCES); anything else is a
 * failure.  Exit status: 0, or the number of failures (at most 100).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qcap.h"
#include "../../captorture.h"

#define MAX_CPUS	64
#define ORIG_BASE	10		/* server c's endpoint: slot ORIG_BASE + c */
#define PARENT_BASE	80		/* a copy the region's capabilities derive from, revoked now and then */
#define CHILD_CAPS	150		/* minted for the children: slot CHILD_CAPS + c, c < CHILD_MAX */
#define CHILD_TASK	160		/* the capability to the child of the moment */
#define REGION		CT_REGION	/* the region clients call through */
#define REGION_SLOTS	CT_REGION_SLOTS
#define LABEL_ECHO	1
#define LABEL_STOP	2
#define LABEL_ECHO_CAP	3		/* the reply carries a copy of the server's endpoint */
#define BADGE_SHIFT	24		/* badge = (server + 1) << 24 | sequence */
#define CHILD_MAX	8		/* the most capabilities a spawn passes */
#define CHILD_QUOTA	161		/* the share of the child of the moment */
/*
 * A child's share: it starts in about 380 KiB (its program, its 128 KiB
 * stack, its client thread's 64 KiB stack, kernel stacks, page tables, a
 * table of 1024 slots), and spends the rest on one-page memory objects.
 */
#define CHILD_SHARE_KB	448
#define CHILD_SPEND_MOST 64		/* memory objects: more, and the share did not hold */

static int nr_cpus, nr_servers;
static bool is_server[3 * 64 + 1];
static volatile int stop;
static unsigned long calls_ok, calls_missed, failures, mutations, revokes, children;
static unsigned long shares_spent, shares_refused;

#define FAIL(...)							\
	do {								\
		if (__atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED) <= 10) \
			printf("captorture: FAILURE: " __VA_ARGS__);	\
	} while (0)

static unsigned long next_rand(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void count(unsigned long *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

/* Mutators run where lookups never linger (tests/captorture.h). */
static bool mutator_cpu(int cpu)
{
	return nr_cpus == 1 || !ct_lingering_cpu(cpu, nr_cpus);
}

/* Where the grower and its children's updates run: a mutators' CPU. */
static int mutator_home(void)
{
	return nr_cpus > 1 ? 1 : 0;
}

static long serve_one(unsigned long badge, const struct q_msg *req, struct q_msg *reply,
		      void *arg)
{
	if (q_msg_label(req) == LABEL_STOP && !badge)
		return -1;
	reply->w[0] = req->w[0] + 1;
	reply->w[1] = (long)arg;
	reply->w[2] = badge;
	/* (a transfer takes cap_mutex: only where lookups never linger) */
	if (q_msg_label(req) == LABEL_ECHO_CAP && mutator_cpu((long)arg))
		q_msg_give_cap(reply, ORIG_BASE + (long)arg);
	return 0;
}

static int server(void *arg)
{
	long id = (long)arg;

	return q_serve(ORIG_BASE + id, serve_one, arg) == -1 ? 0 : 1;
}

/* A capability a reply brought: it must be an endpoint; then it goes. */
static void check_received_cap(const struct q_msg *m, int slot)
{
	struct sys_cap_info info;
	int got = q_msg_cap(m);

	if (q_msg_cap_lost(m))
		return;		/* (no free slot: the space is full of the mutators' copies) */
	if (got < 0 || q_cap_inspect(got, &info) || info.type != SYS_OBJ_ENDPOINT)
		FAIL("call through slot %d: reply's capability in slot %d\n", slot, got);
	else
		q_cap_delete(got);
}

/* One call through slot: checked against the badge it carried. */
static void call_once(int slot, unsigned long *rnd)
{
	unsigned long x = next_rand(rnd) & 0xffffffff;
	unsigned int label = next_rand(rnd) % 8 ? LABEL_ECHO : LABEL_ECHO_CAP;
	struct q_msg m = q_msg(label, x, 0, 0, 0);
	long r = q_call(slot, &m);

	if (r == -SYS_EBADF || r == -SYS_ENOTSUP || r == -SYS_EACCES) {
		count(&calls_missed);
	} else if (r) {
		FAIL("call through slot %d: error %ld\n", slot, r);
	} else if (m.w[0] != x + 1 || (m.w[2] >> BADGE_SHIFT) != m.w[1] + 1) {
		FAIL("call through slot %d: reply %lu (sent %lu) from server %lu, badge %#lx\n",
		     slot, m.w[0], x, m.w[1], m.w[2]);
	} else {
		if (label == LABEL_ECHO_CAP && mutator_cpu(m.w[1]))
			check_received_cap(&m, slot);
		count(&calls_ok);
	}
}

static int client(void *arg)
{
	unsigned long rnd = 0x9e3779b97f4a7c15UL * ((long)arg + 1);

	q_recv_slot(SYS_CAP_ANY_SLOT);
	while (!stop) {
		call_once(REGION + next_rand(&rnd) % REGION_SLOTS, &rnd);
		q_yield();	/* the mutator on this CPU gets its turn (the kernel never preempts) */
	}
	return 0;
}

/* Errors a mutation may meet when others change the same slots. */
static bool expected(long r)
{
	return r >= 0 || r == -SYS_EBADF || r == -SYS_EEXIST || r == -SYS_EBUSY ||
	       r == -SYS_ENOSPC;
}

static void mutate(unsigned long *rnd)
{
	int c = next_rand(rnd) % nr_servers, slot = REGION + next_rand(rnd) % REGION_SLOTS;
	int other = REGION + next_rand(rnd) % REGION_SLOTS;
	unsigned long badge = ((unsigned long)(c + 1) << BADGE_SHIFT) | (next_rand(rnd) & 0xffffff);
	long r;

	switch (next_rand(rnd) % 20) {
	case 0 ... 9:
		/* Churn: the slot's capability deleted (its node freed) and a new one minted. */
		r = q_cap_delete(slot);
		if (expected(r))
			r = q_cap_mint(PARENT_BASE + c, slot, SYS_CAP_WRITE, badge);
		break;
	case 10 ... 13:
		r = q_cap_mint(PARENT_BASE + c, slot, SYS_CAP_WRITE, badge);	/* fill */
		break;
	case 14:
		r = q_cap_revoke(PARENT_BASE + c);
		if (r >= 0)
			count(&revokes);
		if (next_rand(rnd) % 4 == 0 && q_cap_delete(PARENT_BASE + c) == 0)
			r = q_cap_copy(ORIG_BASE + c, PARENT_BASE + c);	/* a new parent */
		break;
	case 15:
		r = next_rand(rnd) % 2 ? q_notification_create(slot) :
					 q_cap_mint(PARENT_BASE + c, slot, SYS_CAP_READ, badge);
		break;
	case 16: case 17:
		r = q_cap_move(slot, other);
		break;
	default:
		r = q_cap_copy(slot, other);
		break;
	}
	if (!expected(r))
		FAIL("mutation of slot %d: error %ld\n", slot, r);
	count(&mutations);
}

static int mutator(void *arg)
{
	unsigned long rnd = 0xda942042e4dd58b5UL * ((long)arg + 7);

	while (!stop)
		mutate(&rnd);	/* (its system calls block on cap_mutex now and then: others run) */
	return 0;
}

/* The children: a task of their own, whose table grows while its client calls. */
static int child_client(void *arg)
{
	unsigned long rnd = 0x2545f4914f6cdd1dUL;
	int n = (long)arg;

	q_recv_slot(SYS_CAP_ANY_SLOT);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		call_once(next_rand(&rnd) % n, &rnd);
	return 0;
}

/* The rest of the child's share, spent while its client calls; then given back. */
static void spend_share(void)
{
	int made[CHILD_SPEND_MOST], n = 0;
	long r;

	while (n < CHILD_SPEND_MOST && (r = q_memory_create(SYS_CAP_ANY_SLOT, 1)) >= 0)
		made[n++] = r;
	if (n == CHILD_SPEND_MOST || r != -SYS_ENOMEM)
		FAIL("child: %d memory objects, then %ld: its share did not hold\n", n, r);
	for (int i = 0; i < 100 && !__atomic_load_n(&stop, __ATOMIC_RELAXED); i++)
		q_yield();	/* its client calls on meanwhile, into a full space */
	while (n)
		q_cap_delete(made[--n]);
}

static int child_main(int n)
{
	struct sys_exit_status st;
	int tid;

	nr_cpus = q_nr_cpus();
	q_set_cpu(mutator_home());	/* (it takes cap_mutex as it grows) */
	tid = q_thread_create(child_client, (void *)(long)n, SYS_CPU_ANY);

	if (tid < 0)
		return 100;
	for (int s = 16; s < SYS_CAP_MAX_SLOTS; s *= 2)
		if (q_cap_copy(s % n, s) != s)	/* each grows the table, the client calling */
			FAIL("child: copy into slot %d\n", s);
	if (q_cap_copy(0, SYS_CAP_MAX_SLOTS - 1) != SYS_CAP_MAX_SLOTS - 1)
		FAIL("child: copy into the last slot\n");
	spend_share();
	stop = 1;
	q_thread_join(tid, &st);
	return failures > 100 ? 100 : failures;
}

static int grower(void *arg)
{
	int caps[CHILD_MAX], n = nr_servers < CHILD_MAX ? nr_servers : CHILD_MAX, task;
	char cmd[24];
	struct sys_spawn req = {
		.program = q_program("tests/user/helpers/captorture"), .quota = CHILD_QUOTA,
		.task_slot = CHILD_TASK, .ncaps = n, .caps = caps, .args = cmd,
	};
	struct sys_quota_info info;
	struct sys_exit_status st;
	int r;

	(void)arg;
	for (int c = 0; c < n; c++)
		caps[c] = CHILD_CAPS + c;
	snprintf(cmd, sizeof(cmd), "child %d", n);
	req.args_len = strlen(cmd);
	while (!stop) {
		/* (our own quota may be full of frees still waiting for their grace period) */
		if (q_quota_create(CHILD_QUOTA, CHILD_SHARE_KB) != CHILD_QUOTA) {
			count(&shares_refused);
			q_sleep_ns(1000000);
			continue;
		}
		r = q_cap_spawn(&req);	/* (the program looked up once: a child a loop) */
		if (r < 0) {
			FAIL("spawning a child: error %d\n", r);
			break;
		}
		task = CHILD_TASK;
		if (q_wait_for(task, &st) || st.killed || st.status)
			FAIL("child: killed %d, status %d\n", st.killed, st.status);
		if (q_quota_info(CHILD_QUOTA, &info) == 0 && info.refused)
			count(&shares_spent);
		q_cap_delete(CHILD_QUOTA);
		q_cap_delete(task);
		count(&children);
		/*
		 * (not collected with q_task_wait(): this task's end orphans
		 * them all at once, more than one batch of orphan_children())
		 */
	}
	return 0;
}

static int start_all(int *tids)
{
	int n = 0;

	for (int c = 0; c < nr_servers; c++) {
		unsigned long badge = ((unsigned long)(c + 1) << BADGE_SHIFT) | 0xffffff;

		if (q_endpoint_create(ORIG_BASE + c) < 0 ||
		    q_cap_copy(ORIG_BASE + c, PARENT_BASE + c) < 0 ||
		    (c < CHILD_MAX &&
		     q_cap_mint(ORIG_BASE + c, CHILD_CAPS + c, SYS_CAP_WRITE, badge) < 0))
			return -1;
	}
	for (int c = 0; c < nr_cpus; c++) {
		is_server[n] = true;
		tids[n++] = q_thread_create(server, (void *)(long)c, c);
		tids[n++] = q_thread_create(client, (void *)(long)c, c);
		if (mutator_cpu(c))
			tids[n++] = q_thread_create(mutator, (void *)(long)c, c);
	}
	tids[n++] = q_thread_create(grower, NULL, mutator_home());
	for (int i = 0; i < n; i++)
		if (tids[i] < 0)
			return -1;
	return n;
}

int main(int argc, char **argv)
{
	static int tids[3 * MAX_CPUS + 1];
	struct sys_exit_status st;
	struct q_msg m;
	int n;

	if (argc == 3 && !strcmp(argv[1], "child"))
		return child_main(atoi(argv[2]));
	if (argc != 2)
		return 100;
	nr_cpus = nr_servers = q_nr_cpus() < MAX_CPUS ? q_nr_cpus() : MAX_CPUS;
	n = start_all(tids);
	if (n < 0) {
		printf("captorture: could not start its threads\n");
		return 100;
	}
	q_sleep_ns(atol(argv[1]) * 1000000UL);
	stop = 1;
	/* Servers last: clients, mutators and the grower first. */
	for (int i = 0; i < n; i++)
		if (!is_server[i])
			q_thread_join(tids[i], &st);
	for (int c = 0, i = 0; c < nr_servers; c++, i++) {
		while (!is_server[i])
			i++;
		m = q_msg(LABEL_STOP, 0, 0, 0, 0);
		q_send(ORIG_BASE + c, &m);
		q_thread_join(tids[i], &st);
		if (st.status)
			FAIL("server %d ended with status %d\n", c, st.status);
	}
	printf("captorture: %lu calls answered, %lu through a vanished or wrong capability, "
	       "%lu mutations (%lu revokes), %lu children grew their tables, %lu failures\n",
	       calls_ok, calls_missed, mutations, revokes, children, failures);
	printf("captorture: %lu children spent their shares to -ENOMEM, %lu shares refused to "
	       "the grower\n", shares_spent, shares_refused);
	return failures > 100 ? 100 : failures;
}
