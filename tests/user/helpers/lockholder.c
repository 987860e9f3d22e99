/*
 * A thread killed while it holds a lock of newlib's (tests/user_lock_holder.c):
 * a second thread takes malloc's lock and spins; the first kills it
 * through a capability, then calls malloc().  The lock is never let go:
 * the runtime must end the task saying so (user/lib/lock.c), not leave
 * it yielding for ever.
 */
#include <malloc.h>
#include <stdlib.h>
#include "quiescent.h"
#include "qcap.h"

static volatile int holding;

static int hold_malloc_lock(void *arg)
{
	(void)arg;
	__malloc_lock(_REENT);
	holding = 1;
	for (;;)
		;
	return 0;	/* (never) */
}

int main(void)
{
	int tid = q_thread_create(hold_malloc_lock, NULL, SYS_CPU_ANY), t;
	struct sys_exit_status st;

	if (tid < 0)
		return 2;
	while (!holding)
		q_yield();
	t = q_thread_cap(SYS_CAP_ANY_SLOT, tid);
	if (t < 0 || q_kill(t) < 0)
		return 3;
	q_cap_delete(t);
	q_thread_join(tid, &st);
	free(malloc(64));	/* the lock its holder never let go */
	return 4;		/* (never: the runtime ends us) */
}
