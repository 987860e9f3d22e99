/*
 * The article's Quick Quiz 3, the answer shown happening: why the old
 * hlist_for_each_entry_rcu() took two cursors, and today's form walking a
 * hash table of hlists while a reader looks keys up and the updater uses
 * every hlist primitive of the article's table: hlist_del_rcu(),
 * hlist_add_head_rcu(), hlist_replace_rcu(), hlist_add_before_rcu() and
 * hlist_add_behind_rcu().
 */
#include "demo.h"

#define QQ3_BUCKETS	8
#define QQ3_KEYS	12

struct hfoo {
	int key;
	int a, b, c;
	struct hlist_node node;		/* not first: container_of(NULL) is not NULL */
};

static struct hlist_head qq3_table[QQ3_BUCKETS];
static DEFINE_SPINLOCK(qq3_lock);

static struct qq3_reader {
	long lookups, found, missed_stable, torn;
} qq3_reader;
static struct workers qq3_workers;	/* the one reader */

/* A reader's lookup, today's three-argument form. */
static struct hfoo *qq3_lookup(int key)
{
	struct hfoo *p;

	hlist_for_each_entry_rcu(p, &qq3_table[key % QQ3_BUCKETS], node)
		if (READ_ONCE(p->key) == key)
			return p;
	return NULL;
}

static int qq3_reader_fn(void *arg)
{
	struct qq3_reader *r = arg;
	u64 burst = ktime_get_ns();
	int key = 1;

	while (!kthread_should_stop()) {
		struct hfoo *p;

		rcu_read_lock();
		p = qq3_lookup(key);
		if (p && READ_ONCE(p->a) == key)	/* whole: the old 9 or the new one */
			r->found++;
		else if (p)
			r->torn++;
		else if (key != 5 && key != 13)	/* the only keys that come and go */
			r->missed_stable++;
		rcu_read_unlock();
		key = key % (QQ3_KEYS + 1) + 1;
		WRITE_ONCE(r->lookups, r->lookups + 1);
		worker_pause(&burst);
	}
	return 0;
}

static struct hfoo *qq3_new(int key, int b, int c)
{
	struct hfoo *p = kmalloc(sizeof(*p), GFP_KERNEL);

	if (p) {
		p->key = key;
		p->a = key, p->b = b, p->c = c;
	}
	return p;
}

/* The element of key, for the updater (under qq3_lock). */
static struct hfoo *qq3_find(int key)
{
	struct hfoo *p;

	hlist_for_each_entry(p, &qq3_table[key % QQ3_BUCKETS], node)
		if (p->key == key)
			return p;
	return NULL;
}

static struct hfoo *qq3_add(int key)
{
	struct hfoo *p = qq3_new(key, key + 1, key + 2);

	if (!p)
		return NULL;
	spin_lock(&qq3_lock);
	hlist_add_head_rcu(&p->node, &qq3_table[key % QQ3_BUCKETS]);
	spin_unlock(&qq3_lock);
	return p;
}

static void qq3_show_buckets(void)
{
	rcu_read_lock();
	for (int b = 0; b < QQ3_BUCKETS; b++) {
		char line[160];
		size_t len = 0;
		struct hfoo *p;

		demo_fmt(line, sizeof(line), &len, "bucket %d:", b);
		hlist_for_each_entry_rcu(p, &qq3_table[b], node)
			demo_fmt(line, sizeof(line), &len, " -> %d,%d,%d", p->a, p->b, p->c);
		demo_fmt(line, sizeof(line), &len, " -> NULL");
		demo_say("%s", line);
	}
	rcu_read_unlock();
}

/*
 * The rest of the article's hlist table, live: replace key 9 with a new
 * version, and put keys 17 and 25 (same bucket) before and behind it.
 * Key 9 is never missing for the reader: the replacement publishes the
 * new element in the old one's place with a single pointer store.
 */
static void qq3_more_primitives(void)
{
	struct hfoo *old9, *new9 = qq3_new(9, 90, 91), *k17 = qq3_new(17, 18, 19);
	struct hfoo *k25 = qq3_new(25, 26, 27);

	if (!new9 || !k17 || !k25) {
		demo_fail("out of memory");
		kfree(new9);
		kfree(k17);
		kfree(k25);
		return;
	}
	spin_lock(&qq3_lock);
	old9 = qq3_find(9);
	if (old9) {
		hlist_replace_rcu(&old9->node, &new9->node);
		hlist_add_before_rcu(&k17->node, &new9->node);
		hlist_add_behind_rcu(&k25->node, &new9->node);
	}
	spin_unlock(&qq3_lock);
	if (!old9) {
		demo_fail("key 9 is not in the table");
		kfree(new9);
		kfree(k17);
		kfree(k25);
		return;
	}
	synchronize_rcu();	/* lookups that found 9,10,11 are over */
	kfree(old9);
	demo_say("9,10,11 replaced by 9,90,91 in place; 17 added before it, 25 behind it:");
}

DEMO(qq3_hlist, "Quick Quiz 3: why hlist_for_each_entry_rcu() once took two pointers")
{
	struct hfoo *p, *gone, *doomed[QQ3_KEYS + 3];	/* + 13, 17, 25 - 5 */
	struct hlist_node *n;
	int ndoomed = 0;
	long walked_new = 0, walked_old = 0;

	demo_step("Quick Quiz 3: why two pointers for hlist_for_each_entry_rcu()?");
	demo_say("The article's (2007) form kept a struct hlist_node cursor besides the entry:");
	demo_code("hlist_for_each_entry_rcu(tpos, pos, head, member)\n"
		  "  for (pos = rcu_dereference((head)->first);\n"
		  "       pos && ({ tpos = hlist_entry(pos, typeof(*tpos), member); 1; });\n"
		  "       pos = rcu_dereference(pos->next))");
	demo_say("A circular list ends where the walk comes back to the head, which the");
	demo_say("entry cursor can be compared with.  An hlist ends with NULL, and the entry");
	demo_say("of a NULL node is not NULL: here container_of(NULL, struct hfoo, node) is");
	demo_say("%p.  So the end test needed the node pointer.  Linux 3.9 (2013) answered",
		 (void *)((char *)NULL - offsetof(struct hfoo, node)));
	demo_say("the article's challenge with hlist_entry_safe(), which maps NULL to NULL:");
	demo_code("hlist_for_each_entry_rcu(pos, head, member)     /* lib/rculist.h */\n"
		  "  for (pos = hlist_entry_safe(rcu_dereference(head->first), ...);\n"
		  "       pos;\n"
		  "       pos = hlist_entry_safe(rcu_dereference(pos->member.next), ...))");

	demo_step("A hash table of %d hlist buckets, keys 1..%d, walked with the new form",
		  QQ3_BUCKETS, QQ3_KEYS);
	for (int b = 0; b < QQ3_BUCKETS; b++)
		INIT_HLIST_HEAD(&qq3_table[b]);
	for (int k = 1; k <= QQ3_KEYS; k++)
		if (!qq3_add(k))
			demo_fail("out of memory");
	qq3_show_buckets();

	/* Both forms visit the same elements. */
	rcu_read_lock();
	for (int b = 0; b < QQ3_BUCKETS; b++) {
		struct hlist_node *pos;
		struct hfoo *tpos;

		hlist_for_each_entry_rcu(p, &qq3_table[b], node)
			walked_new++;
		for (pos = rcu_dereference(qq3_table[b].first);
		     pos && ({ tpos = hlist_entry(pos, struct hfoo, node); 1; });
		     pos = rcu_dereference(pos->next))
			walked_old += tpos->key > 0;
	}
	rcu_read_unlock();
	demo_say("the two-cursor walk written out by hand visits %ld elements, the new form "
		 "%ld", walked_old, walked_new);
	if (walked_old != walked_new || walked_new != QQ3_KEYS)
		demo_fail("the walks disagree");

	demo_step("hlist_del_rcu() and hlist_add_head_rcu() while a reader looks keys up");
	memset(&qq3_reader, 0, sizeof(qq3_reader));
	workers_start_others(&qq3_workers, 1, qq3_reader_fn, &qq3_reader, 0, "qq3_reader");
	msleep(10);
	spin_lock(&qq3_lock);
	gone = NULL;
	hlist_for_each_entry(p, &qq3_table[5 % QQ3_BUCKETS], node)
		if (p->key == 5)
			gone = p;
	if (gone)
		hlist_del_rcu(&gone->node);
	spin_unlock(&qq3_lock);
	synchronize_rcu();
	kfree(gone);
	if (!qq3_add(13))
		demo_fail("out of memory");
	msleep(20);
	demo_say("removed key 5 (hlist_del_rcu(), synchronize_rcu(), kfree()), added key 13:");
	qq3_show_buckets();

	demo_step("hlist_replace_rcu(), hlist_add_before_rcu(), hlist_add_behind_rcu(), "
		  "the reader still looking");
	demo_code("spin_lock(&lock);\n"
		  "hlist_replace_rcu(&old9->node, &new9->node);    /* 9,10,11 -> 9,90,91 */\n"
		  "hlist_add_before_rcu(&k17->node, &new9->node);  /* 17 before it */\n"
		  "hlist_add_behind_rcu(&k25->node, &new9->node);  /* 25 behind it */\n"
		  "spin_unlock(&lock);\n"
		  "synchronize_rcu();\n"
		  "kfree(old9);");
	qq3_more_primitives();
	msleep(20);
	workers_stop(&qq3_workers);
	qq3_show_buckets();
	demo_say("reader on CPU%d: %ld lookups, %ld hits, %ld torn elements, %ld misses of "
		 "keys nobody removed", qq3_workers.cpu[0], qq3_reader.lookups, qq3_reader.found,
		 qq3_reader.torn, qq3_reader.missed_stable);
	if (qq3_reader.missed_stable)
		demo_fail("a lookup missed a key that was never removed");
	if (qq3_reader.torn)
		demo_fail("a lookup found an element that was not whole");

	spin_lock(&qq3_lock);
	for (int b = 0; b < QQ3_BUCKETS; b++) {
		hlist_for_each_entry_safe(p, n, &qq3_table[b], node) {
			hlist_del_rcu(&p->node);
			if (ndoomed < (int)ARRAY_SIZE(doomed))
				doomed[ndoomed++] = p;
		}
	}
	spin_unlock(&qq3_lock);
	synchronize_rcu();
	while (ndoomed)
		kfree(doomed[--ndoomed]);
}
