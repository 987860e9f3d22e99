/*
 * call_rcu() and rcu_barrier() of the user-space RCU library
 * (urcu_domain.h): one thread per flavor, started by the flavor's first
 * call_rcu(), takes the whole queue, waits for one grace period, and
 * invokes the batch in order.  With nothing queued it sleeps on its
 * notification (offline, for QSBR), and the call_rcu() that finds it
 * asleep signals it: it never spins nor yields for work.
 *
 * rcu_barrier() queues a marker behind every callback queued before it
 * and sleeps until the thread has invoked the marker: the thread invokes
 * in queue order, so every earlier callback has run by then.
 */
#include "urcu_domain.h"
#include "runtime.h"

static int callback_thread(void *arg)
{
	struct urcu_domain *d = arg;
	struct urcu_call *c = &d->call;
	struct rcu_head *batch, *next;

	d->register_thread();	/* (its callbacks may read: a reader of its own flavor) */
	for (;;) {
		urcu_mutex_lock(&c->lock);
		batch = c->head;
		c->head = NULL;
		c->tail = &c->head;
		c->sleeping = !batch;
		urcu_mutex_unlock(&c->lock);
		if (!batch) {
			urcu_sleep(d, c->ntf);	/* until call_rcu() signals (or it did already) */
			continue;
		}
		d->synchronize();
		for (; batch; batch = next) {
			next = batch->next;	/* (the callback may free or queue its head again) */
			batch->func(batch);
			urcu_stat_inc(d, callbacks_invoked);
		}
		if (d->quiescent_state)
			d->quiescent_state();	/* the callbacks' pointers are forgotten */
	}
	return 0;
}

void urcu_call(struct urcu_domain *d, struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	struct urcu_call *c = &d->call;
	bool wake;
	int tid;

	urcu_domain_init(d);
	head->func = func;
	head->next = NULL;
	urcu_mutex_lock(&c->lock);
	*c->tail = head;
	c->tail = &head->next;
	urcu_stat_inc(d, callbacks_queued);
	if (!c->tid) {
		tid = q_thread_create(callback_thread, d, SYS_CPU_ANY);
		if (tid < 0)
			panic("urcu: the %s flavor cannot start its call_rcu() thread (error %d)",
			      urcu_flavor_name(d->flavor), -tid);
		c->tid = tid;
	}
	wake = c->sleeping;
	c->sleeping = false;
	urcu_mutex_unlock(&c->lock);
	if (wake)
		q_signal(c->ntf, 1);
}

bool urcu_in_callback_thread(struct urcu_domain *d)
{
	return d->ready && current_tls()->tid == READ_ONCE(d->call.tid);
}

struct barrier_marker {
	struct rcu_head head;
	struct urcu_domain *d;
};

/* On the callback thread: every callback queued before the marker has run. */
static void barrier_marker_ran(struct rcu_head *head)
{
	struct urcu_domain *d = container_of(head, struct barrier_marker, head)->d;

	urcu_mutex_lock(&d->call.lock);
	d->call.barriers_done++;	/* (the marker is gone once the waiter sees this) */
	urcu_mutex_unlock(&d->call.lock);
	q_signal(d->call.barrier_ntf, 1);
}

static unsigned long barriers_done(struct urcu_call *c)
{
	unsigned long n;

	urcu_mutex_lock(&c->lock);
	n = c->barriers_done;
	urcu_mutex_unlock(&c->lock);
	return n;
}

void urcu_barrier(struct urcu_domain *d)
{
	struct barrier_marker marker = { .d = d };
	struct urcu_call *c = &d->call;
	unsigned long target;

	if (urcu_waits_for_itself(d, "rcu_barrier()"))
		return;
	if (urcu_in_callback_thread(d)) {
		urcu_misuse(d->flavor, "rcu_barrier() from a call_rcu() callback: it would wait "
			    "for itself");
		return;
	}
	urcu_domain_init(d);
	urcu_mutex_lock(&c->barrier_mutex);
	target = barriers_done(c) + 1;
	urcu_call(d, &marker.head, barrier_marker_ran);
	while (barriers_done(c) < target)
		urcu_sleep(d, c->barrier_ntf);
	urcu_stat_inc(d, barriers);
	urcu_mutex_unlock(&c->barrier_mutex);
}
