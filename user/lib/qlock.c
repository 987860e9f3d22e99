/*
 * Sleeping locks for programs (qlock.h).  The mutex is the three-state
 * mutex of Drepper's "Futexes Are Tricky" over a notification: a holder
 * that saw state 2 at unlock signals once, and the waiter it wakes takes
 * the lock as 2, so the next unlock signals again.  A signal sent before
 * the waiter sleeps is kept in the notification's word: q_wait() then
 * returns at once, so no wake-up is lost between looking and sleeping.
 */
#include <stdbool.h>
#include "qlock.h"
#include "qcap.h"

int q_mutex_init(struct q_mutex *m)
{
	m->state = 0;
	m->ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	return m->ntf < 0 ? m->ntf : 0;
}

void q_mutex_lock(struct q_mutex *m)
{
	int free = 0;

	/* [qlock_mutex_acquire] pairs [qlock_mutex_release]: the last holder's section is visible. */
	if (__atomic_compare_exchange_n(&m->state, &free, 1, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return;
	/* [qlock_mutex_wait_acquire] pairs [qlock_mutex_release]: the same after a sleep. */
	while (__atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE) != 0)
		q_wait(m->ntf);
}

void q_mutex_unlock(struct q_mutex *m)
{
	/*
	 * [qlock_mutex_release] pairs [qlock_mutex_acquire], [qlock_mutex_wait_acquire]:
	 * our section is visible before the mutex is free for the next holder.
	 */
	if (__atomic_exchange_n(&m->state, 0, __ATOMIC_RELEASE) == 2)
		q_signal(m->ntf, 1);
}

int q_rwlock_init(struct q_rwlock *l)
{
	l->state = 0;
	l->sleepers = 0;
	l->ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	return l->ntf < 0 ? l->ntf : 0;
}

/* May a reader (writer false) or a writer come in, the lock being in state s? */
static bool rw_may_enter(int s, bool writer)
{
	return writer ? s == 0 : s >= 0;
}

/* One try: state s to s + 1 (a reader) or to WRITER. */
static bool rw_try(struct q_rwlock *l, bool writer)
{
	int s = __atomic_load_n(&l->state, __ATOMIC_RELAXED);

	/*
	 * [qlock_rw_acquire] pairs [qlock_rw_release], [qlock_rw_read_release]: what
	 * the last writer did is visible; a writer comes after the readers read.
	 */
	return rw_may_enter(s, writer) &&
	       __atomic_compare_exchange_n(&l->state, &s, writer ? Q_RWLOCK_WRITER : s + 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* Wakes one sleeper, if there is one (after the store that let the lock go). */
static void rw_wake_one(struct q_rwlock *l)
{
	/*
	 * [qlock_rw_wake_mb] pairs [qlock_rw_sleep_mb]: store buffering.  Our
	 * store to state, then our look at sleepers; the waiter's count in
	 * sleepers, then its look at state.  One of us sees the other's.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&l->sleepers, __ATOMIC_RELAXED))
		q_signal(l->ntf, 1);
}

static void rw_lock(struct q_rwlock *l, bool writer)
{
	bool slept = false;

	while (!rw_try(l, writer)) {
		__atomic_fetch_add(&l->sleepers, 1, __ATOMIC_RELAXED);
		/*
		 * [qlock_rw_sleep_mb] pairs [qlock_rw_wake_mb]: our count, then our
		 * look at state; else a letting-go between the two sees no sleeper
		 * and we sleep through it.
		 */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (!rw_may_enter(__atomic_load_n(&l->state, __ATOMIC_RELAXED), writer))
			q_wait(l->ntf);
		__atomic_fetch_sub(&l->sleepers, 1, __ATOMIC_RELAXED);
		slept = true;
	}
	/*
	 * A wake-up wakes one sleeper: a reader that came in after a sleep
	 * wakes the next, who may be a reader too.  (A writer that came in,
	 * or anyone who finds the lock held, wakes nobody: the holder's
	 * unlock will.)
	 */
	if (slept && !writer)
		rw_wake_one(l);
}

static void rw_unlock(struct q_rwlock *l, bool writer)
{
	int left;

	if (writer) {
		/* [qlock_rw_release] pairs [qlock_rw_acquire]: our section, before the lock is free. */
		__atomic_store_n(&l->state, left = 0, __ATOMIC_RELEASE);
	} else {
		/* [qlock_rw_read_release] pairs [qlock_rw_acquire]: our reads, before a writer's writes. */
		left = __atomic_sub_fetch(&l->state, 1, __ATOMIC_RELEASE);
	}
	if (left == 0)
		rw_wake_one(l);
}

void q_read_lock(struct q_rwlock *l) { rw_lock(l, false); }
void q_read_unlock(struct q_rwlock *l) { rw_unlock(l, false); }
void q_write_lock(struct q_rwlock *l) { rw_lock(l, true); }
void q_write_unlock(struct q_rwlock *l) { rw_unlock(l, true); }
