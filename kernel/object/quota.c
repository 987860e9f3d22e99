/* Quotas (quota.h): a limit and a count, charged before every allocation made for a task. */
#include "object/quota.h"
#include "object/object.h"
#include "mm.h"

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
