/*
 * Quotas (quota.h): a limit and a count, charged before every allocation
 * made for a task; quotas carved out of others; and the quota object,
 * which names a quota in a capability.
 */
#include "object/quota.h"
#include "object/object.h"
#include "mm.h"
#include <errno.h>

static int quota_kb = 2048;
KPARAM_INT("cap.quota_kb", quota_kb, 16, 1 << 20);

/*
 * Each task's quota: cap.quota_kb, but never more than an eighth of the
 * memory the kernel has in all, so that on a small machine (MEM=14M has
 * about 3 MiB for the kernel) one task that spends its quota still
 * leaves memory to start and serve the others.
 */
long quota_default_bytes(void)
{
	long most = (long)(page_total_count() * PAGE_SIZE / 8);

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
			quota_uncharge(q->parent, q->limit);
			quota_put(q->parent);
		}
		kfree(q);
	}
}

static bool try_charge(struct quota *q, long bytes)
{
	long used = atomic_long_read(&q->used);

	do {
		if (used + bytes > q->limit)
			return false;
	} while (!atomic_long_try_cmpxchg_relaxed(&q->used, &used, used + bytes));
	if (used + bytes > READ_ONCE(q->peak))
		WRITE_ONCE(q->peak, used + bytes);	/* (a statistic: races may lose a peak) */
	return true;
}

/*
 * What a task deleted stays charged until its grace period ends and it is
 * freed: a task that deletes and creates in a loop can find its quota
 * full of frees still waiting.  Before refusing, wait once for every free
 * queued so far (rcu_barrier()), and look again.  (Every caller may
 * sleep: system calls, cap_mutex held at most.)
 */
bool quota_charge(struct quota *q, long bytes)
{
	if (try_charge(q, bytes))
		return true;
	if (object_frees_pending()) {
		rcu_barrier();
		if (try_charge(q, bytes))
			return true;
	}
	WRITE_ONCE(q->refused, q->refused + 1);	/* (a statistic) */
	return false;
}

void quota_uncharge(struct quota *q, long bytes)
{
	atomic_long_sub(bytes, &q->used);
}

struct quota *quota_carve(struct quota *parent, long bytes)
{
	struct quota *q;

	if (!quota_charge(parent, bytes))
		return NULL;
	q = quota_create(bytes);
	if (!q) {
		quota_uncharge(parent, bytes);
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
