/*
 * "What is RCU, Fundamentally?" (McKenney & Walpole), checked against the
 * real RCU of this kernel with readers on other CPUs: Quick Quizzes 4 and
 * 5.  When the lock covers only the removal, several deleters wait in
 * synchronize_rcu() at once, so one reader can see more than two versions
 * of the list within a single critical section.
 *
 * Everything is counted in events.  Time appears only as generous budgets
 * that end a wait when something already went wrong, never as a threshold
 * that decides success.
 */
#include "ktest.h"
#include "rcu_article.h"

struct qnode {
	struct list_head list;
	int key;
	int b;
	int c;
};

#define QQ_KEYS		6	/* keys 1..6 */
#define QQ_DELETERS	4	/* delete keys 2..5, one each */

static LIST_HEAD(qq_head);
static DEFINE_SPINLOCK(qq_lock);
static atomic_t qq_inflight;	/* between list_del_rcu() and kfree() */
static atomic_t qq_max_inflight;
static atomic_t qq_removed;
static atomic_t qq_failures;	/* a deleter's own checks */
static int qq_versions;		/* distinct versions the holder has seen */

/* The holder's view: its one critical section over all the deletions. */
static int qq_holder_bad;	/* malformed walks */
static int qq_holder_broken;	/* held removed elements that changed */
static unsigned int qq_masks[QQ_DELETERS + 2];

static void qq_note_max(int v)
{
	int old = atomic_read(&qq_max_inflight);

	while (v > old && !atomic_try_cmpxchg(&qq_max_inflight, &old, v))
		;
}

/* Quick Quiz 4's answer: the lock covers the removal, not the grace period. */
static int qq_deleter_fn(void *arg)
{
	int i = (int)(uintptr_t)arg, key = i + 2;
	struct qnode *p = NULL, *pos;
	u64 t0 = ktime_get_ns();

	/* One removal per version the holder has seen: V0, then V1, ... */
	while (smp_load_acquire(&qq_versions) < i + 1 && budget_left(t0))
		cond_resched();
	if (smp_load_acquire(&qq_versions) < i + 1) {
		atomic_inc(&qq_failures);
		return -1;
	}

	spin_lock(&qq_lock);
	list_for_each_entry_rcu(pos, &qq_head, list, lockdep_is_held(&qq_lock)) {
		if (pos->key == key) {
			p = pos;
			break;
		}
	}
	if (!p) {
		spin_unlock(&qq_lock);
		atomic_inc(&qq_failures);
		return -1;
	}
	list_del_rcu(&p->list);
	qq_note_max(atomic_inc_return(&qq_inflight));
	atomic_inc(&qq_removed);
	spin_unlock(&qq_lock);

	synchronize_rcu();

	if (p->key != key || p->b != 2 * key || p->c != 3 * key ||
	    ptr_poisoned(p->list.next))
		atomic_inc(&qq_failures);
	atomic_dec(&qq_inflight);
	kfree(p);
	return 0;
}

/*
 * A walk that reads each ->next once and checks it before following it,
 * so a freed element (an RCU bug) is counted, not dereferenced.  Returns
 * the mask of keys present; records the elements seen in held[].
 */
static unsigned int qq_walk(struct qnode **held)
{
	struct list_head *n = rcu_dereference(list_next_rcu(&qq_head));
	unsigned int mask = 0;
	int last = 0, steps = 0;

	while (n != &qq_head) {
		struct qnode *q;
		int key;

		if (ptr_poisoned(n) || ++steps > QQ_KEYS) {
			qq_holder_bad++;
			return mask;
		}
		q = list_entry(n, struct qnode, list);
		key = READ_ONCE(q->key);
		if (key <= last || key > QQ_KEYS || READ_ONCE(q->b) != 2 * key ||
		    READ_ONCE(q->c) != 3 * key) {
			qq_holder_bad++;
			return mask;
		}
		last = key;
		mask |= 1u << key;
		held[key] = q;
		n = rcu_dereference(list_next_rcu(n));
	}
	return mask;
}

/*
 * The long-lived reader: one critical section, busy-waiting with udelay(),
 * across every deletion.  Each new version it sees lets the next deleter
 * go, so it sees all QQ_DELETERS + 1 of them, and it keeps pointers to the
 * removed elements, which must all stay intact until it leaves.
 */
static int qq_holder_fn(void *arg)
{
	struct qnode *held[QQ_KEYS + 1] = { NULL };
	unsigned int last = 0;
	int versions = 0;
	u64 t0 = ktime_get_ns();

	(void)arg;
	rcu_read_lock();
	for (;;) {
		unsigned int mask = qq_walk(held);

		if (mask != last) {
			if (versions < (int)ARRAY_SIZE(qq_masks))
				qq_masks[versions] = mask;
			versions++;
			last = mask;
			smp_store_release(&qq_versions, versions);
		}
		if ((versions >= QQ_DELETERS + 1 &&
		     atomic_read(&qq_removed) == QQ_DELETERS) || !budget_left(t0))
			break;
		udelay(10);
	}
	/* Keep the old versions alive a little longer, then check them. */
	mdelay(2);
	for (int key = 2; key < 2 + QQ_DELETERS; key++) {
		struct qnode *q = held[key];

		if (!q || READ_ONCE(q->key) != key || READ_ONCE(q->b) != 2 * key ||
		    READ_ONCE(q->c) != 3 * key || ptr_poisoned(READ_ONCE(q->list.next)))
			qq_holder_broken++;
	}
	rcu_read_unlock();
	return versions;
}

KTEST(rcu_quick_quiz4_more_than_two_versions)
{
	static struct workers deleters;
	struct task_struct *holder;
	int ncpu = num_online_cpus(), hcpu = -1, cpu, versions;
	int dcpus[QQ_DELETERS];
	struct qnode *pos, *tmp;
	LIST_HEAD(dead);

	if (ncpu < 2)
		KTEST_SKIP("needs two CPUs");

	/* The holder takes the last CPU; the deleters share the others. */
	for_each_online_cpu(cpu)
		hcpu = cpu;
	for (int i = 0; i < QQ_DELETERS; i++)
		dcpus[i] = i % hcpu;

	INIT_LIST_HEAD(&qq_head);
	for (int key = 1; key <= QQ_KEYS; key++) {
		struct qnode *q = kmalloc(sizeof(*q), GFP_KERNEL);

		KASSERT(q != NULL);
		q->key = key;
		q->b = 2 * key;
		q->c = 3 * key;
		spin_lock(&qq_lock);
		list_add_tail_rcu(&q->list, &qq_head);
		spin_unlock(&qq_lock);
	}
	atomic_set(&qq_inflight, 0);
	atomic_set(&qq_max_inflight, 0);
	atomic_set(&qq_removed, 0);
	atomic_set(&qq_failures, 0);
	WRITE_ONCE(qq_versions, 0);
	qq_holder_bad = 0;
	qq_holder_broken = 0;
	memset(qq_masks, 0, sizeof(qq_masks));

	holder = kthread_run_on_cpu(qq_holder_fn, NULL, hcpu, "qq_holder");
	KEXPECT(holder != NULL);
	KEXPECT(workers_start_on(&deleters, dcpus, QQ_DELETERS, qq_deleter_fn, NULL, 0,
				 "qq_deleter"));

	versions = holder ? kthread_stop(holder) : 0;
	KEXPECT_EQ(workers_stop(&deleters), 0);

	spin_lock(&qq_lock);
	list_for_each_entry_safe(pos, tmp, &qq_head, list)
		list_move(&pos->list, &dead);
	spin_unlock(&qq_lock);
	synchronize_rcu();
	list_for_each_entry_safe(pos, tmp, &dead, list)
		kfree(pos);

	ktest_info("holder on CPU%d saw %d versions in one critical section; up to %d deleters in synchronize_rcu() at once",
		   hcpu, versions, atomic_read(&qq_max_inflight));
	for (int v = 0; v < versions && v < (int)ARRAY_SIZE(qq_masks); v++)
		ktest_info("  version %d: keys mask %#x", v, qq_masks[v]);

	/* Quick Quiz 4: >= 3 removed-but-not-freed elements at one moment. */
	KEXPECT(atomic_read(&qq_max_inflight) >= 3);
	KEXPECT_EQ(atomic_read(&qq_max_inflight), QQ_DELETERS);
	/* Quick Quiz 5: one reader saw them all as versions of the list. */
	KEXPECT_EQ(versions, QQ_DELETERS + 1);
	/* V0 is the whole list; each later one lacks one more key, in turn. */
	KEXPECT_EQ(qq_masks[0], ((1u << (QQ_KEYS + 1)) - 1) & ~1u);
	for (int v = 1; v < versions && v < (int)ARRAY_SIZE(qq_masks); v++)
		KEXPECT_EQ(qq_masks[v], qq_masks[v - 1] & ~(1u << (v + 1)));
	KEXPECT_EQ(qq_holder_bad, 0);
	KEXPECT_EQ(qq_holder_broken, 0);
	KEXPECT_EQ(atomic_read(&qq_failures), 0);
	KEXPECT_EQ(atomic_read(&qq_inflight), 0);
}
