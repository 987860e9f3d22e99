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
 *                        (a reply's capability then finds no room) --
 *                        and hand the holder (below) a capability to
 *                        their thread; every other child is killed in the
 *                        middle of its calls, every other one collected
 *                        (its task freed while the holder still names
 *                        its thread);
 *                        and what lifetimes need (docs/microkernel.md,
 *                        "Who holds whom"): a victimizer starting victims
 *                        whose calls, carrying a capability, the holder
 *                        keeps until the victim is gone -- the victimizer
 *                        kills each at a random moment, the kernel side
 *                        kills some while the holder holds them claimed
 *                        -- and replies then, moving a capability, which
 *                        must be refused and stay; a binder binding and
 *                        mapping the interrupt and device capabilities
 *                        the kernel side keeps granting (and deleting)
 *   captorture child N   a child: N server capabilities in slots 0..N-1,
 *                        the holder's endpoint in slot N
 *
 * A call either gets the right answer from the server its capability
 * names (the badge says which) or one of the errors a vanished or
 * wrong capability gives (-EBADF, -ENOTSUP, -EACCES); anything else is a
 * failure.  So is a killed victim still waiting LOST_WAIT_S seconds after
 * the end (its kill's wake-up lost: the holder waits for it to go, and it
 * for the holder's reply).  Exit status: 0, or the number of failures (at
 * most 100).
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
#define CHILD_MAX	7		/* the most server capabilities a spawn passes (+ the holder's) */
#define HOLD_EP		70		/* the holder's endpoint */
#define HOLD_SEND	71		/* a copy that can only call it (for the children) */
#define DRV_NTF		72		/* what the binder binds the line to */
#define VICTIM_T	330		/* the victim of the moment's capability to itself (away from ANY's reach) */
#define HELD_THREADS	40		/* the holder keeps children's thread capabilities here */
#define NR_HELD		8
#define TICK_NS		1000000UL	/* a sleep this short lasts a tick */
#define LOST_WAIT_S	10		/* the most a killed victim may take to go, once the run ends */
#define CHILD_QUOTA	161		/* the share of the child of the moment */
/*
 * A child's share: it starts in about 380 KiB (its program, its 128 KiB
 * stack, its client thread's 64 KiB stack, kernel stacks, page tables, a
 * table of 1024 slots), and spends the rest on one-page memory objects.
 */
#define CHILD_SHARE_KB	448
#define CHILD_SPEND_MOST 64		/* memory objects: more, and the share did not hold */
#define ORPHANS		4		/* children left uncollected at once, for our end to orphan */

static int nr_cpus, nr_servers;
static bool is_server[3 * 64 + 5];
static volatile int stop, victimizer_done;
static unsigned long calls_ok, calls_missed, failures, mutations, revokes, children;
static unsigned long shares_spent, shares_refused;
static unsigned long victims, held_calls, binds, grants, kills_of_children;

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

/* The holder's and the victims' CPUs: a lingering one, and another (tests/captorture.h). */
static int holder_cpu(void)
{
	return 0;
}

static int victim_cpu(void)
{
	return nr_cpus > 1 ? 1 : 0;
}

/*
 * A victim: calls the holder with a capability to its own thread, and is
 * killed -- by the victimizer at a random moment, or by the kernel side
 * while the holder holds its call claimed.  Its call is never answered
 * while it lives.
 */
static int victim(void *arg)
{
	struct q_msg m = q_msg(CT_LABEL_HOLD, 0, 0, 0, 0);

	(void)arg;
	q_recv_slot(SYS_CAP_ANY_SLOT);
	q_msg_move_cap(&m, q_thread_cap(VICTIM_T, q_thread_id()));
	q_call(HOLD_EP, &m);
	return 1;			/* (answered, or refused: not killed) */
}

/*
 * The holder: a victim's call is kept until the victim is gone (a wait
 * through the thread capability it sent) -- killed by the kernel side
 * while we claimed it (its message says so), or else by us -- then
 * answered with a capability moved: refused (-ESRCH), it must stay ours.  A child's
 * thread capability is kept in a ring, and the one it replaces killed
 * through it (the child, or its task, may be long gone and freed).
 */
static void hold(const struct q_msg *m)
{
	struct q_msg reply = q_msg(1, 0, 0, 0, 0);
	int t = q_msg_cap(m), mine = q_notification_create(SYS_CAP_ANY_SLOT);
	struct sys_exit_status st;
	struct sys_cap_info info;
	long r;

	if (m->w[3] != CT_KILLED_CLAIMED)
		q_kill(t);		/* (the kernel side did not kill it while we claimed it) */
	if (t < 0 || q_wait_for(t, &st))
		FAIL("holder: a victim's call without its thread (cap %d)\n", t);
	q_msg_move_cap(&reply, mine);
	r = q_reply(&reply);
	if (r != -SYS_ESRCH)
		FAIL("holder: reply to a victim gone returned %ld\n", r);
	if (mine >= 0 && (q_cap_inspect(mine, &info) || info.type != SYS_OBJ_NOTIFICATION))
		FAIL("holder: the capability of a refused reply left slot %d\n", mine);
	q_cap_delete(mine);
	q_cap_delete(t);
	count(&held_calls);
}

static int holder(void *arg)
{
	unsigned int next_held = 0;
	struct q_msg m;
	long r;

	(void)arg;
	q_recv_slot(SYS_CAP_ANY_SLOT);
	for (;;) {			/* (past the end too: the last victim needs us; then killed) */
		/* Only once a caller waits: we come second, and claim it. */
		while ((r = q_recv_nonblock(HOLD_EP, &m)) == -SYS_EAGAIN)
			q_sleep_ns(TICK_NS);
		if (r < 0)
			break;
		if (q_msg_label(&m) == CT_LABEL_HOLD) {
			hold(&m);
			continue;
		}
		if (q_msg_label(&m) == CT_LABEL_GIVE_THREAD && q_msg_cap(&m) >= 0) {
			int slot = HELD_THREADS + next_held++ % NR_HELD;

			q_kill(slot);		/* (the child's thread, or -SYS_ESRCH: gone) */
			q_cap_delete(slot);
			q_cap_move(q_msg_cap(&m), slot);
		}
		m = q_msg(1, 0, 0, 0, 0);
		q_reply(&m);
	}
	return 0;
}

static unsigned long spin_for(unsigned long *rnd)
{
	unsigned long n = next_rand(rnd) % 64;

	for (unsigned long i = 0; i < n && !stop; i++)
		q_yield();
	return n;
}

static int victimizer(void *arg)
{
	unsigned long rnd = 0x853c49e6748fea9bUL;
	struct sys_exit_status st;
	int v, t;

	(void)arg;
	while (!stop) {
		v = q_thread_create(victim, NULL, victim_cpu());
		if (v == -SYS_ENOMEM) {
			/* (our quota full of frees still waiting for their grace period) */
			q_sleep_ns(TICK_NS);
			continue;
		}
		if (v < 0) {
			FAIL("victimizer: no victim (%d)\n", v);
			break;
		}
		/*
		 * Every other one killed at a random moment (queued, claimed,
		 * or waiting for the reply); the others are left to the kernel
		 * side, which kills them while the holder claims them, and to
		 * the holder (one CPU: nothing lingers, the holder kills).  Only
		 * those show a lost wake-up: nobody else wakes them.
		 */
		if (next_rand(&rnd) % 2) {
			spin_for(&rnd);
			t = q_thread_cap(SYS_CAP_ANY_SLOT, v);
			q_kill(t);
			q_cap_delete(t);
		}
		if (q_thread_join(v, &st) || !st.killed)
			FAIL("victim %d: ended with status %d, not killed\n", v, st.status);
		q_cap_delete(VICTIM_T);	/* (if it was killed before its call took it) */
		count(&victims);
		q_sleep_ns(TICK_NS);	/* (the mutators share our CPU) */
	}
	__atomic_store_n(&victimizer_done, 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * The binder: the kernel side keeps granting an interrupt capability in
 * CT_IRQ_SLOT and a device capability in CT_DEV_SLOT; the binder binds
 * and maps them, on a lingering CPU, where the kernel side now and then
 * deletes the object's last capability between the call's lookup and the
 * object's lock -- and so also while it is bound and mapped.
 */
static int binder(void *arg)
{
	long r;

	(void)arg;
	while (!stop) {
		r = q_irq_bind(CT_IRQ_SLOT, DRV_NTF, 1);
		if (r == 0)
			count(&binds);
		else if (r != -SYS_EBADF && r != -SYS_EBUSY)
			FAIL("bind: error %ld\n", r);
		r = q_dev_map(CT_DEV_SLOT, 0);
		if (r >= 0)
			count(&grants);
		else if (r != -SYS_EBADF && r != -SYS_ENOSPC && r != -SYS_ENOMEM)
			FAIL("device map: error %ld\n", r);
		q_sleep_ns(TICK_NS);	/* the lingering CPU serves the others too */
	}
	return 0;
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
	/* (-ENOMEM: our quota full, much of it frees still waiting for their grace period) */
	return r >= 0 || r == -SYS_EBADF || r == -SYS_EEXIST || r == -SYS_EBUSY ||
	       r == -SYS_ENOSPC || r == -SYS_ENOMEM;
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
	struct q_msg m = q_msg(CT_LABEL_GIVE_THREAD, 0, 0, 0, 0);

	q_recv_slot(SYS_CAP_ANY_SLOT);
	q_msg_give_cap(&m, q_thread_cap(SYS_CAP_ANY_SLOT, q_thread_id()));
	q_call(n, &m);			/* slot n: the holder's (a copy that can only call it) */
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

/* A child left uncollected (its id); the oldest of ORPHANS is collected when another comes. */
static void leave_for_the_end(int id)
{
	static int left[ORPHANS], next;
	struct sys_exit_status st;

	if (left[next % ORPHANS] > 0)
		q_task_wait(left[next % ORPHANS], &st);
	left[next++ % ORPHANS] = id;
}

static int grower(void *arg)
{
	int caps[CHILD_MAX + 1], n = nr_servers < CHILD_MAX ? nr_servers : CHILD_MAX, task;
	char cmd[24];
	struct sys_spawn req = {
		.program = q_program("tests/user/helpers/captorture"), .quota = CHILD_QUOTA,
		.task_slot = CHILD_TASK, .ncaps = n, .caps = caps, .args = cmd,
	};
	struct sys_quota_info info;
	unsigned long rnd = 0x6a09e667f3bcc908UL;
	struct sys_exit_status st;
	bool kill;
	int r;

	(void)arg;
	for (int c = 0; c < n; c++)
		caps[c] = CHILD_CAPS + c;
	caps[n] = HOLD_SEND;
	req.ncaps = n + 1;
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
		kill = children % 2;	/* every other one, in the middle of its calls */
		if (kill) {
			spin_for(&rnd);
			q_kill(task);
			count(&kills_of_children);
		}
		if (q_wait_for(task, &st) || (kill ? st.killed != SYS_KILLED_BY_TASK && st.status :
					     st.killed || st.status))
			FAIL("child: killed %d, status %d\n", st.killed, st.status);
		if (q_quota_info(CHILD_QUOTA, &info) == 0 && info.refused)
			count(&shares_spent);
		q_cap_delete(CHILD_QUOTA);
		q_cap_delete(task);
		/*
		 * Every other one collected at once: its task is freed while
		 * the holder may still name its thread.  The rest are left for
		 * this task's end to orphan, ORPHANS at the most: an ended
		 * child nobody collected keeps its share of our quota, so the
		 * oldest is collected when another comes (tests/user/orphans.c
		 * orphans many at once).
		 */
		if (children % 4 < 2)
			q_task_wait(r, &st);
		else
			leave_for_the_end(r);
		count(&children);
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
	if (q_endpoint_create(HOLD_EP) < 0 ||
	    q_cap_mint(HOLD_EP, HOLD_SEND, SYS_CAP_WRITE | SYS_CAP_GRANT, 0) < 0 ||
	    q_notification_create(DRV_NTF) < 0)
		return -1;
	for (int c = 0; c < nr_cpus; c++) {
		is_server[n] = true;
		tids[n++] = q_thread_create(server, (void *)(long)c, c);
		tids[n++] = q_thread_create(client, (void *)(long)c, c);
		if (mutator_cpu(c))
			tids[n++] = q_thread_create(mutator, (void *)(long)c, c);
	}
	tids[n++] = q_thread_create(grower, NULL, mutator_home());
	tids[n++] = q_thread_create(victimizer, NULL, mutator_home());
	tids[n++] = q_thread_create(binder, NULL, holder_cpu());
	for (int i = 0; i < n; i++)
		if (tids[i] < 0)
			return -1;
	return n;
}

/* The holder goes (it waits for a call, or for a victim), and its endpoint: calls to it fail. */
static void stop_holder(int *holder_tid)
{
	struct sys_exit_status st;
	int t;

	if (*holder_tid < 0)
		return;
	t = q_thread_cap(SYS_CAP_ANY_SLOT, *holder_tid);
	q_kill(t);
	q_cap_delete(t);
	q_thread_join(*holder_tid, &st);
	q_cap_delete(HOLD_EP);
	*holder_tid = -1;
}

/*
 * The end of the victims: the victimizer joins its last one, which must
 * go within LOST_WAIT_S; if it does not, its kill's wake-up was lost (the
 * holder waits for it to go, it for the holder's reply): said, and the
 * holder stopped so that everything ends.
 */
static void end_victims(int *holder_tid)
{
	for (int i = 0; i < LOST_WAIT_S * 100 && !__atomic_load_n(&victimizer_done,
								   __ATOMIC_ACQUIRE); i++)
		q_sleep_ns(10000000);
	if (__atomic_load_n(&victimizer_done, __ATOMIC_ACQUIRE))
		return;
	FAIL("a victim killed during its call still waits %d s after the end: its kill's "
	     "wake-up was lost\n", LOST_WAIT_S);
	stop_holder(holder_tid);
}

int main(int argc, char **argv)
{
	static int tids[3 * MAX_CPUS + 5];
	struct sys_exit_status st;
	struct q_msg m;
	int n, holder_tid;

	if (argc == 3 && !strcmp(argv[1], "child"))
		return child_main(atoi(argv[2]));
	if (argc != 2)
		return 100;
	nr_cpus = nr_servers = q_nr_cpus() < MAX_CPUS ? q_nr_cpus() : MAX_CPUS;
	n = start_all(tids);
	holder_tid = q_thread_create(holder, NULL, holder_cpu());
	if (n < 0 || holder_tid < 0) {
		printf("captorture: could not start its threads\n");
		return 100;
	}
	q_sleep_ns(atol(argv[1]) * 1000000UL);
	stop = 1;
	end_victims(&holder_tid);
	/* Servers last: clients, mutators, the grower and the others first. */
	for (int i = 0; i < n; i++)
		if (!is_server[i])
			q_thread_join(tids[i], &st);
	stop_holder(&holder_tid);
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
	printf("captorture: %lu victims killed (%lu of their calls held until they went), "
	       "%lu children killed in their calls; %lu binds, %lu device grants\n", victims,
	       held_calls, kills_of_children, binds, grants);
	return failures > 100 ? 100 : failures;
}
