/*
 * Every RCU list primitive that publishes (kernel/rcu/rculist.h) makes an
 * element reachable only once the link a reader follows from it is set:
 * a reader must never find an element whose ->next is not yet written.
 * On this host no run shows the order (x86-64 keeps stores in order, and
 * TCG runs an AArch64 guest's nearly so), so the checking build looks at
 * the moment of publication instead: rcu_assign_pointer() calls a seam
 * (rcu_publish_hook) just before its release store, and the test's hook
 * checks there that the element's link already holds what the primitive
 * will leave in it.  Each new element's links start stale (SEEN_STALE),
 * so setting one after the publication shows.  A primitive that publishes
 * with a plain store, not rcu_assign_pointer(), never reaches the seam,
 * and fails too: its publication orders nothing on AArch64.  (The same
 * order on ARMv8's memory model: tools/model/armv8/list_replace.wmm.)
 */
#include "list_check.h"

#define SEEN_STALE	((void *)0x5eedUL)	/* a new element's links, before the primitive */

/* What the hook waits for: `elem` published, with *link == want by then. */
static struct {
	const void *elem;
	void *const *link;
	const void *want;
	int published, unset;
	const void *found;
} pub;

static void pub_hook(const void *where, const void *p)
{
	(void)where;
	if (p != pub.elem)
		return;		/* (another publication, anywhere in the kernel) */
	pub.published++;
	pub.found = READ_ONCE(*pub.link);
	if (pub.found != pub.want)
		pub.unset++;
}

static void pub_expect(const void *elem, void *const *link, const void *want)
{
	pub.elem = elem;
	pub.link = link;
	pub.want = want;
	pub.published = pub.unset = 0;
}

/* After the primitive: published exactly once, through rcu_assign_pointer(), its link set. */
static void pub_check(const char *what)
{
	if (pub.published != 1 || pub.unset)
		ktest_info("%s: %d publication%s through rcu_assign_pointer()%s", what,
			   pub.published, pub.published == 1 ? "" : "s",
			   pub.unset ? ", the element's link not yet set then" : "");
	KEXPECT_EQ(pub.published, 1);
	KEXPECT_EQ(pub.unset, 0);
	pub.elem = NULL;
}

static void stale_list(struct item *it, int val)
{
	it->val = val;
	it->node.next = SEEN_STALE;
	it->node.prev = SEEN_STALE;
}

static void stale_hlist(struct hitem *it, int val)
{
	it->val = val;
	it->node.next = SEEN_STALE;
	it->node.pprev = SEEN_STALE;
}

static void no_sync(void)
{
	/* the spliced list has no reader here */
}

static void lists(void)
{
	struct item it[3], n, s[2];
	LIST_HEAD(head);
	LIST_HEAD(src);

	for (int i = 0; i < 3; i++) {
		it[i].val = i + 1;
		list_add_tail(&it[i].node, &head);		/* 123 */
	}
	stale_list(&n, 4);
	pub_expect(&n.node, (void *const *)&n.node.next, &it[0].node);
	list_add_rcu(&n.node, &head);
	pub_check("list_add_rcu()");
	KEXPECT_EQ(digits(&head), 4123);
	list_del(&n.node);

	stale_list(&n, 5);
	pub_expect(&n.node, (void *const *)&n.node.next, &head);
	list_add_tail_rcu(&n.node, &head);
	pub_check("list_add_tail_rcu()");
	KEXPECT_EQ(digits(&head), 1235);
	list_del(&n.node);

	stale_list(&n, 6);
	pub_expect(&n.node, (void *const *)&n.node.next, &it[2].node);
	list_replace_rcu(&it[1].node, &n.node);
	pub_check("list_replace_rcu()");
	KEXPECT_EQ(digits(&head), 163);
	KEXPECT_EQ(digits_rev(&head), 361);

	/* The splices publish the moved chain's first element, its last already linked on. */
	for (int tail = 0; tail < 2; tail++) {
		s[0].val = 7;
		s[1].val = 8;
		list_add_tail(&s[0].node, &src);
		list_add_tail(&s[1].node, &src);
		pub_expect(&s[0].node, (void *const *)&s[1].node.next,
			   tail ? &head : head.next);
		if (tail)
			list_splice_tail_init_rcu(&src, &head, no_sync);
		else
			list_splice_init_rcu(&src, &head, no_sync);
		pub_check(tail ? "list_splice_tail_init_rcu()" : "list_splice_init_rcu()");
		KEXPECT_EQ(digits(&head), tail ? 16378 : 78163);
		KEXPECT(list_empty(&src));
		list_del(&s[0].node);
		list_del(&s[1].node);
	}
}

static void hlists(void)
{
	struct hitem it[2], n;
	HLIST_HEAD(head);

	for (int i = 1; i >= 0; i--) {
		it[i].val = i + 1;
		hlist_add_head(&it[i].node, &head);		/* 12 */
	}
	stale_hlist(&n, 3);
	pub_expect(&n.node, (void *const *)&n.node.next, &it[0].node);
	hlist_add_head_rcu(&n.node, &head);
	pub_check("hlist_add_head_rcu()");
	KEXPECT_EQ(hdigits(&head), 312);
	hlist_del(&n.node);

	stale_hlist(&n, 4);
	pub_expect(&n.node, (void *const *)&n.node.next, &it[1].node);
	hlist_add_before_rcu(&n.node, &it[1].node);
	pub_check("hlist_add_before_rcu()");
	KEXPECT_EQ(hdigits(&head), 142);
	hlist_del(&n.node);

	stale_hlist(&n, 5);
	pub_expect(&n.node, (void *const *)&n.node.next, NULL);
	hlist_add_behind_rcu(&n.node, &it[1].node);
	pub_check("hlist_add_behind_rcu()");
	KEXPECT_EQ(hdigits(&head), 125);
	hlist_del(&n.node);

	stale_hlist(&n, 6);
	pub_expect(&n.node, (void *const *)&n.node.next, &it[1].node);
	hlist_replace_rcu(&it[0].node, &n.node);
	pub_check("hlist_replace_rcu()");
	KEXPECT_EQ(hdigits(&head), 62);
	KEXPECT_EQ(bad_pprevs(&head), 0);
}

KTEST(rcu_lists_publish_only_elements_already_linked)
{
	static int x;
	static int *probe;

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no seam in rcu_assign_pointer()");
	WRITE_ONCE(rcu_publish_hook, pub_hook);
	pub_expect(&x, (void *const *)&probe, NULL);
	rcu_assign_pointer(probe, &x);
	if (!pub.published) {
		WRITE_ONCE(rcu_publish_hook, NULL);
		KTEST_SKIP("rcu_assign_pointer() calls no rcu_publish_hook (lab publish's own?)");
	}
	pub.elem = NULL;
	lists();
	hlists();
	WRITE_ONCE(rcu_publish_hook, NULL);
	synchronize_rcu();	/* no CPU is still in the hook */
}
