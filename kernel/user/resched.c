/*
 * Where a long system call lets the CPU go (user_cond_resched(), user.h).
 *
 * The kernel is not preemptible: a system call runs until it blocks or
 * returns, and all that time its CPU reports no quiescent state -- one
 * long read-side critical section, holding up every grace period in the
 * system (a 2 MiB SYS_console_write once held one for 8.6 s).  So every
 * loop whose length a program chooses -- bytes to print, pages to map,
 * zero or unmap, capabilities to revoke or to empty out of a dying space
 * -- calls this every few steps, at a point where it holds no spinlock
 * and is in no read-side critical section (it may hold a mutex: mm->lock
 * in mm.c's loops).  cond_resched() switches if another task waits here,
 * and always reports a quiescent state.
 *
 * These points are where a pointer the call found under RCU without
 * taking a reference stops being safe: docs/microkernel.md lists them.
 */
#include "user/user.h"
#include "user/thread.h"

/* syscall.inject=no_resched: the fault tests/user_long_calls.c must catch. */
static bool inject_no_resched;
KPARAM_FLAG("syscall.inject", "no_resched", inject_no_resched,
	    "long system calls never let the CPU go: every grace period waits for them");

void (*user_resched_hook)(void);

bool user_cond_resched(void)
{
	if (CONFIG_RCU_CHECKING && user_resched_hook)
		user_resched_hook();
	if (!(CONFIG_RCU_CHECKING && inject_no_resched))
		cond_resched();
	return fatal_signal_pending(current);
}
