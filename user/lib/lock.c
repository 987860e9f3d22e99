/*
 * newlib's locks (its malloc's, stdio's, ...), made real: built with
 * retargetable locking, newlib declares them and we define them.  A lock
 * has an owner (a thread id) and a depth (newlib takes some recursively).
 * A thread that finds a lock taken yields the CPU and tries again: the
 * holder may be waiting for this very CPU.  Now and then it looks whether
 * the holder still exists: one killed holding the lock ends the task
 * with a message (holder_gone()), not a hang.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/lock.h>
#include "runtime.h"
#include "newlib_names.h"
#include "qcap.h"

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

/* Failed tries between two looks at whether the holder still exists. */
#define TRIES_BEFORE_LOOK	4096

/*
 * A thread killed while it held the lock (a kill ends a thread wherever
 * it is) never lets it go: every other thread would yield for ever.  Said
 * once we see it, and the task ends, rather than a silent hang.  Written
 * with the system call, not stdio: stdio's lock may be the one.
 */
static void holder_gone(int owner)
{
	q_console_printf("lock: thread %d ended holding a lock of newlib's (killed inside malloc "
			 "or stdio?): the task cannot go on\n", owner);
	q_syscall(SYS_abort, 0, 0, 0, 0, 0, 0);
}

/* Is thread tid of our task gone?  (-SYS_ESRCH for a capability to it; any other error: cannot tell) */
static bool thread_gone(int tid)
{
	int t = q_thread_cap(SYS_CAP_ANY_SLOT, tid);

	if (t >= 0)
		q_cap_delete(t);
	return t == -SYS_ESRCH;
}

static void lock_acquire(struct __lock *l)
{
	for (unsigned long tries = 1; !lock_try(l); tries++) {
		int owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);

		if (tries % TRIES_BEFORE_LOOK == 0 && owner && thread_gone(owner) &&
		    __atomic_load_n(&l->owner, __ATOMIC_RELAXED) == owner)
			holder_gone(owner);
		q_yield();
	}
}

static void lock_release(struct __lock *l)
{
	if (--l->depth)
		return;
	/* [user_lock_release] pairs [user_lock_acquire]: our section, visible before the lock is free. */
	__atomic_store_n(&l->owner, 0, __ATOMIC_RELEASE);
}

NEWLIB_RETARGET_LOCKS(lock_init, lock_close, lock_try, lock_acquire, lock_release)
