/*
 * A reader-writer spinlock with Linux's names (read_lock(), write_lock(),
 * ...), built on a spinlock and a count of readers.  Readers hold the
 * spinlock only while they count themselves in; a writer holds it for its
 * whole critical section and first waits for the readers inside to leave.
 * So arriving readers wait behind a writer (writer preference), and every
 * reader touches the shared count twice: the cache-line traffic RCU's
 * readers do without (kernel/route.c, lab rwlock_to_rcu).
 * Not for interrupt handlers: a handler's read_lock() on a CPU whose
 * writer waits for readers would spin for ever.
 */
#ifndef KERNEL_RWLOCK_H
#define KERNEL_RWLOCK_H

#include "spinlock.h"
#include "atomic.h"
#include "barrier.h"

typedef struct {
	spinlock_t wlock;	/* held by a writer, briefly by an arriving reader */
	atomic_t readers;	/* readers inside */
} rwlock_t;

#define __RW_LOCK_UNLOCKED(name) \
	{ .wlock = __SPIN_LOCK_UNLOCKED(name), .readers = ATOMIC_INIT(0) }
#define DEFINE_RWLOCK(x)	rwlock_t x = __RW_LOCK_UNLOCKED(x)

static inline void read_lock(rwlock_t *l)
{
	/* The lock's hand-over orders us after the last writer's section. */
	spin_lock(&l->wlock);
	atomic_inc(&l->readers);
	spin_unlock(&l->wlock);
}

static inline void read_unlock(rwlock_t *l)
{
	/*
	 * [rwlock_read_unlock_release] pairs [rwlock_write_wait_acquire]:
	 * our section's loads are done before a writer sees us gone, or it
	 * could change (or free) what we are still reading.
	 */
	atomic_sub_return_release(1, &l->readers);
}

static inline void write_lock(rwlock_t *l)
{
	spin_lock(&l->wlock);	/* no new reader gets in */
	/*
	 * [rwlock_write_wait_acquire] pairs [rwlock_read_unlock_release]:
	 * seeing no reader inside, our section comes after theirs.
	 */
	while (smp_load_acquire(&l->readers.counter))
		cpu_relax();
}

static inline void write_unlock(rwlock_t *l)
{
	spin_unlock(&l->wlock);
}

#endif
