/*
 * THE SYSTEM-CALL TABLE.  A program asks the kernel for something by
 * number (lib/syscall.h holds the numbers and how each architecture
 * passes them); the arch's entry code saves the registers in a trap
 * frame and calls syscall_dispatch(), which looks the number up here.
 * The handlers live in sys_*.c, one file per kind of object.
 */
#include "user/syscalls.h"
#include "user/fastpath.h"
#include <errno.h>

/* The ABI's error numbers are newlib's, which this kernel's <errno.h> is. */
_Static_assert(SYS_EFAULT == EFAULT && SYS_EINVAL == EINVAL && SYS_ENOSYS == ENOSYS &&
	       SYS_ENOMEM == ENOMEM && SYS_ESRCH == ESRCH && SYS_ECHILD == ECHILD &&
	       SYS_EDEADLK == EDEADLK && SYS_EEXIST == EEXIST && SYS_ENOENT == ENOENT &&
	       SYS_E2BIG == E2BIG && SYS_ENOEXEC == ENOEXEC && SYS_EPERM == EPERM &&
	       SYS_EAGAIN == EAGAIN && SYS_EBUSY == EBUSY && SYS_ENODEV == ENODEV &&
	       SYS_EINTR == EINTR && SYS_EBADF == EBADF && SYS_EACCES == EACCES &&
	       SYS_ENOSPC == ENOSPC && SYS_EPIPE == EPIPE && SYS_ENOTSUP == ENOTSUP &&
	       SYS_ETIMEDOUT == ETIMEDOUT,
	       "lib/syscall.h's error numbers differ from <errno.h>");

struct syscall {
	const char *name;
	syscall_fn fn;
	int nargs;
};

static const struct syscall syscall_table[NR_SYSCALLS] = {
	[SYS_exit]		= { "exit",		sys_exit,		1 },
	[SYS_console_write]	= { "console_write",	sys_console_write,	2 },
	[SYS_yield]		= { "yield",		sys_yield,		0 },
	[SYS_sleep]		= { "sleep",		sys_sleep,		1 },
	[SYS_clock]		= { "clock",		sys_clock,		0 },
	[SYS_map]		= { "map",		sys_map,		3 },
	[SYS_unmap]		= { "unmap",		sys_unmap,		2 },
	[SYS_thread_create]	= { "thread_create",	sys_thread_create,	4 },
	[SYS_thread_exit]	= { "thread_exit",	sys_thread_exit,	1 },
	[SYS_thread_wait]	= { "thread_wait",	sys_thread_wait,	2 },
	[SYS_task_id]		= { "task_id",		sys_task_id,		0 },
	[SYS_thread_id]		= { "thread_id",	sys_thread_id,		0 },
	[SYS_set_cpu]		= { "set_cpu",		sys_set_cpu,		1 },
	[SYS_cpu]		= { "cpu",		sys_cpu,		0 },
	[SYS_set_tls]		= { "set_tls",		sys_set_tls,		1 },
	[SYS_task_wait]		= { "task_wait",	sys_task_wait,		2 },
	[SYS_abort]		= { "abort",		sys_abort,		0 },
	[SYS_nr_cpus]		= { "nr_cpus",		sys_nr_cpus,		0 },
	[SYS_membarrier]	= { "membarrier",	sys_membarrier,		3 },
	/* Capabilities and IPC (sys_cap.c, sys_ipc.c; lib/ipc.h): */
	[SYS_cap_create]	= { "cap_create",	sys_cap_create,		3 },
	[SYS_cap_copy]		= { "cap_copy",		sys_cap_copy,		2 },
	[SYS_cap_mint]		= { "cap_mint",		sys_cap_mint,		4 },
	[SYS_cap_move]		= { "cap_move",		sys_cap_move,		2 },
	[SYS_cap_delete]	= { "cap_delete",	sys_cap_delete,		1 },
	[SYS_cap_revoke]	= { "cap_revoke",	sys_cap_revoke,		1 },
	[SYS_cap_inspect]	= { "cap_inspect",	sys_cap_inspect,	2 },
	[SYS_ipc_send]		= { "ipc_send",		sys_ipc_send,		6 },
	[SYS_ipc_call]		= { "ipc_call",		sys_ipc_call,		6 },
	[SYS_ipc_recv]		= { "ipc_recv",		sys_ipc_recv,		2 },
	[SYS_ipc_reply]		= { "ipc_reply",	sys_ipc_reply,		6 },
	[SYS_ipc_reply_recv]	= { "ipc_reply_recv",	sys_ipc_reply_recv,	6 },
	[SYS_ipc_recv_slot]	= { "ipc_recv_slot",	sys_ipc_recv_slot,	1 },
	[SYS_ntf_signal]	= { "ntf_signal",	sys_ntf_signal,		2 },
	[SYS_ntf_wait]		= { "ntf_wait",		sys_ntf_wait,		1 },
	[SYS_ntf_poll]		= { "ntf_poll",		sys_ntf_poll,		1 },
	[SYS_mem_map]		= { "mem_map",		sys_mem_map,		3 },
	[SYS_mem_unmap]		= { "mem_unmap",	sys_mem_unmap,		1 },
	[SYS_cap_spawn]		= { "cap_spawn",	sys_cap_spawn,		1 },
	[SYS_obj_kill]		= { "obj_kill",		sys_obj_kill,		1 },
	[SYS_obj_wait]		= { "obj_wait",		sys_obj_wait,		2 },
	[SYS_program_name]	= { "program_name",	sys_program_name,	3 },
	[SYS_quota_info]	= { "quota_info",	sys_quota_info,		2 },
	/* Drivers (sys_irq.c; docs/drivers.md): */
	[SYS_irq_bind]		= { "irq_bind",		sys_irq_bind,		3 },
	[SYS_irq_ack]		= { "irq_ack",		sys_irq_ack,		1 },
	[SYS_dev_map]		= { "dev_map",		sys_dev_map,		2 },
	[SYS_console_lines]	= { "console_lines",	sys_console_lines,	3 },
	[SYS_console_push]	= { "console_push",	sys_console_push,	3 },
};

static DEFINE_PER_CPU(unsigned long, syscalls_done);

/* user.strace=1: each system call and its result on the console, as strace prints them. */
static bool strace;
KPARAM_BOOL("user.strace", strace);

bool syscall_strace_set(bool on)
{
	bool was = READ_ONCE(strace);

	WRITE_ONCE(strace, on);
	return was;
}

static void trace_call(unsigned long nr, const struct syscall_args *a, long ret)
{
	const struct syscall *sc = &syscall_table[nr];
	char args[160];
	int len = 0;

	args[0] = '\0';
	for (int i = 0; i < sc->nargs; i++)
		len += snprintf(args + len, sizeof(args) - len, "%s%#lx", i ? ", " : "", a->arg[i]);
	printk("user: %s[%d] thread %d: %s(%s) = %ld\n", current_user_task()->name,
	       current_user_task()->id, current->user->tid, sc->name, args, ret);
}

/* Spelled out: six loads, where a loop compiles to a switch per register. */
static inline void get_args(const struct trap_frame *tf, struct syscall_args *a)
{
	_Static_assert(SYSCALL_MAX_ARGS == 6, "one line per argument register");
	a->arg[0] = arch_syscall_arg(tf, 0);
	a->arg[1] = arch_syscall_arg(tf, 1);
	a->arg[2] = arch_syscall_arg(tf, 2);
	a->arg[3] = arch_syscall_arg(tf, 3);
	a->arg[4] = arch_syscall_arg(tf, 4);
	a->arg[5] = arch_syscall_arg(tf, 5);
}

/* Interrupts off on entry and on return; the arch returns to user mode after. */
void syscall_dispatch(struct trap_frame *tf)
{
	unsigned long nr = arch_syscall_nr(tf);
	struct syscall_args a;
	long ret = -ENOSYS;

	enter_from_user_mode();
	this_cpu_inc(syscalls_done);	/* (interrupts off) */
	current->user->syscalls++;	/* (only this thread writes it: user_task_syscalls()) */
	if ((nr == SYS_ipc_call || nr == SYS_ipc_reply_recv) && !READ_ONCE(strace) &&
	    ipc_fastpath_enabled() && ipc_fastpath(tf, nr)) {
		exit_to_user_mode();	/* (interrupts off all the way: the fast path's promise) */
		return;
	}
	local_irq_enable();
	if (nr < NR_SYSCALLS && syscall_table[nr].fn) {
		current->user->syscall_frame = tf;	/* IPC writes a received message there */
		get_args(tf, &a);
		if (strace && (nr == SYS_exit || nr == SYS_thread_exit || nr == SYS_abort))
			trace_call(nr, &a, 0);	/* (they do not return) */
		ret = syscall_table[nr].fn(&a);
		if (strace)
			trace_call(nr, &a, ret);
	} else if (strace) {
		printk("user: %s[%d] thread %d: system call %lu = %ld (no such call)\n",
		       current_user_task()->name, current_user_task()->id, current->user->tid,
		       nr, ret);
	}
	arch_syscall_set_result(tf, ret);
	local_irq_disable();
	exit_to_user_mode();
}

const char *syscall_name(unsigned long nr)
{
	return nr < NR_SYSCALLS && syscall_table[nr].fn ? syscall_table[nr].name : NULL;
}

unsigned long syscalls_done_on(int cpu)
{
	return READ_ONCE(per_cpu(syscalls_done, cpu));
}
