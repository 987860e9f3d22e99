/*
 * What the list tests share (tests/list.c, hlist.c, rculist.c): items
 * whose values 1..9 read as decimal digits, so that one KEXPECT_EQ checks
 * a whole order and prints it on failure (1,2,3 -> 123), and the walks
 * that check the links readers do not use.  Everything here is static: a
 * test file exports nothing.
 */
#ifndef TESTS_LIST_CHECK_H
#define TESTS_LIST_CHECK_H

#include "ktest.h"

struct item {
	int val;
	struct list_head node;
};

struct hitem {
	int val;
	struct hlist_node node;
};

/*
 * The values met by walk (an iterator such as list_for_each_entry or
 * hlist_for_each_entry_rcu) over head's items of type, as one number.
 */
#define digits_along(walk, type, head) ({				\
	type *__it;							\
	long long __n = 0;						\
									\
	walk(__it, head, node)						\
		__n = __n * 10 + __it->val;				\
	__n;								\
})

/* Head to tail. */
static inline long long digits(struct list_head *head)
{
	return digits_along(list_for_each_entry, struct item, head);
}

/* Tail to head: checks every prev pointer, which only updaters use. */
static inline long long digits_rev(struct list_head *head)
{
	return digits_along(list_for_each_entry_reverse, struct item, head);
}

/* First to last. */
static inline long long hdigits(struct hlist_head *head)
{
	return digits_along(hlist_for_each_entry, struct hitem, head);
}

/*
 * Counts nodes whose pprev does not point at the pointer that leads to
 * them; 0 for a well-formed list.  Only hlist updaters use pprev, so
 * order checks alone would miss a broken one.
 */
static inline int bad_pprevs(struct hlist_head *head)
{
	struct hlist_node **link = &head->first;
	struct hlist_node *pos;
	int bad = 0;

	hlist_for_each(pos, head) {
		if (pos->pprev != link)
			bad++;
		link = &pos->next;
	}
	return bad;
}

/* Sets items[i].val = i + 1 and appends them in that order with add_tail. */
static inline void fill_with(struct list_head *head, struct item *items, int n,
			     void (*add_tail)(struct list_head *, struct list_head *))
{
	for (int i = 0; i < n; i++) {
		items[i].val = i + 1;
		add_tail(&items[i].node, head);
	}
}

/* Sets items[i].val = i + 1 and links them in that order with add_head. */
static inline void hfill_with(struct hlist_head *head, struct hitem *items, int n,
			      void (*add_head)(struct hlist_node *, struct hlist_head *))
{
	for (int i = n - 1; i >= 0; i--) {
		items[i].val = i + 1;
		add_head(&items[i].node, head);
	}
}

#endif
