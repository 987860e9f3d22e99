/* System calls on threads: create, exit, wait, the thread's id and its thread pointer. */
#include "user/syscalls.h"
#include <errno.h>

/*
 * A thread pointer: 0 or a user address (x86-64: canonical, or wrmsr
 * faults).  (Found by the fuzzer: access_ok(tls, 0) also took USER_TOP,
 * the end of user space, which is no user address.)
 */
static bool tls_valid(uintptr_t tls)
{
	return !tls || user_addr(tls);
}

/* (entry, arg, tls, cpu) */
long sys_thread_create(const struct syscall_args *a)
{
	uintptr_t entry = a->arg[0], arg = a->arg[1], tls = a->arg[2];
	int cpu = arg_int(a->arg[3]);

	if (!tls_valid(tls))
		return -EINVAL;
	return user_thread_create(current_user_task(), entry, arg, 0, tls, cpu);
}

long sys_thread_exit(const struct syscall_args *a)
{
	user_thread_exit(arg_int(a->arg[0]));
}

/* (tid, struct sys_exit_status *) */
long sys_thread_wait(const struct syscall_args *a)
{
	struct sys_exit_status st = { 0 };
	uintptr_t ust = a->arg[1];
	int ret;

	if (put_user(st, ust))
		return -EFAULT;
	ret = user_thread_wait(arg_int(a->arg[0]), &st);
	if (!ret && put_user(st, ust))
		return -EFAULT;
	return ret;
}

long sys_thread_id(const struct syscall_args *a)
{
	(void)a;
	return current->user->tid;
}

long sys_set_tls(const struct syscall_args *a)
{
	uintptr_t tls = a->arg[0];

	if (!tls_valid(tls))
		return -EINVAL;
	current->user->tls = tls;
	arch_set_tls(tls);
	return 0;
}
