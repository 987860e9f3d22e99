/*
 * The article's six Quick Quizzes, each answer shown happening:
 *   qq1_seqlock   seqlock readers retry while RCU readers get work done
 *   qq2_add_race  a reader racing list_add_rcu() never faults
 *   qq3_hlist     why the old hlist_for_each_entry_rcu() took two cursors
 *   qq45_versions more than two versions of a list at once
 *   qq6_cost      what an updater costs the readers (and what TCG measures)
 */
#include "demo.h"

#define MAX_READERS	2
#define WAIT_MS		3000

static u32 qq_rand(u32 *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 16;
}

/* ------------------------------------------------------------------ */
/* Quick Quiz 1: seqlock versus RCU                                     */
/* ------------------------------------------------------------------ */

/*
 * A tiny seqlock over type-stable data: the protected pointer always
 * points into sq_pool, which is never freed, so a reader racing a writer
 * may read a slot being rewritten (and will retry) but never freed memory.
 */
struct sq_data {
	int a, b, c;
};

static struct sq_data sq_pool[4];
static struct sq_data *sq_ptr = &sq_pool[0];
static unsigned int sq_seq;
static DEFINE_SPINLOCK(sq_lock);

static unsigned int sq_read_begin(void)
{
	unsigned int s;

	while ((s = READ_ONCE(sq_seq)) & 1)	/* a writer is in: wait */
		cpu_relax();
	smp_rmb();
	return s;
}

static bool sq_read_retry(unsigned int s)
{
	smp_rmb();
	return READ_ONCE(sq_seq) != s;
}

/* The RCU side: the same values, in kmalloc'd objects freed after a grace period. */
struct rq_data {
	int a, b, c;
	struct rcu_head rh;
};

static struct rq_data __rcu *rq_ptr;
static DEFINE_SPINLOCK(rq_lock);

static struct qq1_reader {
	struct task_struct *task;
	int cpu;
	long seq_tries, seq_retries, seq_useful, seq_bad;
	long rcu_passes, rcu_bad;
} qq1_readers[MAX_READERS];

#define QQ1_WORK_US	3	/* the "work" a reader does with the values */

static int qq1_reader_fn(void *arg)
{
	struct qq1_reader *r = arg;
	u64 burst = ktime_get_ns();

	while (!kthread_should_stop()) {
		struct sq_data *sp;
		struct rq_data *rp;
		unsigned int s;
		int a, b, c;

		/* One seqlock read: begin, work, retry if a writer came by. */
		for (;;) {
			s = sq_read_begin();
			sp = READ_ONCE(sq_ptr);
			a = READ_ONCE(sp->a);
			udelay(QQ1_WORK_US);
			b = READ_ONCE(sp->b);
			c = READ_ONCE(sp->c);
			r->seq_tries++;
			if (!sq_read_retry(s))
				break;
			r->seq_retries++;	/* the work above is thrown away */
		}
		if (b != 2 * a || c != 3 * a)
			r->seq_bad++;
		r->seq_useful++;

		/* One RCU read: it always finishes with a consistent snapshot. */
		rcu_read_lock();
		rp = rcu_dereference(rq_ptr);
		a = READ_ONCE(rp->a);
		udelay(QQ1_WORK_US);
		b = READ_ONCE(rp->b);
		c = READ_ONCE(rp->c);
		rcu_read_unlock();
		if (b != 2 * a || c != 3 * a)
			r->rcu_bad++;
		WRITE_ONCE(r->rcu_passes, r->rcu_passes + 1);
		demo_reader_pause(&burst);
	}
	return 0;
}

#define QQ1_MS		300
#define QQ1_WRITE_US	20	/* a writer stays this long in its write section */

DEMO(qq1_seqlock, "Quick Quiz 1: seqlock readers retry, RCU readers get work done")
{
	int cpus[MAX_READERS], n = demo_reader_cpus(cpus, MAX_READERS);
	long tries = 0, retries = 0, useful = 0, rpasses = 0, bad = 0;
	struct rq_data *rp, *old;
	unsigned int slot = 0;
	long writes = 0;
	u64 t0;

	demo_step("Quick Quiz 1: doesn't seqlock also let readers and updaters run concurrently?");
	demo_code("do {                                  /* seqlock reader */\n"
		  "        seq = read_seqbegin(&lock);\n"
		  "        do_something_with(p->a, p->b, p->c);\n"
		  "} while (read_seqretry(&lock, seq)); /* a writer came: redo */");
	demo_say("Readers alternate one seqlock read and one RCU read of the same kind of");
	demo_say("data (a,2a,3a) while this CPU updates both as fast as it can for %d ms.",
		 QQ1_MS);
	demo_say("The seqlock protects a pointer into a static pool that is never freed");
	demo_say("(type-stable memory), so a reader that races a writer reads a slot being");
	demo_say("rewritten and retries, but never follows a pointer into freed memory.");

	for (size_t i = 0; i < ARRAY_SIZE(sq_pool); i++)
		sq_pool[i] = (struct sq_data){ 1, 2, 3 };
	sq_ptr = &sq_pool[0];
	rp = kmalloc(sizeof(*rp), GFP_KERNEL);
	if (!rp) {
		demo_fail("out of memory");
		return;
	}
	rp->a = 1, rp->b = 2, rp->c = 3;
	RCU_INIT_POINTER(rq_ptr, rp);
	memset(qq1_readers, 0, sizeof(qq1_readers));
	for (int i = 0; i < n; i++) {
		qq1_readers[i].cpu = cpus[i];
		qq1_readers[i].task = kthread_run_on_cpu(qq1_reader_fn, &qq1_readers[i],
							 cpus[i], "qq1_reader");
	}

	demo_step("The writer updates for %d ms", QQ1_MS);
	t0 = ktime_get_ns();
	while (ktime_get_ns() - t0 < QQ1_MS * NSEC_PER_MSEC) {
		struct sq_data *next = &sq_pool[++slot % ARRAY_SIZE(sq_pool)];
		int v = (int)(writes % 1000) + 1;

		/* seqlock writer: odd count, rewrite a slot, point at it, even count */
		spin_lock(&sq_lock);
		WRITE_ONCE(sq_seq, sq_seq + 1);
		smp_wmb();
		WRITE_ONCE(next->a, v);
		udelay(QQ1_WRITE_US);
		WRITE_ONCE(next->b, 2 * v);
		WRITE_ONCE(next->c, 3 * v);
		WRITE_ONCE(sq_ptr, next);
		smp_wmb();
		WRITE_ONCE(sq_seq, sq_seq + 1);
		spin_unlock(&sq_lock);

		/* RCU updater: copy, update, publish, free after a grace period */
		rp = kmalloc(sizeof(*rp), GFP_KERNEL);
		if (rp) {
			rp->a = v;
			udelay(QQ1_WRITE_US);
			rp->b = 2 * v;
			rp->c = 3 * v;
			spin_lock(&rq_lock);
			old = rcu_dereference_protected(rq_ptr, lockdep_is_held(&rq_lock));
			rcu_assign_pointer(rq_ptr, rp);
			spin_unlock(&rq_lock);
			kfree_rcu(old, rh);
		}
		writes++;
		cond_resched();		/* with one CPU, the readers run now */
	}
	for (int i = 0; i < n; i++) {
		struct qq1_reader *r = &qq1_readers[i];

		kthread_stop(r->task);
		tries += r->seq_tries;
		retries += r->seq_retries;
		useful += r->seq_useful;
		rpasses += r->rcu_passes;
		bad += r->seq_bad + r->rcu_bad;
	}
	old = rcu_dereference_protected(rq_ptr, true);
	RCU_INIT_POINTER(rq_ptr, NULL);
	synchronize_rcu();
	kfree(old);

	demo_step("The answer");
	demo_say("%ld updates of each.  seqlock readers: %ld tries, %ld retried (%ld%% of the",
		 writes, tries, retries, tries ? retries * 100 / tries : 0);
	demo_say("work thrown away and redone), %ld useful reads.", useful);
	demo_say("RCU readers: %ld reads, every one useful, none retried; %ld inconsistent",
		 rpasses, bad);
	demo_say("snapshots in either.  seqlock readers run alongside the writer but cannot");
	demo_say("get work done while it writes; RCU readers can: the writer builds a new");
	demo_say("copy beside the one they read.");
	if (num_online_cpus() == 1)
		demo_say("(one CPU: the readers only run between updates, so nothing retries.)");
	if (bad)
		demo_fail("%ld inconsistent snapshots", bad);
}

/* ------------------------------------------------------------------ */
/* Quick Quiz 2: a reader racing list_add_rcu()                         */
/* ------------------------------------------------------------------ */

struct afoo {
	struct list_head list;
	int a, b, c;
};

static LIST_HEAD(qq2_head);
static DEFINE_SPINLOCK(qq2_lock);

static struct qq2_reader {
	struct task_struct *task;
	int cpu;
	long walks, elements, bad, min_len, max_len;
} qq2_readers[MAX_READERS + 1];

static int qq2_reader_fn(void *arg)
{
	struct qq2_reader *r = arg;
	u64 burst = ktime_get_ns();

	r->min_len = LONG_MAX;
	while (!kthread_should_stop()) {
		struct afoo *p;
		long n = 0, bad = 0;

		rcu_read_lock();
		list_for_each_entry_rcu(p, &qq2_head, list) {
			int a = READ_ONCE(p->a);

			if (READ_ONCE(p->b) != a + 1 || READ_ONCE(p->c) != a + 2)
				bad++;
			n++;
		}
		rcu_read_unlock();
		r->bad += bad;
		r->elements += n;
		r->min_len = min(r->min_len, n);
		r->max_len = max(r->max_len, n);
		WRITE_ONCE(r->walks, r->walks + 1);
		demo_reader_pause(&burst);
	}
	return 0;
}

#define QQ2_ADDS	400

static struct afoo *qq2_all[QQ2_ADDS];	/* to free them after the grace period */

DEMO(qq2_add_race, "Quick Quiz 2: a reader racing list_add_rcu() never faults")
{
	int cpus[MAX_READERS + 1], n = demo_reader_cpus(cpus, MAX_READERS + 1);
	long walks = 0, elems = 0, bad = 0, lo = LONG_MAX, hi = 0;
	struct afoo *p, *next;
	u32 rng = 2007;
	int added = 0;

	demo_step("Quick Quiz 2: what keeps list_for_each_entry_rcu() from faulting on a racing "
		  "list_add_rcu()?");
	demo_code("new->next = next;                     /* private: plain stores */\n"
		  "new->prev = prev;\n"
		  "rcu_assign_pointer(prev->next, new);  /* one untorn pointer store */\n"
		  "next->prev = new;                     /* readers never look back */");
	demo_say("%d readers walk the list forwards while this CPU inserts %d elements at",
		 n, QQ2_ADDS);
	demo_say("random places, each with list_add_rcu().");
	memset(qq2_readers, 0, sizeof(qq2_readers));
	for (int i = 0; i < n; i++) {
		qq2_readers[i].cpu = cpus[i];
		qq2_readers[i].task = kthread_run_on_cpu(qq2_reader_fn, &qq2_readers[i], cpus[i],
							 "qq2_reader");
	}
	for (int i = 0; i < QQ2_ADDS; i++) {
		struct list_head *where = &qq2_head;
		int skip;

		p = kmalloc(sizeof(*p), GFP_KERNEL);
		if (!p)
			break;
		p->a = 4 * i + 1;
		p->b = p->a + 1;
		p->c = p->a + 2;
		spin_lock(&qq2_lock);
		skip = added ? (int)(qq_rand(&rng) % (u32)added) : 0;
		while (skip--)
			where = where->next;
		list_add_rcu(&p->list, where);
		spin_unlock(&qq2_lock);
		qq2_all[added++] = p;
		udelay(20);
		if (i % 16 == 0)
			cond_resched();
	}
	msleep(10);
	for (int i = 0; i < n; i++) {
		struct qq2_reader *r = &qq2_readers[i];

		kthread_stop(r->task);
		walks += r->walks;
		elems += r->elements;
		bad += r->bad;
		if (r->walks) {
			lo = min(lo, r->min_len);
			hi = max(hi, r->max_len);
		}
	}
	spin_lock(&qq2_lock);
	list_for_each_entry_safe(p, next, &qq2_head, list)
		list_del_rcu(&p->list);		/* each keeps its ->next for late readers */
	spin_unlock(&qq2_lock);
	synchronize_rcu();
	for (int i = 0; i < added; i++)
		kfree(qq2_all[i]);
	demo_step("The answer");
	demo_say("%d additions; the readers made %ld walks over %ld elements, seeing lists of",
		 QQ2_ADDS, walks, elems);
	demo_say("%ld to %ld elements; %ld incomplete elements; 0 faults (a wild pointer would",
		 walks ? lo : 0, hi, bad);
	demo_say("have stopped this kernel with a page fault: page 0 is unmapped).");
	demo_say("A pointer load never returns half of an old and half of a new value, and");
	demo_say("a walk only goes forwards: it sees the new element or it does not, and");
	demo_say("either way the list it walks is well formed.");
	if (bad)
		demo_fail("%ld incomplete elements", bad);
}

/* ------------------------------------------------------------------ */
/* Quick Quiz 3: the hlist iterator                                     */
/* ------------------------------------------------------------------ */

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
	struct task_struct *task;
	int cpu;
	long lookups, found, missed_stable;
} qq3_reader;

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
		if (p)
			r->found++;
		else if (key != 5 && key != 13)	/* the only keys the updater touches */
			r->missed_stable++;
		rcu_read_unlock();
		key = key % (QQ3_KEYS + 1) + 1;
		WRITE_ONCE(r->lookups, r->lookups + 1);
		demo_reader_pause(&burst);
	}
	return 0;
}

static struct hfoo *qq3_add(int key)
{
	struct hfoo *p = kmalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return NULL;
	p->key = key;
	p->a = key, p->b = key + 1, p->c = key + 2;
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

DEMO(qq3_hlist, "Quick Quiz 3: why hlist_for_each_entry_rcu() once took two pointers")
{
	int cpus[1];
	struct hfoo *p, *gone, *doomed[QQ3_KEYS + 1];
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
	demo_reader_cpus(cpus, 1);
	memset(&qq3_reader, 0, sizeof(qq3_reader));
	qq3_reader.cpu = cpus[0];
	qq3_reader.task = kthread_run_on_cpu(qq3_reader_fn, &qq3_reader, cpus[0], "qq3_reader");
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
	kthread_stop(qq3_reader.task);
	demo_say("removed key 5 (hlist_del_rcu(), synchronize_rcu(), kfree()), added key 13:");
	qq3_show_buckets();
	demo_say("reader on CPU%d: %ld lookups, %ld hits, %ld misses of keys nobody removed",
		 qq3_reader.cpu, qq3_reader.lookups, qq3_reader.found, qq3_reader.missed_stable);
	if (qq3_reader.missed_stable)
		demo_fail("a lookup missed a key that was never removed");

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

/* ------------------------------------------------------------------ */
/* Quick Quizzes 4 and 5: more than two versions                        */
/* ------------------------------------------------------------------ */

#define QQ4_DELETERS	6
#define QQ4_EACH	3
#define QQ4_READ_US	300	/* a slow reader: grace periods last, deleters pile up */
#define QQ4_ELEMS	(QQ4_DELETERS * QQ4_EACH)

static LIST_HEAD(qq4_head);
static DEFINE_SPINLOCK(qq4_lock);
static DEFINE_MUTEX(qq4_mutex);
static bool qq4_hold_across;		/* the mutex covers the grace period too */
static bool qq4_go;
static atomic_t qq4_in_flight;		/* removed, not yet freed */
static atomic_t qq4_max;
static atomic_t qq4_done;

static void qq4_note_in_flight(void)
{
	int now = atomic_inc_return(&qq4_in_flight), seen = atomic_read(&qq4_max);

	while (now > seen && !atomic_try_cmpxchg(&qq4_max, &seen, now))
		;
}

static int qq4_deleter_fn(void *arg)
{
	(void)arg;
	while (!READ_ONCE(qq4_go))	/* spin, so that all start together */
		cond_resched();
	for (int i = 0; i < QQ4_EACH; i++) {
		struct afoo *p;

		if (qq4_hold_across) {
			/* The article's examples: one update (and its grace period) at a time. */
			mutex_lock(&qq4_mutex);
			p = list_first_entry_or_null(&qq4_head, struct afoo, list);
			if (p) {
				list_del_rcu(&p->list);
				qq4_note_in_flight();
				synchronize_rcu();
				atomic_dec(&qq4_in_flight);
				kfree(p);
			}
			mutex_unlock(&qq4_mutex);
		} else {
			/* Quick Quiz 4's answer: the lock covers the removal only. */
			spin_lock(&qq4_lock);
			p = list_first_entry_or_null(&qq4_head, struct afoo, list);
			if (p) {
				list_del_rcu(&p->list);
				qq4_note_in_flight();
			}
			spin_unlock(&qq4_lock);
			if (p) {
				synchronize_rcu();
				atomic_dec(&qq4_in_flight);
				kfree(p);
			}
		}
	}
	atomic_inc(&qq4_done);
	return 0;
}

/* Walks the list slowly, so that each grace period takes a while. */
static int qq4_reader_fn(void *arg)
{
	(void)arg;
	while (!kthread_should_stop()) {
		struct afoo *p;
		long sum = 0;

		rcu_read_lock();
		list_for_each_entry_rcu(p, &qq4_head, list)
			sum += READ_ONCE(p->a);
		udelay(QQ4_READ_US);
		rcu_read_unlock();
		(void)sum;
		cond_resched();		/* flat out: the round is short */
	}
	return 0;
}

/* Runs the deleters over a fresh list; returns the most removed-but-not-freed at once. */
static int qq4_round(bool hold_across)
{
	struct task_struct *t[QQ4_DELETERS], *reader;
	int rcpu;
	int cpu = cpu_next_online(-1);
	u64 t0;

	for (int i = 0; i < QQ4_ELEMS; i++) {
		struct afoo *p = kmalloc(sizeof(*p), GFP_KERNEL);

		if (!p)
			return -1;
		p->a = 4 * i + 1, p->b = p->a + 1, p->c = p->a + 2;
		spin_lock(&qq4_lock);
		list_add_tail_rcu(&p->list, &qq4_head);
		spin_unlock(&qq4_lock);
	}
	qq4_hold_across = hold_across;
	WRITE_ONCE(qq4_go, false);
	atomic_set(&qq4_in_flight, 0);
	atomic_set(&qq4_max, 0);
	atomic_set(&qq4_done, 0);
	for (int i = 0; i < QQ4_DELETERS; i++) {
		t[i] = kthread_run_on_cpu(qq4_deleter_fn, NULL, cpu, "deleter");
		cpu = cpu_next_online(cpu);
		if (cpu >= NR_CPUS)
			cpu = cpu_next_online(-1);
	}
	demo_reader_cpus(&rcpu, 1);
	reader = kthread_run_on_cpu(qq4_reader_fn, NULL, rcpu, "qq4_reader");
	msleep(5);
	smp_store_release(&qq4_go, true);
	t0 = ktime_get_ns();
	while (atomic_read(&qq4_done) < QQ4_DELETERS &&
	       ktime_get_ns() - t0 < 10 * WAIT_MS * NSEC_PER_MSEC)
		msleep(1);
	for (int i = 0; i < QQ4_DELETERS; i++)
		if (t[i])
			kthread_stop(t[i]);
	if (reader)
		kthread_stop(reader);
	if (!list_empty(&qq4_head))
		demo_fail("the deleters left elements behind");
	return atomic_read(&qq4_max);
}

DEMO(qq45_versions, "Quick Quizzes 4 and 5: more than two versions of a list at once")
{
	int held, dropped;

	demo_step("The article's examples hold a lock across the whole update");
	demo_code("mutex_lock(&m);\n"
		  "p = search(head, key);\n"
		  "list_del_rcu(&p->list);\n"
		  "synchronize_rcu();\n"
		  "kfree(p);\n"
		  "mutex_unlock(&m);");
	demo_say("%d deleters on the CPUs each delete %d elements this way, while a reader",
		 QQ4_DELETERS, QQ4_EACH);
	demo_say("stays %d us in each critical section, so grace periods take a while.",
		 QQ4_READ_US);
	demo_say("We count the elements removed but not yet freed at the same moment: k of");
	demo_say("them means up to k+1 versions of the list that some reader may be walking.");
	held = qq4_round(true);
	demo_say("at most %d removed-but-not-freed at once: at most %d versions", held, held + 1);
	if (held != 1)
		demo_fail("with the lock held across the grace period, %d in flight", held);

	demo_step("Quick Quiz 4: drop the lock before synchronize_rcu()");
	demo_code("spin_lock(&mylock);\n"
		  "p = search(head, key);\n"
		  "if (p == NULL)\n"
		  "        spin_unlock(&mylock);\n"
		  "else {\n"
		  "        list_del_rcu(&p->list);\n"
		  "        spin_unlock(&mylock);\n"
		  "        synchronize_rcu();\n"
		  "        kfree(p);\n"
		  "}");
	dropped = qq4_round(false);
	demo_say("now up to %d elements were removed but not yet freed at once: up to %d",
		 dropped, dropped + 1);
	demo_say("versions of the list were active, with several deleters waiting in");
	demo_say("synchronize_rcu() together.");
	if (dropped < 3)
		demo_fail("the deleters never overlapped (%d in flight at most)", dropped);

	demo_step("Quick Quiz 5: how many versions can be active?");
	demo_say("With the lock held across the grace period: two, the old and the new.");
	demo_say("With only the search, the update and the removal under the lock: as many");
	demo_say("as updates complete within a grace period, bounded only by memory (here by");
	demo_say("the %d deleters).  Data updated that often is rarely a good fit for RCU,",
		 QQ4_DELETERS);
	demo_say("though RCU copes.");
}

/* ------------------------------------------------------------------ */
/* Quick Quiz 6: what updaters cost readers                             */
/* ------------------------------------------------------------------ */

#define QQ6_ELEMS	4
#define QQ6_MS		200

static LIST_HEAD(qq6_head);
static DEFINE_SPINLOCK(qq6_lock);

struct cfoo {
	struct list_head list;
	int a, b, c;
	struct rcu_head rh;
};

static struct {
	struct task_struct *task;
	int cpu;
	long passes;
	long sum;
} qq6_reader;

static long qq6_updates;

static int qq6_reader_fn(void *arg)
{
	(void)arg;
	while (!kthread_should_stop()) {
		struct cfoo *p;
		long sum = 0;

		rcu_read_lock();
		list_for_each_entry_rcu(p, &qq6_head, list)
			sum += READ_ONCE(p->a) + READ_ONCE(p->b) + READ_ONCE(p->c);
		rcu_read_unlock();
		qq6_reader.sum += sum;
		WRITE_ONCE(qq6_reader.passes, qq6_reader.passes + 1);
		cond_resched();		/* runs flat out: we are measuring it */
	}
	return 0;
}

/* Replaces the elements the reader reads, one after the other, as fast as it can. */
static int qq6_writer_fn(void *arg)
{
	int i = 0;

	(void)arg;
	while (!kthread_should_stop()) {
		struct cfoo *old, *q = kmalloc(sizeof(*q), GFP_KERNEL);
		int k = 0;

		if (q) {
			spin_lock(&qq6_lock);
			list_for_each_entry(old, &qq6_head, list)
				if (k++ == i % QQ6_ELEMS)
					break;
			*q = *old;
			q->b++;
			q->c--;
			list_replace_rcu(&old->list, &q->list);
			spin_unlock(&qq6_lock);
			kfree_rcu(old, rh);
			WRITE_ONCE(qq6_updates, qq6_updates + 1);
		}
		i++;
		cond_resched();
	}
	return 0;
}

static long qq6_measure(void)
{
	long p0 = READ_ONCE(qq6_reader.passes);
	u64 t0 = ktime_get_ns(), dt;

	msleep(QQ6_MS);
	dt = ktime_get_ns() - t0;
	return (READ_ONCE(qq6_reader.passes) - p0) * (long)NSEC_PER_MSEC / (long)dt;
}

DEMO(qq6_cost, "Quick Quiz 6: how updaters slow readers that never spin nor block")
{
	int cpus[2], n = demo_reader_cpus(cpus, 2);
	int wcpu = n > 1 ? cpus[1] : smp_processor_id();
	struct task_struct *writer;
	struct cfoo *p, *next, *doomed[QQ6_ELEMS];
	long quiet, busy;
	int nd = 0;

	demo_step("Quick Quiz 6: how can updaters delay readers at all?");
	demo_say("A reader on CPU%d walks a %d-element list flat out; we count its passes",
		 cpus[0], QQ6_ELEMS);
	demo_say("per millisecond for %d ms alone, then %d ms while a writer on CPU%d",
		 QQ6_MS, QQ6_MS, wcpu);
	demo_say("replaces those very elements (copy, list_replace_rcu(), kfree_rcu()).");
	for (int i = 0; i < QQ6_ELEMS; i++) {
		p = kzalloc(sizeof(*p), GFP_KERNEL);
		if (!p) {
			demo_fail("out of memory");
			break;
		}
		p->a = i, p->b = i, p->c = i;
		list_add_tail_rcu(&p->list, &qq6_head);
	}
	memset(&qq6_reader, 0, sizeof(qq6_reader));
	qq6_updates = 0;
	qq6_reader.cpu = cpus[0];
	qq6_reader.task = kthread_run_on_cpu(qq6_reader_fn, NULL, cpus[0], "qq6_reader");
	msleep(10);

	demo_step("Measuring");
	quiet = qq6_measure();
	demo_say("no writer:   %ld passes/ms", quiet);
	writer = kthread_run_on_cpu(qq6_writer_fn, NULL, wcpu, "qq6_writer");
	busy = qq6_measure();
	kthread_stop(writer);
	demo_say("with writer: %ld passes/ms (%ld updates meanwhile)", busy,
		 READ_ONCE(qq6_updates));
	kthread_stop(qq6_reader.task);
	if (quiet > 0 && busy < quiet)
		demo_say("the reader slowed down by %ld%%", (quiet - busy) * 100 / quiet);
	else
		demo_say("no slowdown this time (the figures vary from run to run)");

	demo_step("The answer, and what this machine measures");
	demo_say("On real hardware the writer's stores invalidate the cache lines holding");
	demo_say("the elements in the readers' caches, so each reader's next load misses and");
	demo_say("waits for the line to come back: rcu_read_lock() costs nothing, the data");
	demo_say("does.  Under QEMU's TCG there are no caches to miss: the slowdown above is");
	demo_say("made of emulator effects instead -- vCPUs are host threads sharing the");
	demo_say("host's cores, and shared-memory atomics, allocation and QEMU's own locking");
	demo_say("take host time -- not of cache misses.");
	if (num_online_cpus() == 1)
		demo_say("(On one CPU the writer simply takes the reader's CPU time.)");

	spin_lock(&qq6_lock);
	list_for_each_entry_safe(p, next, &qq6_head, list) {
		list_del_rcu(&p->list);
		if (nd < QQ6_ELEMS)
			doomed[nd++] = p;
	}
	spin_unlock(&qq6_lock);
	synchronize_rcu();
	while (nd)
		kfree(doomed[--nd]);
	rcu_barrier();		/* the writer's kfree_rcu()s */
}
