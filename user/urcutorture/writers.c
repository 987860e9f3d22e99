/*
 * urcutorture's writers (main.c tells the whole story): the element pool,
 * the writer, which publishes elements through ut_current and retires
 * the old ones by each way the library has, the fake writers, which only
 * make grace periods beside it, and the drain at the end.
 */
#include <stdlib.h>
#include "urcutorture.h"

struct ut_elem *ut_current;
unsigned long ut_writer_gps;
struct ut_writer_stats ut_wstats;

static struct ut_elem elems[UT_NELEM];
static LIST_HEAD(pool);
static LIST_HEAD(pipeline);	/* retired, waiting for the writer's grace periods */
static int pool_lock;		/* the pool: the writer and the callback thread */
static struct rcu_head writer_head;
static int writer_cb_done;

static void pool_lock_take(void)
{
	while (__atomic_exchange_n(&pool_lock, 1, __ATOMIC_ACQUIRE))
		q_yield();
}

static void pool_lock_give(void)
{
	__atomic_store_n(&pool_lock, 0, __ATOMIC_RELEASE);
}

/* Back to the pool, unusable from now on: a late reader sees mbtest 0 and a full pipe. */
static void elem_free(struct ut_elem *e)
{
	torture_life_end(&e->life, UT_PIPE_LEN);
	pool_lock_take();
	list_add_tail(&e->node, &pool);
	pool_lock_give();
	__atomic_add_fetch(&ut_wstats.frees, 1, __ATOMIC_RELAXED);
}

void ut_pool_init(void)
{
	for (int i = 0; i < UT_NELEM; i++)
		list_add_tail(&elems[i].node, &pool);
}

static struct ut_elem *elem_alloc(void)
{
	struct ut_elem *e = NULL;

	pool_lock_take();
	if (!list_empty(&pool)) {
		e = list_first_entry(&pool, struct ut_elem, node);
		list_del(&e->node);
	}
	pool_lock_give();
	if (e)
		torture_life_begin(&e->life);
	return e;
}

/* The deferred path: one more grace period per call_rcu(), until the pipe is full. */
static void deferred_cb(struct rcu_head *rh)
{
	struct ut_elem *e = container_of(rh, struct ut_elem, rh);

	if (!torture_life_age(&e->life)) {
		elem_free(e);
		__atomic_sub_fetch(&ut_wstats.deferred_inflight, 1, __ATOMIC_RELAXED);
		return;
	}
	ut->call(&e->rh, deferred_cb);
}

static void writer_cb(struct rcu_head *rh)
{
	(void)rh;
	__atomic_store_n(&writer_cb_done, 1, __ATOMIC_RELEASE);
}

/* A grace period has passed since every element on the pipeline was retired. */
static void pipeline_advance(void)
{
	struct ut_elem *e, *n;

	WRITE_ONCE(ut_writer_gps, ut_writer_gps + 1);
	list_for_each_entry_safe(e, n, &pipeline, node) {
		if (!torture_life_age(&e->life)) {
			list_del(&e->node);
			elem_free(e);
		}
	}
}

/* One grace period, by this round's way: synchronize_rcu(), or call_rcu() and its callback. */
static void writer_wait_gp(unsigned int round)
{
	if (round % 2 == 0) {
		ut->synchronize();
		ut_wstats.gp_sync++;
		return;
	}
	writer_cb_done = 0;
	ut->call(&writer_head, writer_cb);
	while (!__atomic_load_n(&writer_cb_done, __ATOMIC_ACQUIRE))
		ut->wait_callbacks();	/* (it sleeps until the callback ran) */
	ut_wstats.gp_call++;
}

/* Retired: readers may still hold it; by a call_rcu() chain, or on the pipeline. */
static void retire(struct ut_elem *old, uint32_t *rng)
{
	WRITE_ONCE(old->life.pipe_count, 1);
	if ((prandom_u32(rng) & 3) == 0) {
		ut_wstats.deferred++;
		__atomic_add_fetch(&ut_wstats.deferred_inflight, 1, __ATOMIC_RELAXED);
		ut->call(&old->rh, deferred_cb);
	} else {
		list_add_tail(&old->node, &pipeline);
	}
}

int ut_writer(void *arg)
{
	uint32_t rng = prandom_seed((uint32_t)ut_now() ^ 0x5bd1e995u);
	unsigned int round = 0;

	(void)arg;
	while (!ut_stop) {
		struct ut_elem *new = elem_alloc(), *old;

		if (!new) {
			ut_wstats.alloc_fail++;
			writer_wait_gp(round++);	/* the pipeline frees some */
			pipeline_advance();
			continue;
		}
		old = rcu_dereference_protected(ut_current, 1 /* the only updater */);
		rcu_assign_pointer(ut_current, new);
		ut_wstats.updates++;
		if (old)
			retire(old, &rng);
		writer_wait_gp(round++);
		pipeline_advance();
		if ((prandom_u32(&rng) & 31) == 0) {
			ut->wait_callbacks();
			ut_wstats.barriers++;
		}
	}
	return 0;
}

/* Fake writers: grace periods of both kinds, beside the writer's. */
static void faker_cb(struct rcu_head *rh)
{
	(void)rh;
}

int ut_fake_writer(void *arg)
{
	struct ut_faker *f = arg;

	while (!ut_stop) {
		uint32_t r = prandom_u32(&f->rng);

		if (r & 1) {
			ut->synchronize();
			f->sync++;
		} else {
			ut->call(&f->rh, faker_cb);
			ut->wait_callbacks();	/* f->rh is free again only after it */
			f->call++;
		}
		if ((r >> 8) & 1)
			q_sleep_ns(UT_NS_PER_MS);
	}
	return 0;
}

/* The writer and the readers are gone: every element back to the pool; how many are there. */
int ut_drain(void)
{
	struct ut_elem *e, *n, *cur;
	int pooled = 0;

	/* Deferred chains queue themselves again: one rcu_barrier() per link at most. */
	for (int i = 0; i <= UT_PIPE_LEN + 2 &&
	     __atomic_load_n(&ut_wstats.deferred_inflight, __ATOMIC_RELAXED); i++)
		ut->wait_callbacks();
	cur = ut_current;
	RCU_INIT_POINTER(ut_current, NULL);
	ut->synchronize();
	if (cur)
		elem_free(cur);
	list_for_each_entry_safe(e, n, &pipeline, node) {
		list_del(&e->node);
		elem_free(e);
	}
	list_for_each_entry(e, &pool, node)
		pooled++;
	return pooled;
}
