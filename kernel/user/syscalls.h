/*
 * The system-call handlers (kernel/user/sys_*.c), as the table in
 * syscall.c calls them.  Each decodes and checks its arguments first
 * (every pointer through uaccess.h, every number against its range) and
 * only then acts, in the manner of seL4's decode/invoke split: a handler
 * that got past its checks does not fail half-way on bad input.
 */
#ifndef KERNEL_USER_SYSCALLS_H
#define KERNEL_USER_SYSCALLS_H

#include "user/thread.h"
#include "user/uaccess.h"
#include "user/user.h"
#include <asm/syscall.h>

#define SYSCALL_MAX_ARGS	6

struct syscall_args {
	unsigned long arg[SYSCALL_MAX_ARGS];
};

typedef long (*syscall_fn)(const struct syscall_args *a);

/* sys_task.c */
long sys_exit(const struct syscall_args *a);
long sys_abort(const struct syscall_args *a);
long sys_task_id(const struct syscall_args *a);
long sys_task_wait(const struct syscall_args *a);
/* sys_thread.c */
long sys_thread_create(const struct syscall_args *a);
long sys_thread_exit(const struct syscall_args *a);
long sys_thread_wait(const struct syscall_args *a);
long sys_thread_id(const struct syscall_args *a);
long sys_set_tls(const struct syscall_args *a);
/* sys_sched.c */
long sys_yield(const struct syscall_args *a);
long sys_sleep(const struct syscall_args *a);
long sys_clock(const struct syscall_args *a);
long sys_set_cpu(const struct syscall_args *a);
long sys_cpu(const struct syscall_args *a);
long sys_nr_cpus(const struct syscall_args *a);
/* membarrier.c */
long sys_membarrier(const struct syscall_args *a);
/* sys_mem.c */
long sys_map(const struct syscall_args *a);
long sys_unmap(const struct syscall_args *a);
/* sys_console.c */
long sys_console_write(const struct syscall_args *a);
/* sys_cap.c: capabilities, memory objects, tasks and threads by capability */
long sys_cap_create(const struct syscall_args *a);
long sys_cap_copy(const struct syscall_args *a);
long sys_cap_mint(const struct syscall_args *a);
long sys_cap_move(const struct syscall_args *a);
long sys_cap_delete(const struct syscall_args *a);
long sys_cap_revoke(const struct syscall_args *a);
long sys_cap_inspect(const struct syscall_args *a);
long sys_mem_map(const struct syscall_args *a);
long sys_mem_unmap(const struct syscall_args *a);
long sys_cap_spawn(const struct syscall_args *a);
long sys_program_name(const struct syscall_args *a);
long sys_quota_info(const struct syscall_args *a);
long sys_obj_kill(const struct syscall_args *a);
long sys_obj_wait(const struct syscall_args *a);
/* sys_ipc.c: endpoints and notifications */
long sys_ipc_send(const struct syscall_args *a);
long sys_ipc_call(const struct syscall_args *a);
long sys_ipc_recv(const struct syscall_args *a);
long sys_ipc_reply(const struct syscall_args *a);
long sys_ipc_reply_recv(const struct syscall_args *a);
long sys_ipc_recv_slot(const struct syscall_args *a);
long sys_ntf_signal(const struct syscall_args *a);
long sys_ntf_wait(const struct syscall_args *a);
long sys_ntf_poll(const struct syscall_args *a);
long sys_irq_bind(const struct syscall_args *a);
long sys_irq_ack(const struct syscall_args *a);
long sys_dev_map(const struct syscall_args *a);
long sys_console_lines(const struct syscall_args *a);
long sys_console_push(const struct syscall_args *a);

/* console.c */
void user_console_write(struct user_task *t, const char *buf, size_t n);
void user_console_flush(struct user_task *t);	/* any partial line the task left */

static inline struct user_task *current_user_task(void)
{
	return current->user->task;
}

/*
 * A user int argument: the low 32 bits, sign-extended (as the C ABI
 * passes an int; the upper half of the register is not the caller's
 * to set).  Every argument lib/syscall.h declares int -- capability
 * slots, types, rights, flags, CPUs, ids -- is taken through this.
 */
static inline int arg_int(unsigned long v)
{
	return (int)(unsigned int)v;
}

#endif
