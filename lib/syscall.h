/*
 * The system-call ABI: what user programs (user/) and the kernel
 * (kernel/user/syscall.c, the table) agree on.  Freestanding: nothing
 * from kernel/ or from newlib, so both sides include this one file.
 *
 * How a call travels (docs/user.md, "The system-call ABI"):
 *
 *   x86-64   `syscall`; the number in rax, arguments in rdi, rsi, rdx,
 *            r10, r8, r9; the result in rax.  rcx and r11 are lost (the
 *            CPU keeps the return address and rflags there); every other
 *            register, the SSE state included, is preserved.
 *   AArch64  `svc #0`; the number in x8, arguments in x0-x5; the result
 *            in x0; every other register, the SIMD state included, is
 *            preserved.
 *
 * A result from -4095 to -1 is an error, -SYS_E...; anything else is
 * success.  The error numbers are newlib's errno values, so the user
 * runtime stores -result in errno as it is (the kernel checks at build
 * time that its <errno.h> agrees: kernel/user/syscall.c).
 *
 * Every argument is checked: a pointer must lie in user space and be
 * mapped with the access the call needs (or the call returns -SYS_EFAULT,
 * never crashes), a number must be in range (-SYS_EINVAL).  An unknown
 * system-call number returns -SYS_ENOSYS.
 */
#ifndef LIB_SYSCALL_H
#define LIB_SYSCALL_H

/* The numbers: the index into the kernel's table (kernel/user/syscall.c). */
#define SYS_exit		0	/* (int status): ends the task, every thread; no return */
#define SYS_console_write	1	/* (const char *buf, size_t len): -> len */
#define SYS_yield		2	/* (): lets the CPU's other threads run */
#define SYS_sleep		3	/* (u64 ns): sleeps at least ns, in ticks */
#define SYS_clock		4	/* (): -> nanoseconds since boot (monotonic) */
#define SYS_map			5	/* (void *addr, size_t len, int prot): -> addr */
#define SYS_unmap		6	/* (void *addr, size_t len): -> 0 */
#define SYS_thread_create	7	/* (entry, arg, tls, int cpu): -> thread id */
#define SYS_thread_exit		8	/* (int status): ends the calling thread */
#define SYS_thread_wait		9	/* (int tid, struct sys_exit_status *st): -> 0 */
#define SYS_task_id		10	/* (): -> the task's id */
#define SYS_thread_id		11	/* (): -> the calling thread's id */
#define SYS_set_cpu		12	/* (int cpu): moves the calling thread to cpu */
#define SYS_cpu			13	/* (): -> the CPU the caller runs on (as it returns) */
#define SYS_set_tls		14	/* (void *tls): the thread pointer (x86-64 FS base, AArch64 TPIDR_EL0) */
/* 15: free (it was SYS_spawn, a program by name with no capability: SYS_cap_spawn now) */
#define SYS_task_wait		16	/* (int id, struct sys_exit_status *st): -> 0 (a task it spawned) */
#define SYS_abort		17	/* (): ends the task as killed by abort(); no return */
#define SYS_nr_cpus		18	/* (): -> how many CPUs are online */
#define SYS_membarrier		19	/* (int cmd, unsigned int flags, int cpu_id): Linux's; below */
/* 20..31: free.  Capabilities and IPC (lib/ipc.h, docs/microkernel.md): */
#define SYS_cap_create		32	/* (int type, int slot, long arg): -> the slot */
#define SYS_cap_copy		33	/* (int src, int dst): -> the slot; same rights and badge */
#define SYS_cap_mint		34	/* (int src, int dst, int rights, u64 badge): -> the slot */
#define SYS_cap_move		35	/* (int src, int dst): -> the slot */
#define SYS_cap_delete		36	/* (int slot): -> 0 */
#define SYS_cap_revoke		37	/* (int slot): deletes every capability derived from it -> how many */
#define SYS_cap_inspect		38	/* (int slot, struct sys_cap_info *): -> 0 */
#define SYS_ipc_send		39	/* (int ep, info, w0..w3): -> 0 */
#define SYS_ipc_call		40	/* (int ep, info, w0..w3): -> 0, the reply in the registers */
#define SYS_ipc_recv		41	/* (int ep, int flags): -> badge, the message in the registers */
#define SYS_ipc_reply		42	/* (-, info, w0..w3): -> 0, -SYS_ESRCH (caller gone), -SYS_EACCES (no grant), -SYS_EBADF (no capability in the slot it names) */
#define SYS_ipc_reply_recv	43	/* (int ep, info, w0..w3): reply, then receive -> badge */
#define SYS_ipc_recv_slot	44	/* (int slot): where received capabilities land (-1: any, -2: none) */
#define SYS_ntf_signal		45	/* (int ntf, u64 bits): -> 0 */
#define SYS_ntf_wait		46	/* (int ntf): -> the bits (never 0), cleared */
#define SYS_ntf_poll		47	/* (int ntf): -> the bits (0: none), cleared */
#define SYS_mem_map		48	/* (int mem, void *addr or 0, int prot): -> addr */
#define SYS_mem_unmap		49	/* (int mem): -> 0 */
#define SYS_cap_spawn		50	/* (const struct sys_spawn *): -> task id */
#define SYS_obj_kill		51	/* (int task or thread): -> 0 */
#define SYS_obj_wait		52	/* (int task or thread, struct sys_exit_status *): -> 0 */
#define SYS_program_name	53	/* (int program, char *buf, size_t size): -> the name's length */
#define SYS_quota_info		54	/* (int quota, struct sys_quota_info *): -> 0 */
/* Drivers (kernel/user/sys_irq.c; docs/drivers.md): 60..69. */
#define SYS_irq_bind		60	/* (int irq, int ntf, u64 bits): the line signals ntf -> 0 */
#define SYS_irq_ack		61	/* (int irq): served: the line opens again -> 0 */
#define SYS_dev_map		62	/* (int dev, void *addr or 0): its registers -> address, or first port */
#define SYS_console_lines	63	/* (int cons, const char *buf, size_t len): printed, line by line whole -> len */
#define SYS_console_push	64	/* (int cons, const char *buf, size_t len): keys for the kernel's readers -> len */
#define NR_SYSCALLS		65

/* SYS_map's prot: never both WRITE and EXEC (-SYS_EINVAL). */
#define SYS_PROT_READ		1
#define SYS_PROT_WRITE		2
#define SYS_PROT_EXEC		4

/*
 * SYS_membarrier's commands, Linux's numbers (flags must be 0; cpu_id is
 * not read).  QUERY returns the mask of the commands there are;
 * PRIVATE_EXPEDITED returns once every CPU that runs one of the caller's
 * threads has executed a full memory barrier (-SYS_EPERM before the task
 * registered); REGISTER_PRIVATE_EXPEDITED registers the task, for good.
 */
#define SYS_MEMBARRIER_CMD_QUERY			0
#define SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED		(1 << 3)
#define SYS_MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED	(1 << 4)
#define SYS_MEMBARRIER_CMDS	(SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED | \
				 SYS_MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)

/* SYS_thread_create's cpu: any online CPU (the kernel picks). */
#define SYS_CPU_ANY		(-1)

/*
 * What SYS_thread_wait and SYS_task_wait report: how a thread or a task
 * ended.  killed is 0 after exit(status) / a return from main or from
 * the thread's function; otherwise the reason (SYS_KILLED_*) and status
 * is 0.
 */
struct sys_exit_status {
	int status;
	int killed;
};

#define SYS_KILLED_FAULT	1	/* a fault in user mode (the console names it) */
#define SYS_KILLED_ABORT	2	/* abort() */
#define SYS_KILLED_BY_KERNEL	3	/* the kernel ended it (a test's timeout, shutdown) */
#define SYS_KILLED_BY_TASK	4	/* another task killed it through a capability (SYS_obj_kill) */

/*
 * A program's console line (SYS_console_write, and the console server's
 * lines): at most this many bytes print as one line; a longer one prints
 * in pieces of this many, each but the last ending in SYS_CONSOLE_LINE_CUT
 * (a backslash, as a C or shell line that goes on in the next).
 */
#define SYS_CONSOLE_LINE_MAX	160
#define SYS_CONSOLE_LINE_CUT	"\\"

/* The error numbers (newlib's <errno.h> values); a call returns -SYS_E... */
#define SYS_EPERM		1
#define SYS_ENOENT		2
#define SYS_ESRCH		3
#define SYS_EINTR		4
#define SYS_E2BIG		7
#define SYS_ENOEXEC		8
#define SYS_EBADF		9	/* no capability in that slot (empty, out of range) */
#define SYS_ECHILD		10
#define SYS_EAGAIN		11
#define SYS_ENOMEM		12
#define SYS_EACCES		13	/* the capability lacks a right the call needs */
#define SYS_EFAULT		14
#define SYS_EBUSY		16
#define SYS_EEXIST		17
#define SYS_ENODEV		19
#define SYS_EINVAL		22
#define SYS_ENOSPC		28	/* the capability space is full */
#define SYS_EPIPE		32	/* the other end is gone: nobody can ever answer */
#define SYS_EDEADLK		45
#define SYS_ENOSYS		88
#define SYS_ETIMEDOUT		116	/* user space's: a wait with a bound gave up (q_ns_lookup_wait) */
#define SYS_ENOTSUP		134	/* a capability of the wrong type for the call */

/* Is a raw result an error?  (-4095 .. -1, as Linux's IS_ERR_VALUE.) */
#define SYS_MAX_ERRNO		4095
#define SYS_IS_ERROR(r)		((unsigned long)(r) >= (unsigned long)-SYS_MAX_ERRNO)

#include "ipc.h"

#endif
