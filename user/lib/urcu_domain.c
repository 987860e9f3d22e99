/*
 * What the flavors of the user-space RCU library share (urcu_domain.h):
 * a domain's set-up, its registry of readers, the grace period and the
 * writer's wait, and the mutex whose waiters sleep.
 *
 * The grace period (urcu_synchronize()), for either flavor:
 *
 *	order_readers()            the caller's removal before the new number
 *	gp->seq = gp               the new grace-period number
 *	wait until no reader has 0 < ctr < gp
 *	order_readers()            the readers' sections before the caller's free
 *
 * A reader's ctr is 0 while it reads nothing, else a grace-period number
 * it read (memb: as its outermost section began; QSBR: at its last
 * quiescent state).  Numbers only grow (64 bits never wrap), so ctr < gp
 * means "read before this grace period began": such a reader may hold
 * what the writer removed, and the writer waits until it lets go (ctr
 * becomes 0, or a number >= gp).  A reader that reads gp already, or
 * reads nothing, is not waited for: the barriers (each flavor's file
 * says which, tools/model/armv8/urcu_*.wmm check them) make whatever it
 * reads later see the removal.
 */
#include <stdlib.h>
#include "urcu_domain.h"
#include "runtime.h"

/* A writer checks its readers this often before it sleeps until one lets go. */
#define URCU_SPINS	8

static struct __lock init_lock;

/* A new notification, or the task ends with a named error. */
int urcu_notification(struct urcu_domain *d, const char *what)
{
	int slot = q_notification_create(SYS_CAP_ANY_SLOT);

	if (slot < 0)
		panic("urcu: the %s flavor cannot make the notification its %s sleeps on "
		      "(error %d: a full capability space, or no quota left)",
		      urcu_flavor_name(d->flavor), what, -slot);
	return slot;
}

/* The first registration, grace period or callback of the flavor sets it up. */
void urcu_domain_init(struct urcu_domain *d)
{
	__retarget_lock_acquire(&init_lock);
	if (!d->ready) {
		INIT_LIST_HEAD(&d->registry);
		d->gp_mutex.ntf = urcu_notification(d, "mutex");
		d->registry_mutex.ntf = urcu_notification(d, "registry");
		d->gp_ntf = urcu_notification(d, "writer");
		d->call.lock.ntf = urcu_notification(d, "callback queue");
		d->call.ntf = urcu_notification(d, "callback thread");
		d->call.barrier_mutex.ntf = urcu_notification(d, "rcu_barrier() mutex");
		d->call.barrier_ntf = urcu_notification(d, "rcu_barrier()");
		d->call.tail = &d->call.head;
		if (d->setup)
			d->setup();
		urcu_thread_exit_hook = urcu_check_thread_exit;
		d->ready = true;
	}
	__retarget_lock_release(&init_lock);
}

/*
 * Taking the mutex reads the last holder's release, so its critical
 * section is visible to ours.  Contended, we say so (2) and sleep until an
 * unlock signals: the notification keeps a signal sent before we sleep,
 * so none is lost.
 */
void urcu_mutex_lock(struct urcu_mutex *m)
{
	int free = 0;

	/*
	 * [urcu_mutex_acquire] pairs [urcu_mutex_release]: a free mutex taken
	 * reads the last holder's release: its section is visible to ours.
	 */
	if (__atomic_compare_exchange_n(&m->state, &free, 1, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return;
	/*
	 * [urcu_mutex_wait_acquire] pairs [urcu_mutex_release]: the same for a
	 * mutex taken after a sleep (or after saying we would sleep).
	 */
	while (__atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE) != 0)
		q_syscall(SYS_ntf_wait, m->ntf, 0, 0, 0, 0, 0);
}

void urcu_mutex_unlock(struct urcu_mutex *m)
{
	/*
	 * [urcu_mutex_release] pairs [urcu_mutex_acquire], [urcu_mutex_wait_acquire]:
	 * our section is visible before the mutex is free for the next holder.
	 */
	if (__atomic_exchange_n(&m->state, 0, __ATOMIC_RELEASE) == 2)
		q_signal(m->ntf, 1);
}

void urcu_sleep(struct urcu_domain *d, int ntf)
{
	bool offline = d->block_begin && d->block_begin("the library's own sleep");

	q_syscall(SYS_ntf_wait, ntf, 0, 0, 0, 0, 0);
	if (offline)
		d->block_end();
}

struct urcu_reader *urcu_register(struct urcu_domain *d, const char *call)
{
	struct q_thread_head *h = q_thread_head();
	struct urcu_reader *r;

	if (h->urcu[d->flavor]) {
		urcu_misuse(d->flavor, "%s twice", call);
		return NULL;
	}
	urcu_domain_init(d);
	r = calloc(1, sizeof(*r));
	if (!r)
		panic("urcu: no memory for thread %d's reader", current_tls()->tid);
	r->tid = current_tls()->tid;
	r->flavor = d->flavor;
	urcu_mutex_lock(&d->registry_mutex);
	list_add_tail(&r->node, &d->registry);
	urcu_stat_inc(d, readers);
	urcu_mutex_unlock(&d->registry_mutex);
	h->urcu[d->flavor] = r;
	return r;
}

bool urcu_unregister(struct urcu_domain *d)
{
	struct q_thread_head *h = q_thread_head();
	struct urcu_reader *r = h->urcu[d->flavor];

	if (!r) {
		urcu_misuse_unregistered(d->flavor, "rcu_unregister_thread()");
		return false;
	}
	if (r->nesting) {
		urcu_misuse(d->flavor, "rcu_unregister_thread() inside rcu_read_lock() "
			    "(nesting depth %d)", r->nesting);
		return false;
	}
	urcu_mutex_lock(&d->registry_mutex);
	list_del(&r->node);
	__atomic_fetch_sub(&d->stats.readers, 1, __ATOMIC_RELAXED);
	urcu_mutex_unlock(&d->registry_mutex);
	h->urcu[d->flavor] = NULL;
	free(r);
	return true;
}

/* Does a registered reader still read from before grace period gp began? */
static bool readers_hold(struct urcu_domain *d, unsigned long gp)
{
	struct urcu_reader *r;
	bool held = false;

	urcu_mutex_lock(&d->registry_mutex);
	list_for_each_entry(r, &d->registry, node) {
		unsigned long ctr = READ_ONCE(r->ctr);

		if (ctr && ctr < gp) {
			held = true;
			break;
		}
	}
	urcu_mutex_unlock(&d->registry_mutex);
	return held;
}

/*
 * Until no reader holds grace period gp up: a few looks, then sleeps,
 * each time saying where (gp->waiting) before looking once more.  A
 * reader that lets go after that look sees waiting and signals us (the
 * flavor's order_readers() between our store and our look, the reader's
 * barrier between its store and its look: one of us sees the other's
 * store); one that let go before it, we see.
 */
static void wait_for_readers(struct urcu_domain *d, unsigned long gp)
{
	for (int looks = 0; readers_hold(d, gp); looks++) {
		if (looks < URCU_SPINS) {
			cpu_relax();
			continue;
		}
		WRITE_ONCE(d->gp->waiting, 1 + d->gp_ntf);
		d->order_readers();	/* (waiting before the look below) */
		if (readers_hold(d, gp)) {
			urcu_stat_inc(d, writer_sleeps);
			q_syscall(SYS_ntf_wait, d->gp_ntf, 0, 0, 0, 0, 0);
		}
		WRITE_ONCE(d->gp->waiting, 0);
	}
}

void urcu_wake_writer(struct urcu_gp *gp)
{
	int waiting = READ_ONCE(gp->waiting);

	if (waiting) {
		q_signal(waiting - 1, 1);
		__atomic_fetch_add(&gp->wakeups, 1, __ATOMIC_RELAXED);
	}
}

bool urcu_waits_for_itself(struct urcu_domain *d, const char *call)
{
	struct urcu_reader *r = urcu_reader_of(d->flavor);

	if (!r || !r->nesting)
		return false;
	urcu_misuse(d->flavor, "%s inside rcu_read_lock() (nesting depth %d): it would wait for "
		    "itself", call, r->nesting);
	return true;
}

void urcu_synchronize(struct urcu_domain *d)
{
	unsigned long gp;

	urcu_domain_init(d);
	urcu_mutex_lock(&d->gp_mutex);
	d->order_readers();	/* (what the caller removed, before the number) */
	gp = d->gp->seq + 1;
	WRITE_ONCE(d->gp->seq, gp);
	if (!urcu_injected_no_wait())	/* (fault injection: a grace period that waits for nothing) */
		wait_for_readers(d, gp);
	d->order_readers();	/* (the readers' sections before what the caller frees) */
	urcu_stat_inc(d, grace_periods);
	urcu_mutex_unlock(&d->gp_mutex);
}

void urcu_get_stats(struct urcu_domain *d, struct urcu_stats *s)
{
	s->grace_periods = __atomic_load_n(&d->stats.grace_periods, __ATOMIC_RELAXED);
	s->writer_sleeps = __atomic_load_n(&d->stats.writer_sleeps, __ATOMIC_RELAXED);
	s->wakeups = __atomic_load_n(&d->gp->wakeups, __ATOMIC_RELAXED);
	s->callbacks_queued = __atomic_load_n(&d->stats.callbacks_queued, __ATOMIC_RELAXED);
	s->callbacks_invoked = __atomic_load_n(&d->stats.callbacks_invoked, __ATOMIC_RELAXED);
	s->barriers = __atomic_load_n(&d->stats.barriers, __ATOMIC_RELAXED);
	s->readers = __atomic_load_n(&d->stats.readers, __ATOMIC_RELAXED);
}
