/*
 * User-space RCU (docs/urcu.md), quickly, on both flavors: SYS_membarrier's
 * ABI (its errors before the task registers), publish and subscribe on an
 * RCU list and hlist with a reader on another CPU that never meets a
 * freed element, call_rcu() and rcu_barrier(), a QSBR thread blocked in
 * q_recv() or q_wait() holding up no grace period, and each misuse named.
 * urcutorture (tests/urcutorture.c) hammers the same for longer, in a CI
 * step of its own; tests/urcu_window.c holds a reader across a grace
 * period.
 */
#include <stdlib.h>
#include <string.h>
#include "utest.h"
#include "qcap.h"
#include "urcu.h"		/* the memb flavor, under the usual names */
#include "urcu/urcu-qsbr.h"	/* and QSBR under its own */
#include "urcu/rculist.h"

#define ELEMENTS	4
#define UPDATES		12
#define CALLBACKS	20
#define WAIT_NS		(10ULL * 1000000000ULL)	/* generous: one grace period takes milliseconds */

/* A flavor as the tests drive it (the torture's manner: one ops vector). */
struct flavor {
	const char *name;
	void (*register_thread)(void), (*unregister_thread)(void);
	void (*read_lock)(void), (*read_unlock)(void);
	void (*quiescent_state)(void);		/* QSBR's; NULL for memb */
	void (*synchronize)(void);
	void (*call)(struct rcu_head *head, void (*func)(struct rcu_head *head));
	void (*wait_callbacks)(void);	/* rcu_barrier() */
	void (*get_stats)(struct urcu_stats *s);
};

static void memb_lock(void) { rcu_read_lock(); }
static void memb_unlock(void) { rcu_read_unlock(); }
static void qsbr_lock(void) { urcu_qsbr_read_lock(); }
static void qsbr_unlock(void) { urcu_qsbr_read_unlock(); }

static const struct flavor flavors[] = {
	{ "memb", rcu_register_thread, rcu_unregister_thread, memb_lock, memb_unlock, NULL,
	  synchronize_rcu, call_rcu, rcu_barrier, urcu_memb_get_stats },
	{ "qsbr", urcu_qsbr_register_thread, urcu_qsbr_unregister_thread, qsbr_lock,
	  qsbr_unlock, urcu_qsbr_quiescent_state, urcu_qsbr_synchronize_rcu,
	  urcu_qsbr_call_rcu, urcu_qsbr_barrier, urcu_qsbr_get_stats },
};

/* ---- SYS_membarrier's ABI: before anything registers the task ---- */

static void test_membarrier_abi(void)
{
	long query = q_membarrier(SYS_MEMBARRIER_CMD_QUERY, 0);

	CHECK_EQ(query, SYS_MEMBARRIER_CMDS);
	CHECK_EQ(q_membarrier(SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0), -SYS_EPERM);
	CHECK_EQ(q_membarrier(SYS_MEMBARRIER_CMD_QUERY, 1), -SYS_EINVAL);
	CHECK_EQ(q_membarrier(1 << 20, 0), -SYS_EINVAL);
	CHECK_EQ(q_membarrier(-1, 0), -SYS_EINVAL);
	CHECK_EQ(q_membarrier(SYS_MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0), 0);
	CHECK_EQ(q_membarrier(SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0), 0);
	CHECK_EQ(q_membarrier(SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED, 8), -SYS_EINVAL);
	CHECK_EQ(q_membarrier(SYS_MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0), 0);
}

/* ---- publish and subscribe: a list, walked on another CPU ---- */

struct elem {
	struct list_head node;
	struct hlist_node hnode;
	struct rcu_head rcu;
	int value;
	int alive;		/* 1 while published or under a grace period, 0 once freed */
};

static LIST_HEAD(elems);
static const struct flavor *walking;
static int stop_walking, walks, dead_seen;

static int walker(void *arg)
{
	struct elem *e;
	int n = 0;

	(void)arg;
	walking->register_thread();
	while (!__atomic_load_n(&stop_walking, __ATOMIC_RELAXED)) {
		walking->read_lock();
		list_for_each_entry_rcu(e, &elems, node)
			if (READ_ONCE(e->alive) != 1)
				__atomic_add_fetch(&dead_seen, 1, __ATOMIC_RELAXED);
		walking->read_unlock();
		if (walking->quiescent_state)
			walking->quiescent_state();
		__atomic_store_n(&walks, ++n, __ATOMIC_RELAXED);
		q_yield();	/* (a thread queued on this CPU -- a callback thread -- goes on) */
	}
	walking->unregister_thread();
	return 0;
}

static struct elem *new_elem(int value)
{
	struct elem *e = calloc(1, sizeof(*e));

	CHECK(e != NULL);
	e->value = value;
	e->alive = 1;
	return e;
}

/* Poisoned, then freed: a reader that still held it would see alive != 1. */
static void free_elem(struct elem *e)
{
	WRITE_ONCE(e->alive, 0);
	free(e);
}

static void free_elem_rcu(struct rcu_head *head)
{
	free_elem(container_of(head, struct elem, rcu));
}

static void test_list(const struct flavor *f)
{
	int cpu = q_nr_cpus() > 1 ? 1 : 0, tid, sum = 0;
	struct sys_exit_status st;
	struct elem *e;

	walking = f;
	stop_walking = walks = dead_seen = 0;
	for (int i = 0; i < ELEMENTS; i++)
		list_add_tail_rcu(&new_elem(i)->node, &elems);
	tid = q_thread_create(walker, NULL, cpu);
	CHECK(tid > 0);
	/* Replace the oldest each time, freeing it after a grace period, both ways. */
	for (int i = 0; i < UPDATES; i++) {
		struct elem *old = list_first_entry(&elems, struct elem, node);

		list_add_tail_rcu(&new_elem(ELEMENTS + i)->node, &elems);
		list_del_rcu(&old->node);
		if (i % 2) {
			f->call(&old->rcu, free_elem_rcu);
		} else {
			f->synchronize();
			free_elem(old);
		}
		if (f->quiescent_state)
			f->quiescent_state();	/* (we hold nothing: the callbacks' grace periods go on) */
	}
	f->wait_callbacks();
	while (__atomic_load_n(&walks, __ATOMIC_RELAXED) < 3)
		q_yield();	/* (the walker saw the list a few times) */
	__atomic_store_n(&stop_walking, 1, __ATOMIC_RELAXED);
	CHECK_EQ(q_thread_join(tid, &st), 0);
	CHECK_EQ(st.status, 0);
	CHECK_EQ(dead_seen, 0);
	list_for_each_entry(e, &elems, node)
		sum += e->value;
	/* (the last ELEMENTS values, UPDATES .. UPDATES + ELEMENTS - 1) */
	CHECK_EQ(sum, ELEMENTS * UPDATES + ELEMENTS * (ELEMENTS - 1) / 2);
	while (!list_empty(&elems)) {
		e = list_first_entry(&elems, struct elem, node);
		list_del_rcu(&e->node);
		f->synchronize();
		free_elem(e);
	}
}

static void test_hlist(const struct flavor *f)
{
	HLIST_HEAD(bucket);
	struct elem *a = new_elem(1), *b = new_elem(2), *e;
	int sum = 0;

	hlist_add_head_rcu(&a->hnode, &bucket);
	hlist_add_head_rcu(&b->hnode, &bucket);
	f->read_lock();
	hlist_for_each_entry_rcu(e, &bucket, hnode)
		sum = sum * 10 + e->value;
	f->read_unlock();
	CHECK_EQ(sum, 21);	/* b, then a */
	hlist_del_rcu(&b->hnode);
	f->synchronize();
	free_elem(b);
	hlist_del_rcu(&a->hnode);
	f->synchronize();
	free_elem(a);
	CHECK(hlist_empty(&bucket));
}

/* ---- call_rcu() and rcu_barrier() ---- */

static int invoked;

static void count_callback(struct rcu_head *head)
{
	(void)head;
	__atomic_add_fetch(&invoked, 1, __ATOMIC_RELAXED);
}

static void test_callbacks(const struct flavor *f)
{
	static struct rcu_head heads[CALLBACKS];
	struct urcu_stats s0, s1;

	f->get_stats(&s0);
	invoked = 0;
	for (int i = 0; i < CALLBACKS; i++)
		f->call(&heads[i], count_callback);
	f->wait_callbacks();
	CHECK_EQ(__atomic_load_n(&invoked, __ATOMIC_RELAXED), CALLBACKS);
	f->get_stats(&s1);
	CHECK(s1.callbacks_invoked - s0.callbacks_invoked >= CALLBACKS);
	CHECK_EQ(s1.barriers - s0.barriers, 1);
	CHECK(s1.grace_periods > s0.grace_periods);
}

/* ---- a QSBR thread blocked in IPC holds up no grace period ---- */

static int blocker_ep, blocker_ntf, blocker_ready;

static int qsbr_blocker(void *arg)
{
	struct q_msg m;

	urcu_qsbr_register_thread();
	__atomic_store_n(&blocker_ready, 1, __ATOMIC_RELEASE);
	if (arg)
		q_recv(blocker_ep, &m);		/* offline while it waits */
	else
		q_wait(blocker_ntf);
	urcu_qsbr_quiescent_state();		/* online again: it may announce */
	urcu_qsbr_unregister_thread();
	return 0;
}

static int synchronizer_done;

static int synchronizer(void *arg)
{
	(void)arg;
	urcu_qsbr_synchronize_rcu();
	__atomic_store_n(&synchronizer_done, 1, __ATOMIC_RELEASE);
	return 0;
}

/* A grace period ends within WAIT_NS while the blocker sleeps; then it is let go. */
static void test_blocked_is_offline(bool in_recv)
{
	struct q_msg m = q_msg(1, 0, 0, 0, 0);
	struct sys_exit_status st;
	int blocker, sync;
	uint64_t end;

	blocker_ready = synchronizer_done = 0;
	blocker = q_thread_create(qsbr_blocker, in_recv ? &m : NULL, SYS_CPU_ANY);
	CHECK(blocker > 0);
	while (!__atomic_load_n(&blocker_ready, __ATOMIC_ACQUIRE))
		q_yield();
	sync = q_thread_create(synchronizer, NULL, SYS_CPU_ANY);
	CHECK(sync > 0);
	end = q_clock_ns() + WAIT_NS;
	while (!__atomic_load_n(&synchronizer_done, __ATOMIC_ACQUIRE) && q_clock_ns() < end)
		q_sleep_ns(1000000);
	if (!synchronizer_done)
		printf("a grace period waited for a thread blocked in %s\n",
		       in_recv ? "q_recv()" : "q_wait()");
	CHECK(synchronizer_done);
	if (in_recv)
		CHECK_EQ(q_send(blocker_ep, &m), 0);
	else
		CHECK_EQ(q_signal(blocker_ntf, 1), 0);
	CHECK_EQ(q_thread_join(blocker, &st), 0);
	CHECK_EQ(q_thread_join(sync, &st), 0);
}

/* ---- misuse, each named ---- */

static char last_misuse[256];
static int misuses;

static void record_misuse(const char *message)
{
	strncpy(last_misuse, message, sizeof(last_misuse) - 1);
	__atomic_add_fetch(&misuses, 1, __ATOMIC_RELAXED);
}

#define EXPECT_MISUSE(stmt, text)						\
	do {									\
		int __n = __atomic_load_n(&misuses, __ATOMIC_RELAXED);		\
		stmt;								\
		CHECK_EQ(__atomic_load_n(&misuses, __ATOMIC_RELAXED), __n + 1); \
		if (!strstr(last_misuse, text))					\
			printf("FAILED: misuse said \"%s\", not \"%s\"\n",	\
			       last_misuse, text), utest_failed();		\
	} while (0)

static int unregistered_reader(void *arg)
{
	(void)arg;
	EXPECT_MISUSE(rcu_read_lock(), "rcu_read_lock() in a thread not registered");
	EXPECT_MISUSE(rcu_read_unlock(), "not registered");
	return 0;
}

static int leaves_registered(void *arg)
{
	(void)arg;
	rcu_register_thread();
	return 0;	/* q_thread_exit() finds it registered */
}

static void barrier_in_callback(struct rcu_head *head)
{
	(void)head;
	EXPECT_MISUSE(rcu_barrier(), "rcu_barrier() from a call_rcu() callback");
}

static void run_thread(int (*fn)(void *))
{
	struct sys_exit_status st;
	int tid = q_thread_create(fn, NULL, SYS_CPU_ANY);

	CHECK(tid > 0);
	CHECK_EQ(q_thread_join(tid, &st), 0);
	CHECK_EQ(st.status, 0);
}

static void test_misuse(void)
{
	static struct rcu_head head;
	int ntf = q_notification_create(SYS_CAP_ANY_SLOT);

	urcu_set_misuse_handler(record_misuse);
	/* memb (registered by the tests above: main is a reader of both flavors) */
	rcu_read_lock();
	rcu_read_lock();
	EXPECT_MISUSE(synchronize_rcu(), "synchronize_rcu() inside rcu_read_lock() (nesting depth 2)");
	EXPECT_MISUSE(rcu_barrier(), "rcu_barrier() inside rcu_read_lock()");
	EXPECT_MISUSE(rcu_unregister_thread(), "rcu_unregister_thread() inside rcu_read_lock()");
	rcu_read_unlock();
	rcu_read_unlock();
	EXPECT_MISUSE(rcu_read_unlock(), "rcu_read_unlock() without rcu_read_lock()");
	EXPECT_MISUSE(rcu_register_thread(), "rcu_register_thread() twice");
	run_thread(unregistered_reader);
	EXPECT_MISUSE(run_thread(leaves_registered), "exits registered");
	call_rcu(&head, barrier_in_callback);
	rcu_barrier();
	/* QSBR */
	urcu_qsbr_read_lock();
	EXPECT_MISUSE(urcu_qsbr_quiescent_state(), "rcu_quiescent_state() inside rcu_read_lock()");
	EXPECT_MISUSE(urcu_qsbr_thread_offline(), "rcu_thread_offline() inside rcu_read_lock()");
	EXPECT_MISUSE(urcu_qsbr_synchronize_rcu(), "synchronize_rcu() inside rcu_read_lock()");
	CHECK(ntf >= 0);
	q_signal(ntf, 1);	/* (so that the wait below returns at once) */
	EXPECT_MISUSE(q_wait(ntf), "q_wait() blocks inside rcu_read_lock()");
	urcu_qsbr_read_unlock();
	urcu_qsbr_thread_offline();
	EXPECT_MISUSE(urcu_qsbr_read_lock(), "offline");
	EXPECT_MISUSE(urcu_qsbr_quiescent_state(), "offline");
	urcu_qsbr_thread_online();
	EXPECT_MISUSE(urcu_qsbr_thread_online(), "online already");
	urcu_set_misuse_handler(NULL);
}

int main(void)
{
	test_membarrier_abi();
	blocker_ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	blocker_ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	CHECK(blocker_ep >= 0 && blocker_ntf >= 0);
	for (unsigned int i = 0; i < sizeof(flavors) / sizeof(flavors[0]); i++) {
		const struct flavor *f = &flavors[i];
		int failures = utest_failures;

		f->register_thread();
		test_list(f);
		test_hlist(f);
		test_callbacks(f);
		printf("urcu %s: list, hlist, callbacks: %s\n", f->name,
		       utest_failures == failures ? "ok" : "FAILED");
	}
	urcu_qsbr_thread_offline();	/* (we poll below: online, we would hold its grace periods) */
	test_blocked_is_offline(true);
	test_blocked_is_offline(false);
	urcu_qsbr_thread_online();
	test_misuse();
	rcu_unregister_thread();
	urcu_qsbr_unregister_thread();
	return utest_result("urcu");
}
