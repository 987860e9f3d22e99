/*
 * lib/list.h: hlists, the NULL-terminated lists with a one-pointer head.
 * Single-threaded checks of contents, order, pprev links and poison.
 */
#include "list_check.h"

/* Defined at file scope: HLIST_HEAD() must be a single definition. */
static HLIST_HEAD(file_hhead);

static void hfill(struct hlist_head *head, struct hitem *items, int n)
{
	hfill_with(head, items, n, hlist_add_head);
}

KTEST(hlist_init_is_empty)
{
	HLIST_HEAD(a);
	struct hlist_head b = HLIST_HEAD_INIT;
	struct hlist_head c;
	struct hlist_node n;

	INIT_HLIST_HEAD(&c);
	INIT_HLIST_NODE(&n);
	KEXPECT(hlist_empty(&a));
	KEXPECT(hlist_empty(&b));
	KEXPECT(hlist_empty(&c));
	KEXPECT(hlist_empty(&file_hhead));
	KEXPECT(hlist_unhashed(&n));
	KEXPECT(n.next == NULL);
	KEXPECT_EQ(hdigits(&a), 0);
}

KTEST(hlist_add_head_is_lifo)
{
	HLIST_HEAD(head);
	struct hitem it[3] = { { .val = 1 }, { .val = 2 }, { .val = 3 } };

	for (int i = 0; i < 3; i++)
		hlist_add_head(&it[i].node, &head);
	KEXPECT_EQ(hdigits(&head), 321);
	KEXPECT_EQ(bad_pprevs(&head), 0);
	KEXPECT(it[2].node.pprev == &head.first);
	KEXPECT(it[0].node.next == NULL);
	KEXPECT(!hlist_unhashed(&it[0].node));
	KEXPECT(!hlist_empty(&head));
}

KTEST(hlist_add_before_and_behind)
{
	HLIST_HEAD(head);
	struct hitem it[5];

	for (int i = 0; i < 5; i++)
		it[i].val = i + 1;
	hlist_add_head(&it[2].node, &head);		/* 3 */
	hlist_add_before(&it[0].node, &it[2].node);	/* 13: new first */
	hlist_add_behind(&it[4].node, &it[2].node);	/* 135: new last */
	hlist_add_before(&it[1].node, &it[2].node);	/* 1235 */
	hlist_add_behind(&it[3].node, &it[2].node);	/* 12345 */
	KEXPECT_EQ(hdigits(&head), 12345);
	KEXPECT_EQ(bad_pprevs(&head), 0);
	KEXPECT(head.first == &it[0].node);
	KEXPECT(it[4].node.next == NULL);
}

KTEST(hlist_static_head_works)
{
	static struct hitem it[2];

	hfill(&file_hhead, it, 2);
	KEXPECT_EQ(hdigits(&file_hhead), 12);
	hlist_del_init(&it[0].node);
	hlist_del_init(&it[1].node);
	KEXPECT(hlist_empty(&file_hhead));
}

KTEST(hlist_del_unlinks_and_poisons)
{
	HLIST_HEAD(head);
	struct hitem it[4];

	hfill(&head, it, 4);
	hlist_del(&it[1].node);			/* middle */
	KEXPECT_EQ(hdigits(&head), 134);
	KEXPECT_EQ(bad_pprevs(&head), 0);
	KEXPECT(it[1].node.next == LIST_POISON1);
	KEXPECT((void *)it[1].node.pprev == LIST_POISON2);

	hlist_del(&it[0].node);			/* first */
	KEXPECT_EQ(hdigits(&head), 34);
	KEXPECT_EQ(bad_pprevs(&head), 0);
	hlist_del(&it[3].node);			/* last */
	KEXPECT_EQ(hdigits(&head), 3);
	KEXPECT(it[2].node.next == NULL);
	hlist_del(&it[2].node);
	KEXPECT(hlist_empty(&head));
	/* Poisoned, not unhashed: the poison is non-NULL. */
	KEXPECT(!hlist_unhashed(&it[2].node));
}

KTEST(hlist_del_init_makes_unhashed)
{
	HLIST_HEAD(head);
	struct hitem it[3];

	hfill(&head, it, 3);
	hlist_del_init(&it[0].node);
	KEXPECT(hlist_unhashed(&it[0].node));
	KEXPECT(it[0].node.next == NULL);
	KEXPECT_EQ(hdigits(&head), 23);
	KEXPECT_EQ(bad_pprevs(&head), 0);

	/* Again on an unhashed node: nothing changes. */
	hlist_del_init(&it[0].node);
	KEXPECT(hlist_unhashed(&it[0].node));
	KEXPECT_EQ(hdigits(&head), 23);

	/* And it can be added again. */
	hlist_add_behind(&it[0].node, &it[2].node);
	KEXPECT_EQ(hdigits(&head), 231);
	KEXPECT_EQ(bad_pprevs(&head), 0);
}

KTEST(hlist_entry_safe_keeps_null)
{
	struct hitem it = { .val = 4 };
	struct hlist_node *none = NULL;

	KEXPECT(hlist_entry_safe(none, struct hitem, node) == NULL);
	KEXPECT(hlist_entry_safe(&it.node, struct hitem, node) == &it);
	KEXPECT(hlist_entry(&it.node, struct hitem, node) == &it);
}

KTEST(hlist_for_each_visits_nodes)
{
	HLIST_HEAD(head);
	struct hitem it[3];
	struct hlist_node *pos;
	long long n = 0;

	hfill(&head, it, 3);
	hlist_for_each(pos, &head)
		n = n * 10 + hlist_entry(pos, struct hitem, node)->val;
	KEXPECT_EQ(n, 123);
}

KTEST(hlist_for_each_safe_allows_del)
{
	HLIST_HEAD(head);
	struct hitem it[5];
	struct hlist_node *pos, *n;

	hfill(&head, it, 5);
	hlist_for_each_safe(pos, n, &head) {
		if (hlist_entry(pos, struct hitem, node)->val % 2)
			hlist_del(pos);
	}
	KEXPECT_EQ(hdigits(&head), 24);
	KEXPECT_EQ(bad_pprevs(&head), 0);
}

KTEST(hlist_for_each_entry_safe_allows_del)
{
	HLIST_HEAD(head);
	struct hitem it[4];
	struct hitem *pos;
	struct hlist_node *n;
	long long seen = 0;

	hfill(&head, it, 4);
	hlist_for_each_entry_safe(pos, n, &head, node) {
		seen = seen * 10 + pos->val;
		hlist_del(&pos->node);
	}
	KEXPECT_EQ(seen, 1234);
	KEXPECT(hlist_empty(&head));
	KEXPECT(pos == NULL);
}

KTEST(hlist_for_each_entry_on_empty)
{
	HLIST_HEAD(head);
	struct hitem *pos;
	int visits = 0;

	hlist_for_each_entry(pos, &head, node)
		visits++;
	KEXPECT_EQ(visits, 0);
	KEXPECT(pos == NULL);
}
