/* Task objects and each task's quota and capability space (task.h). */
#include "object/task.h"
#include "object/cspace.h"
#include "object/thread.h"
#include "object/types.h"
#include "object/holds.h"
#include "user/thread.h"
#include <errno.h>

static struct task_obj *to_task_obj(struct kobject *obj)
{
	return container_of(obj, struct task_obj, base);
}

/*
 * A grace period after the last reference, in an RCU callback.  Our
 * reference to the task may be its last -- a task whose spawn failed
 * after its capability was made never ran, so it still has its address
 * space -- and that put may sleep: the reaper drops it.
 */
static void task_release(struct kobject *obj)
{
	struct task_obj *to = to_task_obj(obj);

	if (!to->task)
		return;
	holds_unlink(to, "task", to->task);	/* (the reaper's list holds it now) */
	reaper_put_task(to->task);
}

void task_obj_disarm(struct kobject *obj)
{
	struct task_obj *to = to_task_obj(obj);

	holds_unlink(to, "task", to->task);
	user_task_put(to->task);
	to->task = NULL;
}

static const struct kobj_ops task_ops = {
	.name = "task",
	.size = sizeof(struct task_obj),
	.release = task_release,
};

struct kobject *task_obj_create(struct user_task *t, struct quota *q, int *err)
{
	struct kobject *obj = kobject_create(KOBJ_TASK, q, 0);

	if (!obj) {
		*err = -ENOMEM;
		return NULL;
	}
	user_task_get(t);
	to_task_obj(obj)->task = t;
	holds_link(HOLD_OBJECT, obj, "task", HOLD_TASK, t);
	return obj;
}

int task_objects_init(struct user_task *t, struct quota *q)
{
	if (q)
		quota_get(q);
	else
		q = quota_create(quota_default_bytes());
	t->quota = q;
	if (!t->quota)
		return -ENOMEM;
	t->cspace = cspace_create(t->quota, t);
	if (!t->cspace) {
		quota_put(t->quota);
		t->quota = NULL;
		return -ENOMEM;
	}
	return 0;
}

void task_objects_exit(struct user_task *t)
{
	cspace_destroy(t->cspace);
}

void task_objects_free(struct user_task *t)
{
	if (!t->cspace)
		return;
	if (!t->cspace->dead)
		cspace_destroy(t->cspace);	/* it never ran (SYS_cap_spawn filled it) */
	cspace_free(t->cspace);
	quota_put(t->quota);
}

int object_kill(struct kobject *obj)
{
	if (obj->head.type == KOBJ_TASK) {
		user_task_kill(to_task_obj(obj)->task, SYS_KILLED_BY_TASK);
		return 0;
	}
	return user_thread_kill(container_of(obj, struct thread_obj, base)->ut);
}

int object_wait(struct kobject *obj, struct sys_exit_status *st)
{
	struct user_thread *ut;
	struct user_task *t;
	int ret;

	if (obj->head.type == KOBJ_TASK) {
		t = to_task_obj(obj)->task;
		if (current->user && t == current->user->task)
			return -EDEADLK;	/* it ends after this thread, never before */
		ret = wait_for_completion_killable(&t->done);
		if (!ret)
			*st = t->exit;
		return ret;
	}
	ut = container_of(obj, struct thread_obj, base)->ut;
	if (ut == current->user)
		return -EDEADLK;
	ret = wait_for_completion_killable(&ut->done);
	if (!ret)
		*st = ut->exit;
	return ret;
}

void task_obj_init(void)
{
	kobject_register(KOBJ_TASK, &task_ops);
}
