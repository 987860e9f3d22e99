/* System calls on tasks: exit, abort, the task's id, waiting for a child (spawning: sys_cap.c). */
#include "user/syscalls.h"
#include <errno.h>

long sys_exit(const struct syscall_args *a)
{
	int status = arg_int(a->arg[0]);

	user_task_exit(current_user_task(), status);
	user_thread_exit(status);
}

long sys_abort(const struct syscall_args *a)
{
	struct user_task *t = current_user_task();

	(void)a;
	printk("user: %s[%d]: abort() in thread %d: killed\n", t->name, t->id,
	       current->user->tid);
	user_task_kill(t, SYS_KILLED_ABORT);
	user_thread_exit(0);
}

long sys_task_id(const struct syscall_args *a)
{
	(void)a;
	return current_user_task()->id;
}

/* (id, struct sys_exit_status *): a task this one spawned. */
long sys_task_wait(const struct syscall_args *a)
{
	struct sys_exit_status st = { 0 };
	uintptr_t ust = a->arg[1];
	struct user_task *child;
	int ret;

	if (put_user(st, ust))		/* before waiting: a bad pointer fails now */
		return -EFAULT;
	child = user_task_find(arg_int(a->arg[0]));
	if (!child)
		return -ESRCH;
	ret = READ_ONCE(child->parent) == current_user_task() ? 0 : -ECHILD;
	if (!ret)
		ret = wait_for_completion_killable(&child->done);
	if (!ret)
		ret = user_task_collect(child, current_user_task(), &st);
	user_task_put(child);
	if (!ret && put_user(st, ust))
		return -EFAULT;
	return ret;
}
