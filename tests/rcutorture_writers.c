/*
 * rcutorture's writers (tests/rcutorture.c tells the whole story): the
 * element pool, the writer, which publishes elements through rt_current
 * and retires the old ones by every method RCU has, the fake writers,
 * which only make grace periods, and the drain at the end.
 */
#include "rcutorture.h"

struct rt_elem *rt_current;
DEFINE_SPINLOCK(rt_pool_lock);
LIST_HEAD(rt_pool);
int rt_pool_count;
LIST_HEAD(rt_pipeline);
unsigned long rt_writer_gps;
atomic_t rt_frees;
atomic_t rt_deferred_inflight;
atomic_t rt_deferred_cbs;
struct rt_writer_stats rt_wstats;
static struct rcu_head rt_wgp_head;
struct completion rt_wgp_done;

/* Back to the pool: unusable from now on, which a late reader will see. */
void rt_elem_free(struct rt_elem *e)
{
	torture_life_end(&e->life, RT_POISON_INT);
	spin_lock(&rt_pool_lock);
	list_add_tail(&e->node, &rt_pool);
	rt_pool_count++;
	spin_unlock(&rt_pool_lock);
	atomic_inc(&rt_frees);
}

static struct rt_elem *rt_elem_alloc(void)
{
	struct rt_elem *e = NULL;

	spin_lock(&rt_pool_lock);
	if (!list_empty(&rt_pool)) {
		e = list_first_entry(&rt_pool, struct rt_elem, node);
		list_del(&e->node);
		rt_pool_count--;
	}
	spin_unlock(&rt_pool_lock);
	if (e)
		torture_life_begin(&e->life);
	return e;
}

/* Deferred path: one more grace period for this element; again, or free. */
static void rt_deferred_cb(struct rcu_head *rh)
{
	struct rt_elem *e = container_of(rh, struct rt_elem, rh);

	atomic_inc(&rt_deferred_cbs);
	if (!torture_life_age(&e->life)) {
		rt_elem_free(e);
		atomic_dec(&rt_deferred_inflight);
		return;
	}
	call_rcu(&e->rh, rt_deferred_cb);
}

static void rt_wgp_cb(struct rcu_head *rh)
{
	(void)rh;
	complete(&rt_wgp_done);
}

/* A grace period has passed since every element now in the pipeline was retired. */
static void rt_pipeline_advance(void)
{
	struct rt_elem *e, *n;

	WRITE_ONCE(rt_writer_gps, rt_writer_gps + 1);
	list_for_each_entry_safe(e, n, &rt_pipeline, node) {
		if (!torture_life_age(&e->life)) {
			list_del(&e->node);
			rt_elem_free(e);
		}
	}
}

/* Waits for one grace period, by the method of this round. */
static void rt_writer_wait_gp(unsigned int mode, u32 *rng)
{
	unsigned long cookie;

	switch (mode) {
	case 0:
		synchronize_rcu();
		rt_wstats.gp_sync++;
		break;
	case 1:
		call_rcu(&rt_wgp_head, rt_wgp_cb);
		wait_for_completion(&rt_wgp_done);
		rt_wstats.gp_call++;
		break;
	case 3:
		synchronize_rcu_expedited();
		rt_wstats.gp_exp++;
		break;
	default:
		rt_wstats.gp_poll++;
		if (prandom_u32(rng) & 1) {
			/* Start an asynchronous grace period and poll it for a while. */
			cookie = start_poll_synchronize_rcu();
			for (int i = 0; i < 8; i++) {
				if (poll_state_synchronize_rcu(cookie)) {
					rt_wstats.poll_early++;
					return;
				}
				udelay(20);
				cond_resched();
			}
		} else {
			cookie = get_state_synchronize_rcu();
			cond_resched();
		}
		cond_synchronize_rcu(cookie);
		break;
	}
}

int rt_writer(void *arg)
{
	u32 rng = rt_seed(1000);
	unsigned int round = 0;

	(void)arg;
	while (!kthread_should_stop()) {
		struct rt_elem *new = rt_elem_alloc(), *old;

		if (!new) {
			rt_wstats.alloc_fail++;
			msleep(1);
			continue;
		}
		old = rcu_dereference_protected(rt_current, 1 /* the only updater */);
		rcu_assign_pointer(rt_current, new);
		rt_wstats.updates++;
		if (old) {
			/* Retired: readers may still hold it, no grace period yet. */
			WRITE_ONCE(old->life.pipe_count, 1);
			u32 how = prandom_u32(&rng) & 7;
			struct rt_elem *fresh;

			if (how < 2) {
				rt_wstats.deferred++;
				atomic_inc(&rt_deferred_inflight);
				call_rcu(&old->rh, rt_deferred_cb);
			} else if (how == 2 && (fresh = kzalloc(sizeof(*fresh), GFP_KERNEL))) {
				/* kfree_rcu(): a late reader sees the poison; a fresh one replaces it. */
				rt_wstats.kfreed++;
				kfree_rcu(old, rh);
				rt_elem_free(fresh);
			} else {
				list_add_tail(&old->node, &rt_pipeline);
			}
		}
		rt_writer_wait_gp(round++ % 4, &rng);
		rt_pipeline_advance();

		if ((prandom_u32(&rng) & 63) == 0)
			msleep(1);
		else
			cond_resched();
	}
	return 0;
}

/* Fake writers: grace periods of every kind, concurrent with the writer's. */
static void rt_faker_cb(struct rcu_head *rh)
{
	struct rt_faker *f = container_of(rh, struct rt_faker, rh);

	atomic_inc(&f->cbs);
}

int rt_fake_writer(void *arg)
{
	struct rt_faker *f = arg;

	while (!kthread_should_stop()) {
		u32 r = prandom_u32(&f->rng);
		unsigned long cookie;

		switch (r % 4) {
		case 0:
			synchronize_rcu();
			f->sync++;
			break;
		case 3:
			synchronize_rcu_expedited();
			f->exp++;
			break;
		case 1:
			call_rcu(&f->rh, rt_faker_cb);
			rcu_barrier();	/* f->rh is free again only after this */
			f->call++;
			break;
		default:
			cookie = get_state_synchronize_rcu();
			if (!poll_state_synchronize_rcu(cookie))
				cond_synchronize_rcu(cookie);
			f->poll++;
			break;
		}
		if ((r >> 8) & 1)
			msleep(1 + ((r >> 9) & 1));
		else
			cond_resched();
	}
	return 0;
}

/* Writer is stopped and readers are gone: every element back to the pool. */
void rt_drain(void)
{
	struct rt_elem *e, *n, *cur;

	/* Deferred chains requeue themselves: one rcu_barrier() per link at most. */
	for (int i = 0; i <= RT_PIPE_LEN + 2 && atomic_read(&rt_deferred_inflight); i++)
		rcu_barrier();
	cur = rcu_dereference_protected(rt_current, 1 /* writer stopped */);
	RCU_INIT_POINTER(rt_current, NULL);
	synchronize_rcu();
	if (cur)
		rt_elem_free(cur);
	list_for_each_entry_safe(e, n, &rt_pipeline, node) {
		list_del(&e->node);
		rt_elem_free(e);
	}
}
