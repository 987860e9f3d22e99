/*
 * newlib's locks (its malloc's, stdio's, ...), made real: built with
 * retargetable locking, newlib declares them and we define them.  A lock
 * has an owner (a thread id) and a depth (newlib takes some recursively).
 * A thread that finds a lock taken yields the CPU and tries again: the
 * holder may be waiting for this very CPU.
 */
#include <stdlib.h>
#include <sys/lock.h>
#include "runtime.h"
#include "newlib_names.h"

#define NEWLIB_LOCK(name, rec) struct __lock __lock___##name = { .recursive = rec };
NEWLIB_STATIC_LOCKS(NEWLIB_LOCK)

static void lock_init(_LOCK_T *lock, bool recursive)
{
	struct __lock *l = calloc(1, sizeof(*l));

	if (!l)
		abort();
	l->recursive = recursive;
	*lock = l;
}

static void lock_close(struct __lock *l)
{
	free(l);
}

static bool lock_try(struct __lock *l)
{
	int me = current_tls()->tid, nobody = 0;

	if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == me) {
		if (!l->recursive)
			abort();	/* taken twice: newlib would deadlock */
		l->depth++;
		return true;
	}
	/*
	 * [user_lock_acquire] pairs [user_lock_release]: taking the lock reads
	 * the last holder's release, so what it did under the lock (newlib's
	 * malloc lists, say) is visible to us.
	 */
	if (!__atomic_compare_exchange_n(&l->owner, &nobody, me, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return false;
	l->depth = 1;
	return true;
}

static void lock_acquire(struct __lock *l)
{
	while (!lock_try(l))
		q_yield();
}

static void lock_release(struct __lock *l)
{
	if (--l->depth)
		return;
	/* [user_lock_release] pairs [user_lock_acquire]: our section, visible before the lock is free. */
	__atomic_store_n(&l->owner, 0, __ATOMIC_RELEASE);
}

NEWLIB_RETARGET_LOCKS(lock_init, lock_close, lock_try, lock_acquire, lock_release)
