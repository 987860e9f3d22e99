/*
 * The constructors of each kind of object (their files), as cap.c's
 * SYS_cap_create calls them: the new object with one reference (the
 * creator's), charged to q; or NULL and *err.
 */
#ifndef KERNEL_OBJECT_TYPES_H
#define KERNEL_OBJECT_TYPES_H

#include "object/object.h"

struct user_task;

struct kobject *endpoint_create(struct quota *q, int *err);
struct kobject *notification_create(struct quota *q, int *err);
struct kobject *memory_create(struct quota *q, long npages, int *err);
struct kobject *task_obj_create(struct user_task *t, struct quota *q, int *err);
/* (thread_obj_of_tid(): thread.h) */

#endif
