/*
 * Quotas (quota.h): a limit and a count, charged before every allocation
 * made for a task; quotas carved out of others; and the quota object,
 * which names a quota in a capability.
 */
#include "object/quota.h"
#include "object/object.h"
#include "mm.h"
#include "syscall.h"
#include <errno.h>

/*
 * A task the kernel starts pays for everything it and its children make
 * the kernel spend: its program (about 80 KiB), its first stack (128 KiB),
 * each thread's stack and kernel stack (64 + 20 KiB), page tables, heap,
 * capabilities.  Measured peaks of make test's programs (x86-64, SMP=4):
 * most 250 to 800 KiB, newlib's test 1.4 MiB (its 1 MiB malloc),
 * captorture 1.7 MiB -- and about 5 MiB at SMP=16, where it runs three
 * threads per CPU.  8 MiB leaves room over that.
 */
static int quota_kb = 8192;
KPARAM_INT("cap.quota_kb", quota_kb, 16, 1 << 20);

/*
 * Each task's quota: cap.quota_kb, but never more than half the memory
 * the kernel has in all, so that one task that spends its quota still
 * leaves the other half to start and serve the others.  (A quarter was
 * too little at make test's least memory: AArch64's MEM=15M leaves the
 * kernel 4 MiB, and captorture at SMP=4 needs 1.7 of it.)
 */
long quota_default_bytes(void)
{
	long most = (long)(page_total_count() * PAGE_SIZE / 2);

	return min((long)quota_kb * 1024, most);
}

struct quota *quota_create(long limit)
{
	struct quota *q = kzalloc(sizeof(*q), GFP_KERNEL);

	if (!q)
		return NULL;
	atomic_set(&q->refs, 1);
	q->limit = limit;
	return q;
}

void quota_get(struct quota *q)
{
	atomic_inc(&q->refs);
}

void quota_put(struct quota *q)
{
	/* [quota_put_dec] pairs [quota_put_dec]: the last put frees after every holder's charges. */
	if (atomic_dec_and_test(&q->refs)) {
		if (atomic_long_read(&q->used))
			panic("BUG: freeing a quota with %ld bytes still charged",
			      atomic_long_read(&q->used));
		if (q->parent) {	/* what it was carved out of gets it back */
			quota_uncharge(q->parent, QUOTA_SHARES, q->limit);
			quota_put(q->parent);
		}
		kfree(q);
	}
}

/*
 * quota.inject=NAME: the faults the quota tests must catch (CI runs each
 * as an expected failure).
 */
static bool inject_uncharged_pages, inject_reclaim_locked;

static bool set_inject(const struct kparam *p, const char *val)
{
	(void)p;
	if (!strcmp(val, "uncharged_pages"))
		inject_uncharged_pages = true;
	else if (!strcmp(val, "reclaim_locked"))
		inject_reclaim_locked = true;
	else
		return false;
	return true;
}

KPARAM_CALL("quota.inject", set_inject,
	    "'uncharged_pages' (the user pages a task maps are charged to nobody) or "
	    "'reclaim_locked' (a charge refused under cap_mutex or mm->lock waits there for a grace period)");

bool quota_pages_uncharged(void)
{
	return CONFIG_RCU_CHECKING && inject_uncharged_pages;
}

static bool quota_reclaim_locked(void)
{
	return CONFIG_RCU_CHECKING && inject_reclaim_locked;
}

void (*quota_reclaim_hook)(struct quota *q);

static bool charge_now(struct quota *q, enum quota_kind kind, long bytes)
{
	long used = atomic_long_read(&q->used);

	do {
		if (used + bytes > q->limit) {
			WRITE_ONCE(q->refused, q->refused + 1);	/* (a statistic) */
			return false;
		}
	} while (!atomic_long_try_cmpxchg_relaxed(&q->used, &used, used + bytes));
	atomic_long_add(bytes, &q->kind[kind]);
	if (used + bytes > READ_ONCE(q->peak))
		WRITE_ONCE(q->peak, used + bytes);	/* (a statistic: races may lose a peak) */
	return true;
}

void quota_free_queued(struct quota *q)
{
	atomic_inc(&q->frees_queued);
}

void quota_free_done(struct quota *q)
{
	atomic_dec(&q->frees_queued);
}

/*
 * What a task deleted stays charged until its grace period ends and it is
 * freed: a task that deletes and creates in a loop can find its quota
 * full of frees still waiting.  If any of q's are queued, wait once for
 * every free queued so far (rcu_barrier()), and say so; another quota's
 * frees are no reason to wait.  Never with a lock held: every task that
 * wants the lock would wait for the grace period too (a full quota would
 * stall every capability update behind cap_mutex).
 */
bool quota_reclaim(struct quota *q)
{
	if (CONFIG_RCU_CHECKING && current->mutexes_held && !quota_reclaim_locked())
		panic("BUG: %s waits for a grace period to reclaim its quota with %d mutex%s held: "
		      "every task that wants %s waits too (let go, reclaim, try again)",
		      current->comm, current->mutexes_held,
		      current->mutexes_held == 1 ? "" : "es",
		      current->mutexes_held == 1 ? "it" : "them");
	if (CONFIG_RCU_CHECKING && quota_reclaim_hook)
		quota_reclaim_hook(q);
	if (!atomic_read(&q->frees_queued))
		return false;
	rcu_barrier();
	return true;
}

bool quota_retry_after_reclaim(long err, struct quota *q, bool *retried)
{
	if (err != -ENOMEM || *retried || !q)
		return false;
	*retried = true;
	return quota_reclaim(q);
}

bool quota_charge(struct quota *q, enum quota_kind kind, long bytes)
{
	if (charge_now(q, kind, bytes))
		return true;
	return quota_reclaim(q) && charge_now(q, kind, bytes);
}

bool quota_try_charge(struct quota *q, enum quota_kind kind, long bytes)
{
	if (quota_reclaim_locked())
		return quota_charge(q, kind, bytes);	/* fault injection: waits, lock and all */
	return charge_now(q, kind, bytes);
}

void quota_uncharge(struct quota *q, enum quota_kind kind, long bytes)
{
	atomic_long_sub(bytes, &q->kind[kind]);
	atomic_long_sub(bytes, &q->used);
}

void quota_report(struct quota *q, struct sys_quota_info *info)
{
	long *kinds[NR_QUOTA_KINDS] = {
		[QUOTA_OBJECTS] = &info->objects, [QUOTA_SHARES] = &info->shares,
		[QUOTA_TASKS] = &info->tasks, [QUOTA_THREADS] = &info->threads,
		[QUOTA_PAGES] = &info->pages, [QUOTA_TABLES] = &info->tables,
	};

	info->limit = q->limit;
	info->used = atomic_long_read(&q->used);
	info->peak = READ_ONCE(q->peak);
	info->refused = READ_ONCE(q->refused);
	for (int k = 0; k < NR_QUOTA_KINDS; k++)
		*kinds[k] = atomic_long_read(&q->kind[k]);
}

struct quota *quota_carve(struct quota *parent, long bytes)
{
	struct quota *q;

	if (!quota_charge(parent, QUOTA_SHARES, bytes))
		return NULL;
	q = quota_create(bytes);
	if (!q) {
		quota_uncharge(parent, QUOTA_SHARES, bytes);
		return NULL;
	}
	quota_get(parent);
	q->parent = parent;
	return q;
}

/* The quota object: a capability's name for a quota it does not own. */
struct quota_obj {
	struct kobject base;
	struct quota *q;		/* with a reference */
};

/* The most SYS_cap_create(SYS_OBJ_QUOTA) carves at once: cap.quota_kb's own limit. */
#define QUOTA_CARVE_MAX_KB	(1 << 20)

static struct quota_obj *to_quota_obj(struct kobject *obj)
{
	return container_of(obj, struct quota_obj, base);
}

struct quota *quota_of(struct kobject *obj)
{
	return to_quota_obj(obj)->q;
}

/* A grace period after the last reference: tasks and objects still charged to q keep it. */
static void quota_obj_release(struct kobject *obj)
{
	quota_put(to_quota_obj(obj)->q);
}

static void quota_obj_describe(struct kobject *obj, char *buf, size_t size)
{
	struct quota *q = quota_of(obj);

	snprintf(buf, size, "%ld of %ld KiB used", atomic_long_read(&q->used) / 1024,
		 q->limit / 1024);
}

static const struct kobj_ops quota_obj_ops = {
	.name = "quota",
	.size = sizeof(struct quota_obj),
	.release = quota_obj_release,
	.describe = quota_obj_describe,
};

struct kobject *quota_obj_create(struct quota *charge_to, struct quota *q, int *err)
{
	struct kobject *obj = kobject_create(KOBJ_QUOTA, charge_to, 0);

	if (!obj) {
		*err = -ENOMEM;
		return NULL;
	}
	quota_get(q);
	to_quota_obj(obj)->q = q;
	return obj;
}

struct kobject *quota_obj_carve(struct quota *from, long kib, int *err)
{
	struct kobject *obj;
	struct quota *q;

	if (kib < 1 || kib > QUOTA_CARVE_MAX_KB) {
		*err = -EINVAL;
		return NULL;
	}
	q = quota_carve(from, kib * 1024);
	if (!q) {
		*err = -ENOMEM;
		return NULL;
	}
	obj = quota_obj_create(from, q, err);
	quota_put(q);		/* (the object holds its own) */
	return obj;
}

void quota_obj_init(void)
{
	kobject_register(KOBJ_QUOTA, &quota_obj_ops);
}
