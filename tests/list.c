/*
 * lib/list.h: the circular doubly linked list.  Single-threaded checks of
 * contents, order (both directions) and poison values.
 */
#include "list_check.h"

/* Defined at file scope: LIST_HEAD() must be a single definition. */
static LIST_HEAD(file_head);

static void fill(struct list_head *head, struct item *items, int n)
{
	fill_with(head, items, n, list_add_tail);
}

KTEST(list_init_is_empty)
{
	LIST_HEAD(a);
	struct list_head b;

	INIT_LIST_HEAD(&b);
	KEXPECT(list_empty(&a));
	KEXPECT(list_empty(&b));
	KEXPECT(list_empty(&file_head));
	KEXPECT(a.next == &a && a.prev == &a);
	KEXPECT(b.next == &b && b.prev == &b);
	KEXPECT_EQ(list_count_nodes(&a), 0);
	KEXPECT(list_first_entry_or_null(&a, struct item, node) == NULL);
	KEXPECT(!list_is_singular(&a));
}

KTEST(list_add_is_lifo)
{
	LIST_HEAD(head);
	struct item it[3] = { { .val = 1 }, { .val = 2 }, { .val = 3 } };

	for (int i = 0; i < 3; i++)
		list_add(&it[i].node, &head);
	KEXPECT_EQ(digits(&head), 321);
	KEXPECT_EQ(digits_rev(&head), 123);
	KEXPECT_EQ(list_count_nodes(&head), 3);
}

KTEST(list_add_tail_is_fifo)
{
	LIST_HEAD(head);
	struct item it[3];

	fill(&head, it, 3);
	KEXPECT_EQ(digits(&head), 123);
	KEXPECT_EQ(digits_rev(&head), 321);
	KEXPECT(!list_empty(&head));
}

KTEST(list_static_head_works)
{
	static struct item it[2];

	fill(&file_head, it, 2);
	KEXPECT_EQ(digits(&file_head), 12);
	list_del_init(&it[0].node);
	list_del_init(&it[1].node);
	KEXPECT(list_empty(&file_head));
}

KTEST(list_del_unlinks_and_poisons)
{
	LIST_HEAD(head);
	struct item it[3];

	fill(&head, it, 3);
	list_del(&it[1].node);
	KEXPECT_EQ(digits(&head), 13);
	KEXPECT_EQ(digits_rev(&head), 31);
	KEXPECT(it[1].node.next == LIST_POISON1);
	KEXPECT(it[1].node.prev == LIST_POISON2);

	/* Poison must not look like NULL or like each other. */
	KEXPECT(LIST_POISON1 != NULL);
	KEXPECT(LIST_POISON2 != NULL);
	KEXPECT(LIST_POISON1 != LIST_POISON2);

	list_del(&it[0].node);
	list_del(&it[2].node);
	KEXPECT(list_empty(&head));
}

KTEST(list_del_init_makes_empty_node)
{
	LIST_HEAD(head);
	struct item it[3];

	fill(&head, it, 3);
	list_del_init(&it[0].node);
	KEXPECT(list_empty(&it[0].node));
	KEXPECT_EQ(digits(&head), 23);
	KEXPECT_EQ(digits_rev(&head), 32);

	/* Reusable at once. */
	list_add_tail(&it[0].node, &head);
	KEXPECT_EQ(digits(&head), 231);
}

KTEST(list_replace_takes_the_place)
{
	LIST_HEAD(head);
	struct item it[3];
	struct item repl = { .val = 7 };

	fill(&head, it, 3);
	list_replace(&it[1].node, &repl.node);
	KEXPECT_EQ(digits(&head), 173);
	KEXPECT_EQ(digits_rev(&head), 371);
}

KTEST(list_replace_init_empties_old)
{
	LIST_HEAD(head);
	struct item it[1];
	struct item repl = { .val = 5 };

	fill(&head, it, 1);
	list_replace_init(&it[0].node, &repl.node);
	KEXPECT_EQ(digits(&head), 5);
	KEXPECT(list_empty(&it[0].node));
	KEXPECT(list_is_singular(&head));
}

KTEST(list_move_between_lists)
{
	LIST_HEAD(a);
	LIST_HEAD(b);
	struct item it[4];

	fill(&a, it, 4);
	list_move(&it[2].node, &b);		/* a: 124  b: 3 */
	list_move(&it[3].node, &b);		/* a: 12   b: 43 */
	list_move_tail(&it[0].node, &b);	/* a: 2    b: 431 */
	KEXPECT_EQ(digits(&a), 2);
	KEXPECT_EQ(digits(&b), 431);
	KEXPECT_EQ(digits_rev(&b), 134);

	/* Within one list: move to the end rotates. */
	list_move_tail(&it[3].node, &b);
	KEXPECT_EQ(digits(&b), 314);
	list_move(&it[3].node, &b);
	KEXPECT_EQ(digits(&b), 431);
}

KTEST(list_first_last_singular)
{
	LIST_HEAD(head);
	struct item it[3];

	fill(&head, it, 1);
	KEXPECT(list_is_singular(&head));
	KEXPECT(list_is_first(&it[0].node, &head));
	KEXPECT(list_is_last(&it[0].node, &head));

	list_add_tail(&it[1].node, &head);
	list_add_tail(&it[2].node, &head);
	it[1].val = 2;
	it[2].val = 3;
	KEXPECT(!list_is_singular(&head));
	KEXPECT(list_is_first(&it[0].node, &head));
	KEXPECT(!list_is_last(&it[0].node, &head));
	KEXPECT(!list_is_first(&it[1].node, &head));
	KEXPECT(!list_is_last(&it[1].node, &head));
	KEXPECT(list_is_last(&it[2].node, &head));
}

KTEST(list_entry_accessors)
{
	LIST_HEAD(head);
	struct item it[3];

	fill(&head, it, 3);
	KEXPECT(list_entry(&it[1].node, struct item, node) == &it[1]);
	KEXPECT(list_first_entry(&head, struct item, node) == &it[0]);
	KEXPECT(list_last_entry(&head, struct item, node) == &it[2]);
	KEXPECT(list_first_entry_or_null(&head, struct item, node) == &it[0]);
	KEXPECT(list_next_entry(&it[0], node) == &it[1]);
	KEXPECT(list_prev_entry(&it[2], node) == &it[1]);
	KEXPECT(list_entry_is_head(list_next_entry(&it[2], node), &head, node));
}

KTEST(list_splice_to_front)
{
	LIST_HEAD(a);
	LIST_HEAD(b);
	struct item x[2], y[3];

	fill(&a, x, 2);				/* a: 12 */
	fill(&b, y, 3);
	y[0].val = 7; y[1].val = 8; y[2].val = 9; /* b: 789 */
	list_splice(&b, &a);
	KEXPECT_EQ(digits(&a), 78912);
	KEXPECT_EQ(digits_rev(&a), 21987);
	KEXPECT_EQ(list_count_nodes(&a), 5);
}

KTEST(list_splice_tail_to_end)
{
	LIST_HEAD(a);
	LIST_HEAD(b);
	struct item x[2], y[2];

	fill(&a, x, 2);				/* a: 12 */
	fill(&b, y, 2);
	y[0].val = 8; y[1].val = 9;		/* b: 89 */
	list_splice_tail(&b, &a);
	KEXPECT_EQ(digits(&a), 1289);
	KEXPECT_EQ(digits_rev(&a), 9821);
}

KTEST(list_splice_init_empties_source)
{
	LIST_HEAD(a);
	LIST_HEAD(b);
	struct item x[2], y[2];

	fill(&a, x, 2);
	fill(&b, y, 2);
	y[0].val = 8; y[1].val = 9;
	list_splice_init(&b, &a);
	KEXPECT(list_empty(&b));
	KEXPECT_EQ(digits(&a), 8912);

	list_splice_tail_init(&a, &b);
	KEXPECT(list_empty(&a));
	KEXPECT_EQ(digits(&b), 8912);
	KEXPECT_EQ(digits_rev(&b), 2198);
}

KTEST(list_splice_of_empty_changes_nothing)
{
	LIST_HEAD(a);
	LIST_HEAD(empty);
	struct item x[2];

	fill(&a, x, 2);
	list_splice(&empty, &a);
	list_splice_tail(&empty, &a);
	list_splice_init(&empty, &a);
	list_splice_tail_init(&empty, &a);
	KEXPECT_EQ(digits(&a), 12);
	KEXPECT_EQ(digits_rev(&a), 21);
	KEXPECT(list_empty(&empty));
}

KTEST(list_for_each_visits_nodes)
{
	LIST_HEAD(head);
	struct item it[3];
	struct list_head *pos;
	long long n = 0;

	fill(&head, it, 3);
	list_for_each(pos, &head)
		n = n * 10 + list_entry(pos, struct item, node)->val;
	KEXPECT_EQ(n, 123);
}

KTEST(list_for_each_safe_allows_del)
{
	LIST_HEAD(head);
	struct item it[5];
	struct list_head *pos, *n;

	fill(&head, it, 5);
	list_for_each_safe(pos, n, &head) {
		if (list_entry(pos, struct item, node)->val % 2 == 0)
			list_del(pos);
	}
	KEXPECT_EQ(digits(&head), 135);
	KEXPECT_EQ(digits_rev(&head), 531);
}

KTEST(list_for_each_entry_safe_allows_del)
{
	LIST_HEAD(head);
	struct item it[5];
	struct item *pos, *n;
	long long seen = 0;

	fill(&head, it, 5);
	list_for_each_entry_safe(pos, n, &head, node) {
		seen = seen * 10 + pos->val;
		if (pos->val != 3)
			list_del(&pos->node);
	}
	KEXPECT_EQ(seen, 12345);
	KEXPECT_EQ(digits(&head), 3);
	KEXPECT(list_is_singular(&head));
}

KTEST(list_for_each_entry_continue_starts_after)
{
	LIST_HEAD(head);
	struct item it[4];
	struct item *pos = &it[1];
	long long n = 0;

	fill(&head, it, 4);
	list_for_each_entry_continue(pos, &head, node)
		n = n * 10 + pos->val;
	KEXPECT_EQ(n, 34);
	KEXPECT(list_entry_is_head(pos, &head, node));

	/* From the first entry: everything but it. */
	n = 0;
	pos = &it[0];
	list_for_each_entry_continue(pos, &head, node)
		n = n * 10 + pos->val;
	KEXPECT_EQ(n, 234);
}

KTEST(list_count_nodes_counts)
{
	LIST_HEAD(head);
	struct item it[7];

	fill(&head, it, 7);
	KEXPECT_EQ(list_count_nodes(&head), 7);
	list_del(&it[4].node);
	KEXPECT_EQ(list_count_nodes(&head), 6);
}
