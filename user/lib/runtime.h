/*
 * The user runtime's private state (user/lib/): each thread's block,
 * which its thread pointer points at (x86-64 FS base, AArch64 TPIDR_EL0).
 */
#ifndef USER_RUNTIME_H
#define USER_RUNTIME_H

#include <reent.h>
#include <stdbool.h>
#include "quiescent.h"

struct user_tls {
	struct q_thread_head head;	/* first: arch_thread_pointer() reads head.self */
	struct _reent *reent;		/* newlib's state for this thread (__getreent()) */
	int tid;
	int (*fn)(void *);		/* a created thread's function and argument */
	void *arg;
	struct user_tls *next;		/* on the list of threads not yet joined */
	struct _reent own_reent;	/* a created thread's; the first uses newlib's global one */
};

/* newlib's lock type (sys/lock.h declares it, lock.c implements it). */
struct __lock {
	int owner;		/* the holder's thread id, or 0 */
	int depth;
	bool recursive;
};

struct user_tls *current_tls(void);

/*
 * What the user-space RCU library sets at its first use (urcu_domain.c,
 * urcu_qsbr.c), so that the runtime calls it without linking it into the
 * programs that do not use it: a QSBR thread goes offline while a
 * blocking IPC call waits (ipc.c: begin says whether it did), and a
 * thread must not end registered (thread.c).
 */
extern bool (*urcu_block_begin_hook)(const char *call);
extern void (*urcu_block_end_hook)(void);
extern void (*urcu_thread_exit_hook)(void);
/* A system call's raw result: errno set and -1 returned for an error. */
long syscall_errno(long ret);

#endif
