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

#define NEWLIB_LOCK(name, rec) struct __lock __lock___##name = { .recursive = rec }
NEWLIB_LOCK(sinit_recursive_mutex, true);
NEWLIB_LOCK(sfp_recursive_mutex, true);
NEWLIB_LOCK(atexit_recursive_mutex, true);
NEWLIB_LOCK(at_quick_exit_mutex, false);
NEWLIB_LOCK(malloc_recursive_mutex, true);
NEWLIB_LOCK(env_recursive_mutex, true);
NEWLIB_LOCK(tz_mutex, false);
NEWLIB_LOCK(dd_hash_mutex, false);
NEWLIB_LOCK(arc4random_mutex, false);

static void lock_init(_LOCK_T *lock, bool recursive)
{
	struct __lock *l = calloc(1, sizeof(*l));

	if (!l)
		abort();
	l->recursive = recursive;
	*lock = l;
}

void __retarget_lock_init(_LOCK_T *lock) { lock_init(lock, false); }
void __retarget_lock_init_recursive(_LOCK_T *lock) { lock_init(lock, true); }
void __retarget_lock_close(_LOCK_T lock) { free(lock); }
void __retarget_lock_close_recursive(_LOCK_T lock) { free(lock); }

static bool lock_try(struct __lock *l)
{
	int me = current_tls()->tid, nobody = 0;

	if (__atomic_load_n(&l->owner, __ATOMIC_RELAXED) == me) {
		if (!l->recursive)
			abort();	/* taken twice: newlib would deadlock */
		l->depth++;
		return true;
	}
	/* Acquire: what the last holder did under the lock is visible to us. */
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
	/* Release: our critical section is visible to the next holder. */
	__atomic_store_n(&l->owner, 0, __ATOMIC_RELEASE);
}

void __retarget_lock_acquire(_LOCK_T lock) { lock_acquire(lock); }
void __retarget_lock_acquire_recursive(_LOCK_T lock) { lock_acquire(lock); }
int __retarget_lock_try_acquire(_LOCK_T lock) { return lock_try(lock); }
int __retarget_lock_try_acquire_recursive(_LOCK_T lock) { return lock_try(lock); }
void __retarget_lock_release(_LOCK_T lock) { lock_release(lock); }
void __retarget_lock_release_recursive(_LOCK_T lock) { lock_release(lock); }
