/*
 * Locks for programs whose waiters sleep (user/lib/qlock.c): a mutex and
 * a reader-writer lock, each over a notification (docs/microkernel.md)
 * that whoever lets the lock go signals.  A waiter blocks in q_wait(), so
 * a registered QSBR thread is offline while it waits (docs/urcu.md): take
 * neither inside rcu_read_lock() of QSBR.  Neither is recursive, and
 * neither is fair: a lock let go goes to whoever asks first.
 *
 *	struct q_mutex m;
 *	q_mutex_init(&m);		// 0, or the notification's error
 *	q_mutex_lock(&m); ... q_mutex_unlock(&m);
 *
 * newlib's own locks (user/lib/lock.c) yield instead: they must work
 * before anything can make a notification.
 */
#ifndef QLOCK_H
#define QLOCK_H

struct q_mutex {
	int state;		/* 0 free, 1 held, 2 held and someone may sleep */
	int ntf;		/* where the waiters sleep */
};

/*
 * state: the number of readers inside, or Q_RWLOCK_WRITER.  Waiters
 * count themselves in sleepers before they sleep; whoever lets the lock
 * go wakes one, and a woken waiter that finds the lock free wakes the
 * next: every sleeper wakes once per letting-go.
 */
#define Q_RWLOCK_WRITER	(-1)
struct q_rwlock {
	int state;
	int sleepers;
	int ntf;
};

int q_mutex_init(struct q_mutex *m);
void q_mutex_lock(struct q_mutex *m);
void q_mutex_unlock(struct q_mutex *m);

int q_rwlock_init(struct q_rwlock *l);
void q_read_lock(struct q_rwlock *l);
void q_read_unlock(struct q_rwlock *l);
void q_write_lock(struct q_rwlock *l);
void q_write_unlock(struct q_rwlock *l);

#endif
