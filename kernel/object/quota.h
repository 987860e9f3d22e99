/*
 * Quotas (kernel/object/quota.c): how much kernel memory a task may make
 * the kernel spend on its behalf: its objects, its capability nodes and
 * table, the frames of its memory objects.  Each is charged when it is
 * allocated and returned when it is freed (after its grace period), so a
 * task that creates objects in a loop gets -ENOMEM once its quota is
 * spent while the kernel and every other task go on.
 *
 * A quota is reference-counted: each task spending from it holds one,
 * and so does every object charged to it, which may outlive the task (a
 * capability to it held by another task).  A task the kernel starts gets
 * a quota of its own (quota_default_bytes()); a task another task spawns
 * spends from the quota its parent names: the parent's own, or one the
 * parent carved out of its own (quota_carve()) and passes by capability
 * -- a quota object, the second half of this file (docs/microkernel.md,
 * "Quotas" says why).
 */
#ifndef KERNEL_OBJECT_QUOTA_H
#define KERNEL_OBJECT_QUOTA_H

#include "kernel.h"

struct quota {
	atomic_t refs;
	atomic_long_t used;		/* bytes charged now */
	long limit;			/* bytes */
	long peak;			/* the most ever charged (reports) */
	unsigned long refused;		/* charges refused (reports, tests) */
	struct quota *parent;		/* carved out of it: limit bytes stay charged there (a reference) */
};

/* Every task's quota unless its creator asked for less: cap.quota_kb= (KiB). */
long quota_default_bytes(void);

struct quota *quota_create(long limit);
void quota_get(struct quota *q);
void quota_put(struct quota *q);
/*
 * Charges bytes: true, or false (nothing charged) if the quota would be
 * exceeded even once the frees waiting for a grace period have run.  May
 * sleep.
 */
bool quota_charge(struct quota *q, long bytes);
void quota_uncharge(struct quota *q, long bytes);
/*
 * A new quota of `bytes`, charged to parent until the new one is freed
 * (its last object and task gone): NULL if parent cannot afford it, or
 * no memory.  May sleep.
 */
struct quota *quota_carve(struct quota *parent, long bytes);

/* Quota objects: a quota as a capability names it (SYS_OBJ_QUOTA; quota.c). */
struct kobject;
/* An object naming q, charged to charge_to; NULL and *err. */
struct kobject *quota_obj_create(struct quota *charge_to, struct quota *q, int *err);
/* SYS_cap_create(SYS_OBJ_QUOTA, slot, kib): a quota of kib KiB carved out of from. */
struct kobject *quota_obj_carve(struct quota *from, long kib, int *err);
struct quota *quota_of(struct kobject *obj);
void quota_obj_init(void);

#endif
