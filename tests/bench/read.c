/*
 * make bench, the read side:
 *
 *  - bench_reader_rcu() and bench_reader_plain(): the same list lookup
 *    with and without rcu_read_lock()/rcu_read_unlock().  tools/bench.py
 *    disassembles both from the production ELF and counts instructions:
 *    the difference must be 0.
 *  - bench_readside: cycles per empty read-side critical section, for RCU
 *    and for each lock's read side, on one CPU with the others idle.
 *  - bench_read_list, bench_read_hash: every CPU looks up random keys for
 *    a fixed window, protected in turn by nothing (the floor), RCU, a
 *    reader-writer lock, a spinlock, a seqlock and per-element reference
 *    counts, with no writer and with one writer replacing elements.
 */
#include "bench.h"

/*
 * The zero-instruction check.  noinline/noclone keep each a function of
 * its own; no_icf stops GCC from folding two identical bodies into one
 * (which is exactly what we hope they are).  The walk's `true` condition
 * says "protected by the caller" so that the plain one does not warn in
 * the checking build; in the production build the condition vanishes.
 */
#define BENCH_READER_FN	__attribute__((noinline, noclone, no_icf, used))

BENCH_READER_FN int bench_reader_rcu(struct list_head *head, int key)
{
	struct bench_node *n;
	int value = -1;

	rcu_read_lock();
	list_for_each_entry_rcu(n, head, list, true) {
		if (n->key == key) {
			value = n->value;
			break;
		}
	}
	rcu_read_unlock();
	return value;
}

BENCH_READER_FN int bench_reader_plain(struct list_head *head, int key)
{
	struct bench_node *n;
	int value = -1;

	list_for_each_entry_rcu(n, head, list, true) {
		if (n->key == key) {
			value = n->value;
			break;
		}
	}
	return value;
}

/* ---- Reference counts: get only if not zero; the last put recycles. ---- */

static __always_inline bool ref_get(struct bench_node *n)
{
	int old = READ_ONCE(n->ref);

	do {
		if (old <= 0)
			return false;	/* on its way to the pool, or in it */
		/*
		 * Fully ordered: our loads of the node's fields come after we
		 * hold it.  Pairs with the release that published it (the
		 * writer sets ref = 1 before rcu_assign_pointer()).
		 */
	} while (!__atomic_compare_exchange_n(&n->ref, &old, old + 1, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	return true;
}

static __always_inline void ref_put(struct bench_table *t, struct bench_node *n)
{
	/* Fully ordered: our loads are done before the node can be reused. */
	if (__atomic_sub_fetch(&n->ref, 1, __ATOMIC_SEQ_CST) == 0)
		bench_pool_put(t, n);
}

/* ---- The empty read-side critical sections ---- */

#define READSIDE_ITERS	200000

static u64 readside_once(struct bench_table *t, enum bench_method m, u64 *ns)
{
	struct bench_node *node = t->cur[0];
	unsigned long sink = 0;
	u64 c0, t0, c1;

	t0 = ktime_get_ns();
	c0 = arch_cycles();
	switch (m) {
	case BM_NONE:		/* the loop alone */
		for (int i = 0; i < READSIDE_ITERS; i++)
			barrier();
		break;
	case BM_RCU:
		for (int i = 0; i < READSIDE_ITERS; i++) {
			rcu_read_lock();
			rcu_read_unlock();
		}
		break;
	case BM_RWLOCK:
		for (int i = 0; i < READSIDE_ITERS; i++) {
			bench_read_lock(&t->rw);
			bench_read_unlock(&t->rw);
		}
		break;
	case BM_SPINLOCK:
		for (int i = 0; i < READSIDE_ITERS; i++) {
			spin_lock(&t->lock);
			spin_unlock(&t->lock);
		}
		break;
	case BM_SEQLOCK:
		for (int i = 0; i < READSIDE_ITERS; i++) {
			unsigned int s = bench_read_seqbegin(&t->seq);

			sink += bench_read_seqretry(&t->seq, s);
		}
		break;
	case BM_REFCOUNT:
		for (int i = 0; i < READSIDE_ITERS; i++) {
			sink += ref_get(node);
			ref_put(t, node);
		}
		break;
	default:
		break;
	}
	c1 = arch_cycles();
	*ns = ktime_get_ns() - t0;
	KEXPECT(m != BM_SEQLOCK || sink == 0);
	return c1 - c0;
}

KBENCH(bench_readside)
{
	struct bench_table *t;
	int v1, v2;

	t = bench_table_create(BENCH_LIST);
	KASSERT(t);
	printk("# BENCH-META checking=%d cpus=%d reps=%d window_ms=%d\n",
	       CONFIG_RCU_CHECKING, num_online_cpus(), bench_reps, bench_window_ms);

	/* The two readers must agree (and be called, so they are real code). */
	v1 = bench_reader_rcu(&t->list, 17);
	v2 = bench_reader_plain(&t->list, 17);
	KEXPECT_EQ(v1, 17);
	KEXPECT_EQ(v2, 17);

	for (int rep = 0; rep < bench_reps; rep++) {
		for (int m = 0; m < BM_NR; m++) {
			char labels[64];
			u64 ns, cycles = readside_once(t, m, &ns);

			snprintf(labels, sizeof(labels), "method=%s", bench_method_names[m]);
			bench_emit("readside", labels, rep, "cycles_per_cs",
				   bench_mean_milli(cycles, READSIDE_ITERS), "cycles");
			bench_emit("readside", labels, rep, "ns_per_cs",
				   bench_mean_milli(ns, READSIDE_ITERS), "ns");
		}
		cond_resched();
	}
	bench_table_destroy(t);
}

/* ---- Read throughput ---- */

struct bench_reader {
	struct bench_table *t;
	enum bench_method m;
	u32 rng;
	u64 lookups, ns, misses, retries;
	unsigned long sink;
} __aligned(64);

struct bench_writer {
	struct bench_table *t;
	enum bench_method m;
	u32 rng;
	u64 updates, ns, pool_empty;
	struct task_struct *task;
} __aligned(64);

static struct bench_reader readers[NR_CPUS];
static struct workers reader_group;	/* reader i on CPU i */
static struct bench_writer writer;
static struct bench_table *cb_table;	/* the table the RCU callbacks recycle into */

/* Start line and finish line; every thread reads the finish line on every lookup. */
static struct {
	struct completion go;
	u64 end_jiffies;
} ctl __aligned(64);

/*
 * The start line: threads sleep until run_read() completes `go` for all
 * of them at once, once every thread exists.  They used to spin in
 * cond_resched(): at 64 CPUs under TCG, each next thread's creation (an
 * IPI to every CPU, waited for, in kthread_create()) then waited for the
 * host to run every spinner, and starting a run took seconds.  Not
 * msleep() either: threads would start up to a tick apart, the first ones
 * alone on the machine.  The completion's lock also publishes the finish
 * line, written before complete_all().
 */
static void wait_for_go(void)
{
	wait_for_completion(&ctl.go);
}

static __always_inline bool window_open(void)
{
	return READ_ONCE(jiffies) < READ_ONCE(ctl.end_jiffies);
}

/*
 * The walk every method but seqlock and refcount uses: the RCU list
 * primitives, whose loads are READ_ONCE().  Inside rcu_read_lock() for
 * RCU; inside the lock for rwlock and spinlock (the `true` condition
 * says the caller protects it); bare for the floor.  So the methods
 * differ only in their protection, not in how they walk.
 */
static __always_inline struct bench_node *find_plain(struct bench_table *t, enum bench_kind kind,
						     int key)
{
	struct bench_node *n;

	if (kind == BENCH_LIST) {
		list_for_each_entry_rcu(n, &t->list, list, true)
			if (READ_ONCE(n->key) == key)
				return n;
	} else {
		hlist_for_each_entry_rcu(n, &t->buckets[bench_hash(key)], hnode, true)
			if (READ_ONCE(n->key) == key)
				return n;
	}
	return NULL;
}

/*
 * The same walk with a step limit, for readers that may race with the
 * writer and wander into a recycled node (seqlock): the retry catches it.
 */
static __always_inline struct bench_node *find_bounded(struct bench_table *t, enum bench_kind kind,
						       int key)
{
	int steps = 0, limit = t->nelem + 8;

	if (kind == BENCH_LIST) {
		struct list_head *p;

		for (p = READ_ONCE(t->list.next); p != &t->list && steps < limit;
		     p = READ_ONCE(p->next), steps++) {
			struct bench_node *n = container_of(p, struct bench_node, list);

			if (READ_ONCE(n->key) == key)
				return n;
		}
	} else {
		struct hlist_node *p;

		for (p = READ_ONCE(t->buckets[bench_hash(key)].first); p && steps < limit;
		     p = READ_ONCE(p->next), steps++) {
			struct bench_node *n = container_of(p, struct bench_node, hnode);

			if (READ_ONCE(n->key) == key)
				return n;
		}
	}
	return NULL;
}

static __always_inline int lookup_rcu(struct bench_table *t, enum bench_kind kind, int key)
{
	struct bench_node *n;
	int value;

	rcu_read_lock();
	n = find_plain(t, kind, key);
	value = n ? READ_ONCE(n->value) : -1;
	rcu_read_unlock();
	return value;
}

static __always_inline struct list_head *first_of(struct bench_table *t, enum bench_kind kind,
						  int key, struct hlist_node **hp)
{
	if (kind == BENCH_LIST)
		return READ_ONCE(t->list.next);
	*hp = READ_ONCE(t->buckets[bench_hash(key)].first);
	return NULL;
}

/*
 * Hand-over-hand reference counting (perfbook's route_refcnt.c pattern):
 * take a reference on each node before reading it or its next pointer,
 * then drop the one on its predecessor.  A node whose count is zero is
 * on its way to the pool: start again.  A node can be recycled and put
 * back elsewhere while we hold no reference on it, so a miss retries too.
 */
static __always_inline int lookup_refcount(struct bench_table *t, enum bench_kind kind, int key,
					   u64 *retries)
{
	int limit = t->nelem + 8;

	for (int tries = 0; tries < 1000; tries++) {
		struct bench_node *prev = NULL, *n;
		struct hlist_node *hp = NULL;
		struct list_head *lp = first_of(t, kind, key, &hp);

		for (int steps = 0; steps < limit; steps++) {
			if (kind == BENCH_LIST) {
				if (lp == &t->list)
					break;
				n = container_of(lp, struct bench_node, list);
			} else {
				if (!hp)
					break;
				n = container_of(hp, struct bench_node, hnode);
			}
			if (!ref_get(n))
				break;
			if (prev)
				ref_put(t, prev);
			prev = n;
			if (READ_ONCE(n->key) == key) {
				int value = READ_ONCE(n->value);

				ref_put(t, n);
				return value;
			}
			if (kind == BENCH_LIST)
				lp = READ_ONCE(n->list.next);
			else
				hp = READ_ONCE(n->hnode.next);
		}
		if (prev)
			ref_put(t, prev);
		(*retries)++;
	}
	return -1;
}

static __always_inline int lookup(struct bench_table *t, enum bench_method m,
				  enum bench_kind kind, int key, u64 *retries)
{
	struct bench_node *n;
	unsigned int seq;
	int value;

	switch (m) {
	case BM_NONE:
		n = find_plain(t, kind, key);
		return n ? READ_ONCE(n->value) : -1;
	case BM_RCU:
		return lookup_rcu(t, kind, key);
	case BM_RWLOCK:
		bench_read_lock(&t->rw);
		n = find_plain(t, kind, key);
		value = n ? READ_ONCE(n->value) : -1;
		bench_read_unlock(&t->rw);
		return value;
	case BM_SPINLOCK:
		spin_lock(&t->lock);
		n = find_plain(t, kind, key);
		value = n ? READ_ONCE(n->value) : -1;
		spin_unlock(&t->lock);
		return value;
	case BM_SEQLOCK:
		for (;;) {
			seq = bench_read_seqbegin(&t->seq);
			n = find_bounded(t, kind, key);
			value = n ? READ_ONCE(n->value) : -1;
			if (!bench_read_seqretry(&t->seq, seq))
				return value;
			(*retries)++;
		}
	case BM_REFCOUNT:
		return lookup_refcount(t, kind, key, retries);
	default:
		return -1;
	}
}

/*
 * One out-of-line lookup function per method and structure.  Out of line
 * so that the protection is the only difference between the methods'
 * code: inlined into the loop, the compiler lays each variant out its
 * own way (which branch falls through, what stays in registers across
 * rcu_read_lock()'s compiler barrier), and under TCG, where every taken
 * branch can end a translation block, layout alone moved a hash lookup by
 * up to 40%.  The floor and RCU compile to the same instructions, as
 * bench_reader_plain() and bench_reader_rcu() do.
 */
typedef int (*lookup_fn)(struct bench_table *t, int key, u64 *retries);

#define LOOKUP_FN(m, kind)						\
	static __attribute__((noinline, noclone, no_icf)) int		\
	lookup_##m##_##kind(struct bench_table *t, int key, u64 *retries) \
	{								\
		return lookup(t, m, kind, key, retries);		\
	}
#define LOOKUP_FNS(m)	LOOKUP_FN(m, BENCH_LIST) LOOKUP_FN(m, BENCH_HASH)
LOOKUP_FNS(BM_NONE)
LOOKUP_FNS(BM_RCU)
LOOKUP_FNS(BM_RWLOCK)
LOOKUP_FNS(BM_SPINLOCK)
LOOKUP_FNS(BM_SEQLOCK)
LOOKUP_FNS(BM_REFCOUNT)

/* The loop; inlined per lookup function, so each call is a direct one. */
static __always_inline void read_loop(struct bench_reader *r, lookup_fn fn)
{
	struct bench_table *t = r->t;
	u64 n = 0, misses = 0, retries = 0;
	unsigned long sink = 0;
	u32 rng = r->rng;
	u64 t0;

	wait_for_go();
	t0 = ktime_get_ns();
	while (window_open()) {
		int key = prandom_u32(&rng) & (t->nelem - 1);
		int value = fn(t, key, &retries);

		if (unlikely(value < 0))
			misses++;
		sink += value;
		if ((++n & 63) == 0)
			cond_resched();		/* a quiescent state, and the writer's turn */
	}
	r->ns = ktime_get_ns() - t0;
	r->lookups = n;
	r->misses = misses;
	r->retries = retries;
	r->sink = sink;
}

#define READ_LOOP_CASE(m)						\
	case m:								\
		if (r->t->kind == BENCH_LIST)				\
			read_loop(r, lookup_##m##_BENCH_LIST);		\
		else							\
			read_loop(r, lookup_##m##_BENCH_HASH);		\
		break

static int reader_fn(void *arg)
{
	struct bench_reader *r = arg;

	switch (r->m) {
	READ_LOOP_CASE(BM_NONE);
	READ_LOOP_CASE(BM_RCU);
	READ_LOOP_CASE(BM_RWLOCK);
	READ_LOOP_CASE(BM_SPINLOCK);
	READ_LOOP_CASE(BM_SEQLOCK);
	READ_LOOP_CASE(BM_REFCOUNT);
	default:
		break;
	}
	return 0;
}

static void rcu_recycle(struct rcu_head *rh)
{
	struct bench_node *n = container_of(rh, struct bench_node, rh);

	WRITE_ONCE(n->key, BENCH_POISON_KEY);
	bench_pool_put(cb_table, n);
}

static void replace(struct bench_table *t, struct bench_node *old, struct bench_node *new)
{
	/* rcu_assign_pointer() inside: a release store, for every lock-free reader. */
	if (t->kind == BENCH_LIST)
		list_replace_rcu(&old->list, &new->list);
	else
		hlist_replace_rcu(&old->hnode, &new->hnode);
}

/* Replaces one random element by a copy; returns false if the pool was empty. */
static bool update_one(struct bench_writer *w)
{
	struct bench_table *t = w->t;
	int key = prandom_u32(&w->rng) % t->nelem;
	struct bench_node *old = t->cur[key], *new = bench_pool_get(t);

	if (!new)
		return false;
	/*
	 * A recycled node may still be read by a racing seqlock or refcount
	 * reader (its count is 0 until the next line, so refcount readers
	 * cannot take it): WRITE_ONCE.
	 */
	WRITE_ONCE(new->key, key);
	WRITE_ONCE(new->value, old->value + 1);
	WRITE_ONCE(new->ref, 1);	/* the structure's reference, published below */

	switch (w->m) {
	case BM_RCU:
		spin_lock(&t->wlock);
		replace(t, old, new);
		spin_unlock(&t->wlock);
		/* Readers may hold old until every CPU has passed a quiescent state. */
		call_rcu(&old->rh, rcu_recycle);
		break;
	case BM_RWLOCK:
		bench_write_lock(&t->rw);
		replace(t, old, new);
		bench_write_unlock(&t->rw);
		WRITE_ONCE(old->ref, 0);
		bench_pool_put(t, old);		/* no reader can hold it */
		break;
	case BM_SPINLOCK:
		spin_lock(&t->lock);
		replace(t, old, new);
		spin_unlock(&t->lock);
		WRITE_ONCE(old->ref, 0);
		bench_pool_put(t, old);
		break;
	case BM_SEQLOCK:
		spin_lock(&t->wlock);
		bench_write_seqcount_begin(&t->seq);
		replace(t, old, new);
		bench_write_seqcount_end(&t->seq);
		spin_unlock(&t->wlock);
		WRITE_ONCE(old->ref, 0);
		bench_pool_put(t, old);		/* readers on it will retry */
		break;
	case BM_REFCOUNT:
		spin_lock(&t->wlock);
		replace(t, old, new);
		spin_unlock(&t->wlock);
		ref_put(t, old);		/* the structure's reference; the last reader recycles */
		break;
	default:
		break;
	}
	t->cur[key] = new;
	return true;
}

static int writer_fn(void *arg)
{
	struct bench_writer *w = arg;
	u64 t0;

	wait_for_go();
	t0 = ktime_get_ns();
	while (window_open()) {
		if (update_one(w))
			w->updates++;
		else
			w->pool_empty++;	/* waits for grace periods to refill it */
		cond_resched();
	}
	w->ns = ktime_get_ns() - t0;
	return 0;
}

static void run_read(struct bench_table *t, enum bench_method m, bool with_writer, int rep)
{
	int cpu, ncpu = num_online_cpus();
	u64 window = (u64)bench_window_ms * HZ / 1000, rate_sum = 0;
	u64 misses = 0, retries = 0;
	char labels[96];

	init_completion(&ctl.go);
	for_each_online_cpu(cpu)
		readers[cpu] = (struct bench_reader){
			.t = t, .m = m, .rng = prandom_seed(0x2545f491u * (cpu + 1) + 77u * rep) };
	KEXPECT(workers_start_spread(&reader_group, ncpu, 0, reader_fn, readers,
				     sizeof(readers[0]), "bench_reader"));
	if (with_writer) {
		writer = (struct bench_writer){ .t = t, .m = m, .rng = 0xdeadbeefu + rep };
		writer.task = kthread_run_on_cpu(writer_fn, &writer, ncpu - 1, "bench_writer");
		KEXPECT(writer.task);
	}
	WRITE_ONCE(ctl.end_jiffies, jiffies + (window ? window : 1));
	complete_all(&ctl.go);

	workers_stop(&reader_group);
	for_each_online_cpu(cpu) {
		struct bench_reader *r = &readers[cpu];

		rate_sum += bench_rate_milli(r->lookups, r->ns);
		misses += r->misses;
		retries += r->retries;
		if (r->misses)
			ktest_info("bench: CPU%d: %llu lookups did not find their key (%s)", cpu,
				   (unsigned long long)r->misses, bench_method_names[m]);
	}
	if (with_writer && writer.task)
		kthread_stop(writer.task);
	/* Every element the RCU writer retired is back in the pool before the next run. */
	rcu_barrier();
	KEXPECT_EQ(misses, 0);

	snprintf(labels, sizeof(labels), "struct=%s method=%s writers=%d",
		 t->kind == BENCH_LIST ? "list" : "hash", bench_method_names[m], with_writer);
	bench_emit("read", labels, rep, "lookups_per_cpu", rate_sum / ncpu, "1/s");
	if (m == BM_SEQLOCK || m == BM_REFCOUNT)
		bench_emit("read", labels, rep, "retries", retries * 1000, "count");
	if (with_writer) {
		bench_emit("read", labels, rep, "updates", bench_rate_milli(writer.updates, writer.ns),
			   "1/s");
		if (writer.pool_empty)
			ktest_info("bench: writer found the pool empty %llu times (%s)",
				   (unsigned long long)writer.pool_empty, bench_method_names[m]);
	}
}

static void bench_read(enum bench_kind kind)
{
	struct bench_table *t = bench_table_create(kind);

	KASSERT(t);
	cb_table = t;
	for (int rep = 0; rep < bench_reps; rep++) {
		for (int w = 0; w <= 1; w++) {
			for (int m = 0; m < BM_NR; m++) {
				if (m == BM_NONE && w)
					continue;	/* the floor is readers only */
				run_read(t, m, w, rep);
			}
		}
	}
	/* Every node is in the structure or back in the pool. */
	KEXPECT_EQ(t->pool_count, BENCH_SPARE_NODES);
	cb_table = NULL;
	bench_table_destroy(t);
}

KBENCH(bench_read_list)
{
	bench_read(BENCH_LIST);
}

KBENCH(bench_read_hash)
{
	bench_read(BENCH_HASH);
}
