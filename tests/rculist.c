/*
 * lib/rculist.h (through kernel/rcu/rculist.h), single-threaded: each publish/retract/subscribe primitive
 * gives the right contents and order, and retraction leaves exactly the
 * pointers a reader still standing on the node needs (->next) while
 * poisoning the ones only updaters use (->prev, ->pprev).  Concurrency is
 * tested elsewhere, with the real RCU.
 */
#include "list_check.h"

/* Head to tail, walked the way a reader walks. */
static long long rdigits(struct list_head *head)
{
	long long n;

	rcu_read_lock();
	n = digits_along(list_for_each_entry_rcu, struct item, head);
	rcu_read_unlock();
	return n;
}

/* What a reader standing on pos still reaches after it (pos may be off the list). */
static long long rdigits_after(struct item *pos, struct list_head *head)
{
	long long n = 0;

	rcu_read_lock();
	list_for_each_entry_continue_rcu(pos, head, node)
		n = n * 10 + pos->val;
	rcu_read_unlock();
	return n;
}

static long long rhdigits(struct hlist_head *head)
{
	long long n;

	rcu_read_lock();
	n = digits_along(hlist_for_each_entry_rcu, struct hitem, head);
	rcu_read_unlock();
	return n;
}

static void rfill(struct list_head *head, struct item *items, int n)
{
	fill_with(head, items, n, list_add_tail_rcu);
}

static void rhfill(struct hlist_head *head, struct hitem *items, int n)
{
	hfill_with(head, items, n, hlist_add_head_rcu);
}

/*
 * Publication through the list primitives: the element's field, then
 * list_add_rcu() or hlist_add_head_rcu().  Lab publish reads their AArch64
 * instructions (each must publish with a release).
 */
static KTEST_GRADED_SITE void rl_init_and_add(struct item *it, int val, struct list_head *head)
{
	it->val = val;
	list_add_rcu(&it->node, head);
}

static KTEST_GRADED_SITE void rl_init_and_add_hlist(struct hitem *it, int val,
						  struct hlist_head *head)
{
	it->val = val;
	hlist_add_head_rcu(&it->node, head);
}

KTEST(rculist_add_rcu_order)
{
	LIST_HEAD(head);
	struct item it[4] = {
		{ .val = 0 }, { .val = 0 }, { .val = 3 }, { .val = 4 },
	};

	rl_init_and_add(&it[1], 2, &head);	/* 2 */
	rl_init_and_add(&it[0], 1, &head);	/* 12 */
	list_add_tail_rcu(&it[2].node, &head);	/* 123 */
	list_add_tail_rcu(&it[3].node, &head);	/* 1234 */
	KEXPECT_EQ(rdigits(&head), 1234);
	KEXPECT_EQ(digits_rev(&head), 4321);
}

KTEST(rculist_del_rcu_keeps_next_poisons_prev)
{
	LIST_HEAD(head);
	struct item it[4];

	rfill(&head, it, 4);
	list_del_rcu(&it[1].node);
	KEXPECT_EQ(rdigits(&head), 134);
	KEXPECT_EQ(digits_rev(&head), 431);
	KEXPECT(it[1].node.prev == LIST_POISON2);
	/* KASSERT: the walk below follows it. */
	if (it[1].node.next != &it[2].node)
		ktest_info("list_del_rcu() changed the removed element's ->next: a reader "
			   "standing on it when it went could not walk on to the rest of the list");
	KASSERT(it[1].node.next == &it[2].node);

	/* A reader that was on it[1] when it went still finishes its walk. */
	KEXPECT_EQ(rdigits_after(&it[1], &head), 34);
}

KTEST(rculist_replace_rcu_old_still_leads_on)
{
	LIST_HEAD(head);
	struct item it[3];
	struct item repl = { .val = 7 };

	rfill(&head, it, 3);
	list_replace_rcu(&it[1].node, &repl.node);
	KEXPECT_EQ(rdigits(&head), 173);
	KEXPECT_EQ(digits_rev(&head), 371);
	KEXPECT(it[1].node.prev == LIST_POISON2);
	KASSERT(it[1].node.next == &it[2].node);

	/* A reader on the old node rejoins the list after it. */
	KEXPECT_EQ(rdigits_after(&it[1], &head), 3);
}

/* What the fake grace period saw when list_splice_init_rcu() called it. */
static int sync_calls;
static struct list_head *sync_src, *sync_dst;
static bool src_empty_at_sync;
static long long dst_at_sync;

static void counting_sync(void)
{
	sync_calls++;
	src_empty_at_sync = list_empty(sync_src);
	dst_at_sync = rdigits(sync_dst);
}

static void reset_sync(struct list_head *src, struct list_head *dst)
{
	sync_calls = 0;
	sync_src = src;
	sync_dst = dst;
	src_empty_at_sync = false;
	dst_at_sync = -1;
}

typedef void splice_rcu_fn(struct list_head *list, struct list_head *head,
			   void (*sync)(void));

/*
 * Splices a list of n items (789 for n = 3, 89 for 2) into one of 12 with
 * splice, which must wait for a grace period once: after the list is
 * emptied, before the other changes.  The result must read want head to
 * tail and want_rev tail to head.
 */
static void splice_checked(splice_rcu_fn *splice, int n, long long want,
			   long long want_rev)
{
	LIST_HEAD(dst);
	LIST_HEAD(src);
	struct item d[2], s[3];

	KASSERT(n <= 3);
	rfill(&dst, d, 2);
	rfill(&src, s, n);
	for (int i = 0; i < n; i++)
		s[i].val = 10 - n + i;
	reset_sync(&src, &dst);

	splice(&src, &dst, counting_sync);
	KEXPECT_EQ(sync_calls, 1);
	KEXPECT(src_empty_at_sync);
	KEXPECT_EQ(dst_at_sync, 12);
	KEXPECT(list_empty(&src));
	KEXPECT_EQ(rdigits(&dst), want);
	KEXPECT_EQ(digits_rev(&dst), want_rev);
}

KTEST(rculist_splice_init_rcu_waits_once)
{
	splice_checked(list_splice_init_rcu, 3, 78912, 21987);
}

KTEST(rculist_splice_tail_init_rcu_appends)
{
	splice_checked(list_splice_tail_init_rcu, 2, 1289, 9821);
}

KTEST(rculist_splice_init_rcu_empty_skips_sync)
{
	LIST_HEAD(dst);
	LIST_HEAD(src);
	struct item d[2];

	rfill(&dst, d, 2);
	reset_sync(&src, &dst);
	list_splice_init_rcu(&src, &dst, counting_sync);
	list_splice_tail_init_rcu(&src, &dst, counting_sync);
	KEXPECT_EQ(sync_calls, 0);
	KEXPECT_EQ(rdigits(&dst), 12);
}

KTEST(rculist_entry_and_first_or_null)
{
	LIST_HEAD(head);
	struct item it[2];

	rcu_read_lock();
	KEXPECT(list_first_or_null_rcu(&head, struct item, node) == NULL);
	rcu_read_unlock();

	rfill(&head, it, 2);
	rcu_read_lock();
	KEXPECT(list_first_or_null_rcu(&head, struct item, node) == &it[0]);
	KEXPECT(list_entry_rcu(head.next, struct item, node) == &it[0]);
	KEXPECT(list_entry_rcu(it[0].node.next, struct item, node) == &it[1]);
	KEXPECT(list_next_rcu(&head) == &it[0].node);
	KEXPECT(list_next_rcu(&it[1].node) == &head);
	rcu_read_unlock();
}

KTEST(rculist_for_each_entry_rcu_with_cond)
{
	DEFINE_SPINLOCK(lock);
	LIST_HEAD(head);
	struct item it[3];
	struct item *pos;
	long long n = 0;

	rfill(&head, it, 3);
	/* The updater's walk: no rcu_read_lock(), the lock keeps it legal. */
	spin_lock(&lock);
	list_for_each_entry_rcu(pos, &head, node, lockdep_is_held(&lock))
		n = n * 10 + pos->val;
	spin_unlock(&lock);
	KEXPECT_EQ(n, 123);
}

KTEST(rculist_for_each_entry_from_rcu)
{
	LIST_HEAD(head);
	struct item it[4];
	struct item *pos;
	long long n = 0;

	rfill(&head, it, 4);
	rcu_read_lock();
	pos = &it[2];
	list_for_each_entry_from_rcu(pos, &head, node)
		n = n * 10 + pos->val;
	rcu_read_unlock();
	KEXPECT_EQ(n, 34);
	KEXPECT_EQ(rdigits_after(&it[0], &head), 234);
}

KTEST(rculist_hlist_add_head_rcu_order)
{
	HLIST_HEAD(head);
	struct hitem it[3];

	for (int i = 0; i < 3; i++)
		rl_init_and_add_hlist(&it[i], i + 1, &head);
	KEXPECT_EQ(rhdigits(&head), 321);
	KEXPECT_EQ(bad_pprevs(&head), 0);
	KEXPECT(it[0].node.next == NULL);
}

KTEST(rculist_hlist_add_before_behind_after_rcu)
{
	HLIST_HEAD(head);
	/* Zeroed: a misordered add then follows NULLs, not stack garbage. */
	struct hitem it[6] = { 0 };

	for (int i = 0; i < 6; i++)
		it[i].val = i + 1;
	hlist_add_head_rcu(&it[2].node, &head);			/* 3 */
	hlist_add_before_rcu(&it[0].node, &it[2].node);		/* 13 */
	hlist_add_behind_rcu(&it[4].node, &it[2].node);		/* 135 */
	hlist_add_before_rcu(&it[1].node, &it[2].node);		/* 1235 */
	/* The article's name and order: the node already listed first. */
	hlist_add_after_rcu(&it[2].node, &it[3].node);		/* 12345 */
	hlist_add_after_rcu(&it[4].node, &it[5].node);		/* 123456 */
	KEXPECT_EQ(rhdigits(&head), 123456);
	KEXPECT_EQ(bad_pprevs(&head), 0);
	KEXPECT(head.first == &it[0].node);
	KEXPECT(it[5].node.next == NULL);
}

KTEST(rculist_hlist_replace_rcu)
{
	HLIST_HEAD(head);
	struct hitem it[3];
	struct hitem first = { .val = 7 }, last = { .val = 9 };

	rhfill(&head, it, 3);
	hlist_replace_rcu(&it[0].node, &first.node);	/* via head->first */
	KEXPECT_EQ(rhdigits(&head), 723);
	KEXPECT_EQ(bad_pprevs(&head), 0);
	/* Old node: still leads on for a reader on it; pprev poisoned. */
	KEXPECT(it[0].node.next == &it[1].node);
	KEXPECT((void *)it[0].node.pprev == LIST_POISON2);

	hlist_replace_rcu(&it[2].node, &last.node);	/* the last node */
	KEXPECT_EQ(rhdigits(&head), 729);
	KEXPECT_EQ(bad_pprevs(&head), 0);
	KEXPECT(last.node.next == NULL);
	KEXPECT((void *)it[2].node.pprev == LIST_POISON2);
}

KTEST(rculist_hlist_del_rcu_keeps_next)
{
	HLIST_HEAD(head);
	struct hitem it[4];
	struct hitem *pos;
	long long n = 0;

	rhfill(&head, it, 4);
	hlist_del_rcu(&it[1].node);
	KEXPECT_EQ(rhdigits(&head), 134);
	KEXPECT_EQ(bad_pprevs(&head), 0);
	KEXPECT((void *)it[1].node.pprev == LIST_POISON2);
	if (it[1].node.next != &it[2].node)
		ktest_info("hlist_del_rcu() changed the removed node's ->next: a reader "
			   "standing on it when it went could not walk on to the rest of the chain");
	KASSERT(it[1].node.next == &it[2].node);

	/* A reader that was on it[1] goes on to the rest. */
	rcu_read_lock();
	pos = &it[1];
	hlist_for_each_entry_continue_rcu(pos, node)
		n = n * 10 + pos->val;
	rcu_read_unlock();
	KEXPECT_EQ(n, 34);

	hlist_del_rcu(&it[0].node);			/* first */
	hlist_del_rcu(&it[3].node);			/* last */
	KEXPECT_EQ(rhdigits(&head), 3);
	KEXPECT_EQ(bad_pprevs(&head), 0);
	KEXPECT(it[0].node.next == &it[2].node);
}

KTEST(rculist_hlist_del_init_rcu_unhashes)
{
	HLIST_HEAD(head);
	struct hitem it[3];

	rhfill(&head, it, 3);
	hlist_del_init_rcu(&it[1].node);
	KEXPECT(hlist_unhashed(&it[1].node));
	KEXPECT(it[1].node.next == &it[2].node);
	KEXPECT_EQ(rhdigits(&head), 13);
	KEXPECT_EQ(bad_pprevs(&head), 0);

	/* On an unhashed node it does nothing. */
	hlist_del_init_rcu(&it[1].node);
	KEXPECT(hlist_unhashed(&it[1].node));
	KEXPECT_EQ(rhdigits(&head), 13);
}

KTEST(rculist_hlist_accessors)
{
	HLIST_HEAD(head);
	struct hitem it[2];

	rhfill(&head, it, 2);
	KEXPECT(hlist_first_rcu(&head) == &it[0].node);
	KEXPECT(hlist_next_rcu(&it[0].node) == &it[1].node);
	KEXPECT(hlist_next_rcu(&it[1].node) == NULL);
	KEXPECT(hlist_pprev_rcu(&it[0].node) == &it[0].node);
	KEXPECT(hlist_pprev_rcu(&it[1].node) == &it[1].node);
}

KTEST(rculist_hlist_for_each_entry_rcu_walks)
{
	DEFINE_SPINLOCK(lock);
	HLIST_HEAD(head);
	struct hitem it[3];
	struct hitem *pos;
	long long n = 0;
	int visits = 0;

	rcu_read_lock();
	hlist_for_each_entry_rcu(pos, &head, node)
		visits++;
	rcu_read_unlock();
	KEXPECT_EQ(visits, 0);
	KEXPECT(pos == NULL);

	rhfill(&head, it, 3);
	spin_lock(&lock);
	hlist_for_each_entry_rcu(pos, &head, node, lockdep_is_held(&lock))
		n = n * 10 + pos->val;
	spin_unlock(&lock);
	KEXPECT_EQ(n, 123);
	KEXPECT(pos == NULL);
}
