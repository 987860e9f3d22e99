/*
 * Task objects (kernel/object/task.c): a user task (kernel/user/task.h)
 * as capabilities name it -- to kill it (SYS_CAP_WRITE), wait for it
 * (SYS_CAP_READ) -- and the objects every task has: its quota and its
 * capability space, made with the task and emptied when it ends.
 */
#ifndef KERNEL_OBJECT_TASK_H
#define KERNEL_OBJECT_TASK_H

#include "object/object.h"

struct user_task;
struct sys_exit_status;

struct task_obj {
	struct kobject base;
	struct user_task *task;		/* with a reference */
};

/*
 * kernel/user/task.c's hooks: the task is made -- spending from q, or
 * from a new quota of its own if q is NULL (a task the kernel starts) --,
 * ends (its space empties), is freed.
 */
int task_objects_init(struct user_task *t, struct quota *q);
void task_objects_exit(struct user_task *t);
void task_objects_free(struct user_task *t);

/*
 * A task object that never got a capability, for a task that never
 * started: drops its reference now, in the caller's context (the task's
 * last put may sleep: it frees its address space), not in the object's
 * RCU callback.
 */
void task_obj_disarm(struct kobject *obj);

/* SYS_obj_kill and SYS_obj_wait on a task or thread object. */
int object_kill(struct kobject *obj);
int object_wait(struct kobject *obj, struct sys_exit_status *st);

void task_obj_init(void);

#endif
