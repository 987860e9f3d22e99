/*
 * IPC's fast path (kernel/user/fastpath.c; docs/microkernel.md, "The fast
 * path").
 */
#ifndef KERNEL_USER_FASTPATH_H
#define KERNEL_USER_FASTPATH_H

#include "user/syscalls.h"

/* Is it on (ipc.fastpath, never PREEMPT=1)?  Tests turn it off and on. */
bool ipc_fastpath_enabled(void);
void ipc_fastpath_set(bool on);
/*
 * SYS_ipc_call or SYS_ipc_reply_recv, from syscall_dispatch(), interrupts
 * off: true if the fast path did it (the result and message are in tf);
 * false if it changed nothing and the general way is to do it all.
 */
bool ipc_fastpath(struct trap_frame *tf, unsigned long nr);
/*
 * Test hook (checking build): called just before the fast switch to next,
 * interrupts off (tests/ipc_fastpath.c makes a grace period wait for this
 * CPU there, or kills next); NULL: nothing.
 */
extern void (*ipc_fastpath_hook)(struct task_struct *next);
/* user.strace on or off (kernel/user/syscall.c; tests): the old value. */
bool syscall_strace_set(bool on);

#endif
