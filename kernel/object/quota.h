/*
 * Quotas (kernel/object/quota.c): how much memory a task may make the
 * kernel spend on its behalf -- every page: its objects, its capability
 * nodes and table, the frames of its memory objects, the quotas carved
 * out of it, its own structures, each thread's kernel stack, every user
 * page it maps (SYS_map, stacks, program images) and the page tables
 * that map them.  Each is charged when it is allocated and returned when
 * it is freed (an object after its grace period), so a task that
 * allocates in a loop gets -ENOMEM once its quota is spent while the
 * kernel and every other task go on.
 *
 * A quota is reference-counted: each task spending from it holds one,
 * and so does every object charged to it, which may outlive the task (a
 * capability to it held by another task).  A task the kernel starts gets
 * a quota of its own (quota_default_bytes()); a task another task spawns
 * spends from the quota its parent names: the parent's own, or one the
 * parent carved out of its own (quota_carve()) and passes by capability
 * -- a quota object, the second half of this file (docs/microkernel.md,
 * "Quotas" says why).
 *
 * Two ways to charge.  quota_charge() may wait for a grace period (what
 * was deleted stays charged until it is freed, a grace period later):
 * for callers that hold nothing.  quota_try_charge() never waits: for
 * callers that hold a lock others need (cap_mutex, mm->lock); refused, such
 * a caller lets go of its lock, calls quota_reclaim() and tries once more.
 */
#ifndef KERNEL_OBJECT_QUOTA_H
#define KERNEL_OBJECT_QUOTA_H

#include "kernel.h"

/* What a charge pays for: SYS_quota_info and the monitor's ps report each (lib/ipc.h). */
enum quota_kind {
	QUOTA_OBJECTS,		/* kernel objects, capability nodes and tables, memory objects' frames */
	QUOTA_SHARES,		/* quotas carved out of it (their whole limit) */
	QUOTA_TASKS,		/* each task's own structures: the task, its address space */
	QUOTA_THREADS,		/* each thread's kernel half: kernel stack and its guard, task_struct */
	QUOTA_PAGES,		/* user pages: SYS_map's, thread stacks, program images */
	QUOTA_TABLES,		/* the page tables that map them */
	NR_QUOTA_KINDS
};

struct quota {
	atomic_t refs;
	atomic_long_t used;		/* bytes charged now */
	atomic_long_t kind[NR_QUOTA_KINDS];	/* used, by what it pays for (reports) */
	long limit;			/* bytes */
	long peak;			/* the most ever charged (reports) */
	unsigned long refused;		/* charges refused (reports, tests) */
	atomic_t frees_queued;		/* frees of what is charged here, waiting for a grace period */
	struct quota *parent;		/* carved out of it: limit bytes stay charged there (a reference) */
};

/* Every task's quota unless its creator asked for less: cap.quota_kb= (KiB). */
long quota_default_bytes(void);

struct quota *quota_create(long limit);
void quota_get(struct quota *q);
void quota_put(struct quota *q);
/*
 * Charges bytes for kind: true, or false (nothing charged) if the quota
 * would be exceeded even once the frees waiting for a grace period have
 * run.  May wait for a grace period: the caller holds no lock (the
 * checking build panics if it holds a mutex).
 */
bool quota_charge(struct quota *q, enum quota_kind kind, long bytes);
/*
 * The same, never waiting: false if it does not fit now.  (But under
 * quota.inject=reclaim_locked, which makes it wait, lock and all, as
 * every charge once did: the fault tests/quota_stall.c must catch.)
 */
bool quota_try_charge(struct quota *q, enum quota_kind kind, long bytes);
void quota_uncharge(struct quota *q, enum quota_kind kind, long bytes);
/*
 * After a quota_try_charge() refused under a lock, with the lock let go:
 * if frees of what is charged to q are queued, waits for them and returns
 * true (the charge may fit now: try once more).  Holds up nothing but the
 * caller.
 */
bool quota_reclaim(struct quota *q);
/*
 * The whole dance, for a call that held a lock while it charged and got
 * err: should it run once more?  Only once (*retried), only for -ENOMEM,
 * and only if quota_reclaim(q) waited for frees; q NULL (the kernel's
 * own tasks): never.  The caller has let go of its lock.
 */
bool quota_retry_after_reclaim(long err, struct quota *q, bool *retried);
/* What is charged to q is queued to be freed after a grace period; then it is freed. */
void quota_free_queued(struct quota *q);
void quota_free_done(struct quota *q);
/* For tests: called by quota_reclaim() before it waits (checking build). */
extern void (*quota_reclaim_hook)(struct quota *q);
/* quota.inject=uncharged_pages: user pages are charged to nobody (the fault tests must catch). */
bool quota_pages_uncharged(void);
/* Its limit and counts, as SYS_quota_info tells them (a snapshot: charges may land meanwhile). */
struct sys_quota_info;
void quota_report(struct quota *q, struct sys_quota_info *info);
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
