/*
 * Quotas (kernel/object/quota.c): how much kernel memory a task may make
 * the kernel spend on its behalf: its objects, its capability nodes and
 * table, the frames of its memory objects.  Each is charged when it is
 * allocated and returned when it is freed (after its grace period), so a
 * task that creates objects in a loop gets -ENOMEM once its quota is
 * spent while the kernel and every other task go on.
 *
 * A quota is reference-counted: its task holds one, and so does every
 * object charged to it, which may outlive the task (a capability to it
 * held by another task).  Quotas are flat, one per task: a child's is
 * its own, not carved out of its parent's (docs/microkernel.md says why).
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

#endif
