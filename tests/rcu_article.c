/*
 * "What is RCU, Fundamentally?" (McKenney & Walpole), checked against the
 * real RCU of this kernel with readers on other CPUs:
 *
 *  - publish/subscribe: rcu_assign_pointer() after initialisation and
 *    rcu_dereference() in the readers show only complete objects; the
 *    broken order (publish, then initialise) is seen by the readers;
 *  - Example 1 (deletion) and Example 2 (replacement): every reader sees a
 *    well-formed old or new version, never a mix; the retracted element
 *    stays intact (payload and ->next) for the readers that hold it until
 *    synchronize_rcu() returns, and no reader that starts afterwards finds
 *    it;
 *  - Quick Quizzes 4 and 5: when the lock covers only the removal, several
 *    deleters wait in synchronize_rcu() at once, so one reader can see more
 *    than two versions of the list within a single critical section.
 *
 * Everything is counted in events.  Time appears only as generous budgets
 * that end a wait when something already went wrong, never as a threshold
 * that decides success.
 */
#include "ktest.h"

/* The freed-memory pattern as the reader sees it in an int or a pointer. */
#define POISON_INT	((int)0x6b6b6b6b)
#define POISON_PTR	((void *)0x6b6b6b6b6b6b6b6bUL)

/* Budget of a wait that only runs out when the kernel misbehaves. */
#define BUDGET_NS	(30 * NSEC_PER_SEC)	/* generous: 16 vCPUs on 2 host cores are slow */

static bool budget_left(u64 start)
{
	return ktime_get_ns() - start < BUDGET_NS;
}

/*
 * The CPUs readers run on: every CPU but the test's own (CPU 0); with a
 * single CPU, CPU 0 itself, where readers share the CPU with the updater.
 */
static int reader_cpus(int *out)
{
	int cpu, n = 0;

	for_each_online_cpu(cpu) {
		if (cpu != smp_processor_id())
			out[n++] = cpu;
	}
	if (n == 0)
		out[n++] = smp_processor_id();
	return n;
}

/*
 * Between passes, outside the critical section: a quiescent state.
 * Readers run in bursts of READER_BURST_NS, then sleep a tick.  Spinning
 * without pause on every CPU would make each synchronize_rcu() hop wait
 * for a host core (under TCG on a small host: tens of milliseconds), and
 * bursts still give thousands of passes around every update.
 */
#define READER_BURST_NS	(2 * NSEC_PER_MSEC)

static void reader_pause(u64 *burst_start)
{
	if (ktime_get_ns() - *burst_start >= READER_BURST_NS) {
		msleep(1);
		*burst_start = ktime_get_ns();
	} else {
		cond_resched();
	}
}

static bool ptr_poisoned(const void *p)
{
	return p == POISON_PTR || p == NULL;
}

/* ------------------------------------------------------------------ */
/* Publish / subscribe                                                 */
/* ------------------------------------------------------------------ */

struct pfoo {
	int a;
	int b;
	int c;
	struct rcu_head rh;
};

static struct pfoo __rcu *ps_gp;
static DEFINE_SPINLOCK(ps_lock);

struct ps_reader {
	struct task_struct *task;
	int cpu;
	long passes;		/* critical sections run */
	long seen;		/* ...that found a complete object */
	long uninit;		/* fields still zero: published before init */
	long poisoned;		/* fields of a freed object */
	long torn;		/* any other inconsistency */
	long changed;		/* the object changed while held */
	long backwards;		/* an older object after a newer one */
	long distinct;		/* objects seen (changes of generation) */
};

#define PS_HOLD_US	20	/* a reader keeps its object this long */

static atomic_t ps_caught;	/* any reader saw uninitialised fields */
static atomic_t ps_reports;	/* limits the diagnostics printed */

static void ps_report(struct ps_reader *r, const char *what, int a, int b, int c)
{
	if (atomic_inc_return(&ps_reports) <= 4)
		ktest_info("reader on CPU%d: %s object (%#x, %#x, %#x)", r->cpu, what,
			   a, b, c);
}

/*
 * The article's reader: rcu_read_lock(); p = rcu_dereference(gp); use
 * p->a, p->b, p->c; rcu_read_unlock().  Object k holds (k, 2k, 3k).
 */
static int ps_reader_fn(void *arg)
{
	struct ps_reader *r = arg;
	u64 burst = ktime_get_ns();
	int last = 0;

	while (!kthread_should_stop()) {
		struct pfoo *p;
		int a, b, c;

		rcu_read_lock();
		p = rcu_dereference(ps_gp);
		if (p) {
			a = READ_ONCE(p->a);
			b = READ_ONCE(p->b);
			c = READ_ONCE(p->c);
			if (a == 0 || b == 0 || c == 0) {
				r->uninit++;
				atomic_inc(&ps_caught);
			} else if (a == POISON_INT || b == POISON_INT || c == POISON_INT) {
				r->poisoned++;
				ps_report(r, "freed", a, b, c);
			} else if (a < 0 || b != 2 * a || c != 3 * a) {
				r->torn++;
				ps_report(r, "torn", a, b, c);
			} else {
				r->seen++;
				if (a < last)
					r->backwards++;
				if (a != last)
					WRITE_ONCE(r->distinct, r->distinct + 1);
				last = a;
				/* Hold it: the writer may be retiring it now. */
				udelay(PS_HOLD_US);
				if (READ_ONCE(p->a) != a || READ_ONCE(p->b) != b ||
				    READ_ONCE(p->c) != c) {
					r->changed++;
					ps_report(r, "changed while held",
						  READ_ONCE(p->a), READ_ONCE(p->b),
						  READ_ONCE(p->c));
				}
			}
		}
		rcu_read_unlock();
		WRITE_ONCE(r->passes, r->passes + 1);
		reader_pause(&burst);
	}
	return 0;
}

static struct ps_reader ps_readers[NR_CPUS];

static int ps_start_readers(void)
{
	int cpus[NR_CPUS], n = reader_cpus(cpus);

	atomic_set(&ps_caught, 0);
	atomic_set(&ps_reports, 0);
	for (int i = 0; i < n; i++) {
		memset(&ps_readers[i], 0, sizeof(ps_readers[i]));
		ps_readers[i].cpu = cpus[i];
		ps_readers[i].task = kthread_run_on_cpu(ps_reader_fn, &ps_readers[i],
							cpus[i], "ps_reader");
		KEXPECT(ps_readers[i].task != NULL);
	}
	return n;
}

static void ps_stop_readers(int n)
{
	for (int i = 0; i < n; i++) {
		if (ps_readers[i].task)
			kthread_stop(ps_readers[i].task);
		ps_readers[i].task = NULL;
	}
}

/* Fewest distinct objects any reader has seen so far. */
static long ps_min_distinct(int n)
{
	long m = LONG_MAX;

	for (int i = 0; i < n; i++) {
		if (ps_readers[i].task)
			m = min(m, READ_ONCE(ps_readers[i].distinct));
	}
	return m;
}

/* Unpublishes and frees the last object (the readers are stopped). */
static void ps_clear(void)
{
	struct pfoo *old;

	spin_lock(&ps_lock);
	old = rcu_dereference_protected(ps_gp, lockdep_is_held(&ps_lock));
	RCU_INIT_POINTER(ps_gp, NULL);
	spin_unlock(&ps_lock);
	synchronize_rcu();
	kfree(old);
	rcu_barrier();		/* the kfree_rcu()s too */
}

#define PS_MIN_UPDATES	200
#define PS_MAX_UPDATES	20000
#define PS_MIN_DISTINCT	10	/* objects each reader must have seen */
#define PS_SYNC_EVERY	8
#define PS_PACE_US	20	/* between updates, so readers see many */

KTEST(rcu_publish_subscribe_across_cpus)
{
	long passes = 0, seen = 0, uninit = 0, poisoned = 0, torn = 0;
	long changed = 0, backwards = 0, min_distinct = LONG_MAX;
	u64 start = ktime_get_ns();
	int n, k;

	RCU_INIT_POINTER(ps_gp, NULL);
	n = ps_start_readers();

	for (k = 1; k <= PS_MAX_UPDATES; k++) {
		struct pfoo *p = kmalloc(sizeof(*p), GFP_KERNEL), *old;

		if (!p) {
			KEXPECT(p != NULL);
			break;
		}
		/* Initialise, then publish: the article's order. */
		p->a = k;
		p->b = 2 * k;
		p->c = 3 * k;
		spin_lock(&ps_lock);
		old = rcu_dereference_protected(ps_gp, lockdep_is_held(&ps_lock));
		rcu_assign_pointer(ps_gp, p);
		spin_unlock(&ps_lock);

		/*
		 * Retire the old version after a grace period, both ways: every
		 * PS_SYNC_EVERY-th update waits in synchronize_rcu(), the others
		 * hand it to kfree_rcu() and go on.
		 */
		if (old) {
			if (k % PS_SYNC_EVERY == 0) {
				synchronize_rcu();
				kfree(old);
			} else {
				kfree_rcu(old, rh);
			}
		}
		if (k >= PS_MIN_UPDATES && ps_min_distinct(n) >= PS_MIN_DISTINCT)
			break;
		if (!budget_left(start))
			break;
		udelay(PS_PACE_US);
		cond_resched();		/* with one CPU, the reader runs here */
	}
	ps_stop_readers(n);
	ps_clear();

	for (int i = 0; i < n; i++) {
		struct ps_reader *r = &ps_readers[i];

		/* Every reader subscribed to complete objects, several of them. */
		KEXPECT(r->seen > 0);
		KEXPECT(r->distinct >= PS_MIN_DISTINCT);
		min_distinct = min(min_distinct, r->distinct);
		passes += r->passes;
		seen += r->seen;
		uninit += r->uninit;
		poisoned += r->poisoned;
		torn += r->torn;
		changed += r->changed;
		backwards += r->backwards;
	}
	ktest_info("%d updates, %d readers: %ld passes, %ld saw an object, each reader >= %ld objects",
		   k, n, passes, seen, min_distinct);
	KEXPECT_EQ(uninit, 0);
	KEXPECT_EQ(poisoned, 0);
	KEXPECT_EQ(torn, 0);
	KEXPECT_EQ(changed, 0);
	KEXPECT_EQ(backwards, 0);
}

#define PB_MAX_OBJECTS	200
#define PB_WINDOW_NS	(20 * NSEC_PER_MSEC)

/*
 * The article's counter-example, done on purpose: gp = p before p->a, p->b
 * and p->c are set.  The fields start as zero (kzalloc), which the readers
 * recognise as "uninitialised".  Between publication and initialisation the
 * writer waits until a reader reports the catch (or a window passes), so
 * the half-built object is surely visible while it is half built.
 */
KTEST(rcu_publish_before_init_is_caught)
{
	long uninit = 0, poisoned = 0, torn = 0, changed = 0;
	int n, k;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs");

	RCU_INIT_POINTER(ps_gp, NULL);
	n = ps_start_readers();

	for (k = 1; k <= PB_MAX_OBJECTS && !atomic_read(&ps_caught); k++) {
		struct pfoo *p = kzalloc(sizeof(*p), GFP_KERNEL), *old;
		u64 t0;

		if (!p) {
			KEXPECT(p != NULL);
			break;
		}
		spin_lock(&ps_lock);
		old = rcu_dereference_protected(ps_gp, lockdep_is_held(&ps_lock));
		WRITE_ONCE(ps_gp, p);		/* BROKEN on purpose: not yet initialised */
		spin_unlock(&ps_lock);

		t0 = ktime_get_ns();
		while (!atomic_read(&ps_caught) && ktime_get_ns() - t0 < PB_WINDOW_NS)
			udelay(5);

		p->a = k;
		p->b = 2 * k;
		p->c = 3 * k;
		if (old) {
			synchronize_rcu();
			kfree(old);
		}
	}
	ps_stop_readers(n);
	ps_clear();

	for (int i = 0; i < n; i++) {
		uninit += ps_readers[i].uninit;
		poisoned += ps_readers[i].poisoned;
		torn += ps_readers[i].torn;
		changed += ps_readers[i].changed;
	}
	ktest_info("%d objects published before init; readers saw %ld uninitialised",
		   k - 1, uninit);
	KEXPECT(uninit > 0);
	/* The grace periods were still respected: nothing freed was read. */
	KEXPECT_EQ(poisoned, 0);
	(void)torn;		/* a partly initialised object is expected here */
	(void)changed;		/* ...and so is one that changes under a reader */
}

/* ------------------------------------------------------------------ */
/* Examples 1 and 2: deletion and replacement                          */
/* ------------------------------------------------------------------ */

struct efoo {
	struct list_head list;
	int a;
	int b;
	int c;
	int gen;	/* which round's middle element (0: first and last) */
	struct rcu_head rh;
};

enum { EX_DELETE, EX_REPLACE };

#define EX_ROUNDS	20
#define EX_MAX_SEEN	8	/* a longer walk is garbage */
#define EX_LINGER_NS	(10 * NSEC_PER_MSEC)	/* hold a retracted element */

static LIST_HEAD(ex_head);
static DEFINE_SPINLOCK(ex_lock);
static struct efoo *ex_first, *ex_last;		/* (1,2,3) and (9,10,11) */
static int ex_mode;
static bool ex_linger_cross_cpu;	/* the lingering reader has its own CPU */

/* Updater -> readers, each a round number; release/acquire pairs. */
static int ex_round;		/* the round that wants a lingering reader */
static int ex_in_sync;		/* its element retracted, synchronize_rcu() next */
static int ex_gp_done;		/* its synchronize_rcu() returned */
static int ex_freed;		/* its element was kfree()d */
/* Lingering reader -> updater. */
static int ex_linger_holding;	/* the reader stands on that round's element */

struct ex_reader {
	struct task_struct *task;
	int cpu;
	bool linger;		/* this one holds the element being retracted */
	int last_lingered;
	int last_start_done;	/* ex_gp_done when its last finished pass began */
	long passes;
	long old_seen;		/* whole old version */
	long new_seen;		/* whole new version */
	long mixed;		/* anything else: a mix, garbage, a freed element */
	long post_gp_old;	/* began after gp_done, still saw the element */
	long held;		/* rounds it held the element being retracted */
	long held_across;	/* ...while the updater was in synchronize_rcu() */
	long held_broken;	/* the held element changed under it */
};

static struct ex_reader ex_readers[NR_CPUS];
static atomic_t ex_reports;

static bool trip_is(const int *v, int a, int b, int c, int gen)
{
	return v[0] == a && v[1] == b && v[2] == c && (gen < 0 || v[3] == gen);
}

/*
 * The lingering reader stands on element pos of round `round` inside its
 * critical section.  It tells the updater, waits (busy, never sleeping)
 * until the updater has retracted the element and entered
 * synchronize_rcu(), then keeps holding it for a while, or until the
 * updater (wrongly) frees it.  The element must not change meanwhile.
 */
static bool ex_linger(struct ex_reader *r, struct efoo *pos, const int *v, int round)
{
	struct list_head *next = READ_ONCE(pos->list.next);
	u64 t0;

	r->held++;
	smp_store_release(&ex_linger_holding, round);
	if (ex_linger_cross_cpu) {
		t0 = ktime_get_ns();
		while (smp_load_acquire(&ex_in_sync) != round && budget_left(t0))
			udelay(5);
		if (smp_load_acquire(&ex_in_sync) == round)
			r->held_across++;
		t0 = ktime_get_ns();
		while (smp_load_acquire(&ex_freed) != round &&
		       ktime_get_ns() - t0 < EX_LINGER_NS)
			udelay(5);
	} else {
		/* The updater shares this CPU: it cannot run before we leave. */
		mdelay(1);
	}
	if (trip_is(v, READ_ONCE(pos->a), READ_ONCE(pos->b), READ_ONCE(pos->c),
		    READ_ONCE(pos->gen)) && READ_ONCE(pos->list.next) == next)
		return true;
	r->held_broken++;
	if (atomic_inc_return(&ex_reports) <= 4)
		ktest_info("reader on CPU%d: held element (5,6,7) gen %d became (%#x,%#x,%#x) gen %#x next %p",
			   r->cpu, round, READ_ONCE(pos->a), READ_ONCE(pos->b),
			   READ_ONCE(pos->c), READ_ONCE(pos->gen), READ_ONCE(pos->list.next));
	return false;
}

/* One pass of the article's reader loop over the list; classifies it. */
static void ex_pass(struct ex_reader *r, int linger_round)
{
	int v[EX_MAX_SEEN][4], n = 0, start_done;
	bool bad = false, old, new;
	struct list_head *nx;
	struct efoo *pos;

	/* Pairs with the updater's release after synchronize_rcu(). */
	start_done = smp_load_acquire(&ex_gp_done);

	rcu_read_lock();
	/*
	 * list_for_each_entry_rcu(pos, &ex_head, list), spelled out with the
	 * same primitives so that each ->next is loaded once and checked
	 * before it is followed.  With a correct RCU the check never fires;
	 * with a broken one (rcu.inject=no_wait) the macro would follow a
	 * freed element's poisoned ->next between our check and its own
	 * load, and the reader would fault instead of counting the failure.
	 */
	for (pos = list_entry_rcu(list_next_rcu(&ex_head), struct efoo, list);
	     &pos->list != &ex_head;
	     pos = list_entry(nx, struct efoo, list)) {
		if (n == EX_MAX_SEEN) {
			bad = true;
			break;
		}
		v[n][0] = READ_ONCE(pos->a);
		v[n][1] = READ_ONCE(pos->b);
		v[n][2] = READ_ONCE(pos->c);
		v[n][3] = READ_ONCE(pos->gen);
		if (linger_round && trip_is(v[n], 5, 6, 7, linger_round)) {
			if (!ex_linger(r, pos, v[n], linger_round)) {
				bad = true;
				n++;
				break;
			}
			r->last_lingered = linger_round;
		}
		n++;
		/* Subscribe to the next element; never follow a freed one's. */
		nx = rcu_dereference(list_next_rcu(&pos->list));
		if (ptr_poisoned(nx)) {
			bad = true;
			break;
		}
	}
	rcu_read_unlock();

	old = !bad && n == 3 && trip_is(v[0], 1, 2, 3, 0) && trip_is(v[1], 5, 6, 7, -1) &&
	      v[1][3] > 0 && trip_is(v[2], 9, 10, 11, 0);
	if (ex_mode == EX_DELETE)
		new = !bad && n == 2 && trip_is(v[0], 1, 2, 3, 0) &&
		      trip_is(v[1], 9, 10, 11, 0);
	else
		new = !bad && n == 3 && trip_is(v[0], 1, 2, 3, 0) &&
		      trip_is(v[1], 5, 2, 3, -1) && v[1][3] > 0 &&
		      trip_is(v[2], 9, 10, 11, 0);

	r->passes++;
	if (old) {
		r->old_seen++;
		/* The element of round v[1][3] was gone before we began. */
		if (v[1][3] <= start_done) {
			r->post_gp_old++;
			if (atomic_inc_return(&ex_reports) <= 4)
				ktest_info("reader on CPU%d: pass begun after round %d's grace period saw its element",
					   r->cpu, start_done);
		}
	} else if (new) {
		r->new_seen++;
	} else {
		r->mixed++;
		if (atomic_inc_return(&ex_reports) <= 4) {
			ktest_info("reader on CPU%d: not a version of the list (%d elements%s):",
				   r->cpu, n, bad ? ", broken" : "");
			for (int i = 0; i < n; i++)
				ktest_info("  (%#x, %#x, %#x) gen %#x", v[i][0], v[i][1],
					   v[i][2], v[i][3]);
		}
	}
	/* Tells the updater a pass that began after start_done is over. */
	smp_store_release(&r->last_start_done, start_done);
}

static int ex_reader_fn(void *arg)
{
	struct ex_reader *r = arg;
	u64 burst = ktime_get_ns();

	while (!kthread_should_stop()) {
		int want = r->linger ? smp_load_acquire(&ex_round) : 0;

		ex_pass(r, want != r->last_lingered ? want : 0);
		/* The lingering reader never sleeps: each round waits for it. */
		if (r->linger)
			cond_resched();
		else
			reader_pause(&burst);
	}
	return 0;
}

static struct efoo *ex_new(int a, int b, int c, int gen)
{
	struct efoo *p = kmalloc(sizeof(*p), GFP_KERNEL);

	if (p) {
		p->a = a;
		p->b = b;
		p->c = c;
		p->gen = gen;
	}
	return p;
}

/* The updaters' search (the article's search(head, key)), lock held. */
static struct efoo *ex_search(int key)
{
	struct efoo *pos;

	list_for_each_entry_rcu(pos, &ex_head, list, lockdep_is_held(&ex_lock)) {
		if (pos->a == key)
			return pos;
	}
	return NULL;
}

/* Has any reader finished a pass that began after round's grace period? */
static bool ex_post_gp_pass_done(int n, int round)
{
	for (int i = 0; i < n; i++) {
		if (smp_load_acquire(&ex_readers[i].last_start_done) >= round)
			return true;
	}
	return false;
}

/* Waits, as a quiescent updater, until cond() or the budget is gone. */
#define EX_WAIT(cond)							\
({									\
	u64 __t0 = ktime_get_ns();					\
	while (!(cond) && budget_left(__t0))				\
		cond_resched();						\
	(cond);								\
})

/*
 * Makes the middle element a fresh (5,6,7) of generation round: Example 1
 * puts one back after the deletion of the previous round, Example 2
 * replaces the previous round's (5,2,3).  Readers see two valid versions
 * meanwhile, as in the examples themselves.
 */
static bool ex_restore(int round)
{
	struct efoo *m = ex_new(5, 6, 7, round), *old = NULL;

	if (!m)
		return false;
	spin_lock(&ex_lock);
	if (ex_mode == EX_DELETE) {
		list_add_rcu(&m->list, &ex_first->list);
	} else {
		old = ex_search(5);
		if (old)
			list_replace_rcu(&old->list, &m->list);
		else
			list_add_rcu(&m->list, &ex_first->list);
	}
	spin_unlock(&ex_lock);
	if (old)
		kfree_rcu(old, rh);	/* not the subject here: no need to wait */
	return true;
}

/* One round of the article's example; the middle is (5,6,7) gen round. */
static void ex_round_run(int n, int round)
{
	struct efoo *p, *q = NULL;
	bool intact;

	if (ex_mode == EX_REPLACE) {
		q = kmalloc(sizeof(*q), GFP_KERNEL);
		if (!q) {
			KEXPECT(q != NULL);
			return;
		}
	}

	/* A reader stands on the element before it is retracted. */
	smp_store_release(&ex_round, round);
	KEXPECT(EX_WAIT(smp_load_acquire(&ex_linger_holding) == round));

	spin_lock(&ex_lock);
	p = ex_search(5);
	KEXPECT(p && p->gen == round);
	if (!p) {
		spin_unlock(&ex_lock);
		kfree(q);
		return;
	}
	if (ex_mode == EX_DELETE) {
		/* Example 1: list_del_rcu(&p->list); */
		list_del_rcu(&p->list);
	} else {
		/* Example 2: *q = *p; q->b = 2; q->c = 3; list_replace_rcu(). */
		*q = *p;
		q->b = 2;
		q->c = 3;
		list_replace_rcu(&p->list, &q->list);
	}
	spin_unlock(&ex_lock);

	smp_store_release(&ex_in_sync, round);
	synchronize_rcu();

	/* Still intact for the readers that might hold it, until now. */
	intact = p->a == 5 && p->b == 6 && p->c == 7 && p->gen == round &&
		 p->list.next == &ex_last->list;
	KEXPECT(intact);
	smp_store_release(&ex_gp_done, round);
	kfree(p);
	smp_store_release(&ex_freed, round);

	/* A reader that began after the grace period saw the new version. */
	KEXPECT(EX_WAIT(ex_post_gp_pass_done(n, round)));
}

static void ex_run(int mode)
{
	long passes = 0, old_seen = 0, new_seen = 0, mixed = 0, post_gp_old = 0;
	long held = 0, held_across = 0, held_broken = 0;
	int cpus[NR_CPUS], n, round;
	struct efoo *pos, *tmp, *mid;
	LIST_HEAD(dead);

	ex_mode = mode;
	WRITE_ONCE(ex_round, 0);
	WRITE_ONCE(ex_in_sync, 0);
	WRITE_ONCE(ex_gp_done, 0);
	WRITE_ONCE(ex_freed, 0);
	WRITE_ONCE(ex_linger_holding, 0);
	atomic_set(&ex_reports, 0);
	ex_linger_cross_cpu = num_online_cpus() >= 2;

	/* (1,2,3), (5,6,7), (9,10,11), before any reader runs. */
	INIT_LIST_HEAD(&ex_head);
	ex_first = ex_new(1, 2, 3, 0);
	mid = ex_new(5, 6, 7, 1);
	ex_last = ex_new(9, 10, 11, 0);
	if (!ex_first || !mid || !ex_last) {
		kfree(ex_first);
		kfree(mid);
		kfree(ex_last);
		KASSERT(!"out of memory");
	}
	spin_lock(&ex_lock);
	list_add_tail_rcu(&ex_first->list, &ex_head);
	list_add_tail_rcu(&mid->list, &ex_head);
	list_add_tail_rcu(&ex_last->list, &ex_head);
	spin_unlock(&ex_lock);

	n = reader_cpus(cpus);
	for (int i = 0; i < n; i++) {
		memset(&ex_readers[i], 0, sizeof(ex_readers[i]));
		ex_readers[i].cpu = cpus[i];
		ex_readers[i].linger = i == 0;
		ex_readers[i].task = kthread_run_on_cpu(ex_reader_fn, &ex_readers[i],
							cpus[i], "ex_reader");
		KEXPECT(ex_readers[i].task != NULL);
	}

	for (round = 1; round <= EX_ROUNDS; round++) {
		if (round > 1 && !ex_restore(round)) {
			KEXPECT(!"out of memory");
			break;
		}
		ex_round_run(n, round);
	}

	for (int i = 0; i < n; i++) {
		if (ex_readers[i].task)
			kthread_stop(ex_readers[i].task);
	}
	spin_lock(&ex_lock);
	list_for_each_entry_safe(pos, tmp, &ex_head, list)
		list_move(&pos->list, &dead);
	spin_unlock(&ex_lock);
	synchronize_rcu();
	list_for_each_entry_safe(pos, tmp, &dead, list)
		kfree(pos);
	rcu_barrier();

	for (int i = 0; i < n; i++) {
		struct ex_reader *r = &ex_readers[i];

		KEXPECT(r->passes > 0);
		passes += r->passes;
		old_seen += r->old_seen;
		new_seen += r->new_seen;
		mixed += r->mixed;
		post_gp_old += r->post_gp_old;
		held += r->held;
		held_across += r->held_across;
		held_broken += r->held_broken;
	}
	ktest_info("%d rounds, %d readers: %ld passes, %ld old, %ld new, %ld neither",
		   EX_ROUNDS, n, passes, old_seen, new_seen, mixed);
	ktest_info("element held in %ld rounds, across synchronize_rcu() in %ld",
		   held, held_across);

	/* Every pass saw one well-formed version, never a mix or garbage. */
	KEXPECT_EQ(mixed, 0);
	/* The retracted element stayed intact while readers held it. */
	KEXPECT_EQ(held_broken, 0);
	/* Readers that began after synchronize_rcu() returned never found it. */
	KEXPECT_EQ(post_gp_old, 0);
	/*
	 * Both versions were seen, by construction: the lingering reader held
	 * the old one in every round, and the updater waited each round for a
	 * pass that began after the grace period.
	 */
	KEXPECT_EQ(held, EX_ROUNDS);
	KEXPECT(old_seen >= EX_ROUNDS);
	KEXPECT(new_seen >= EX_ROUNDS);
	if (ex_linger_cross_cpu)
		KEXPECT(held_across > 0);
}

KTEST(rcu_example1_deletion)
{
	ex_run(EX_DELETE);
}

KTEST(rcu_example2_replacement)
{
	ex_run(EX_REPLACE);
}

/* ------------------------------------------------------------------ */
/* Quick Quizzes 4 and 5: more than two versions                       */
/* ------------------------------------------------------------------ */

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
	struct task_struct *holder, *deleters[QQ_DELETERS];
	int ncpu = num_online_cpus(), hcpu = -1, cpu, versions;
	int others[NR_CPUS], nothers = 0;
	struct qnode *pos, *tmp;
	LIST_HEAD(dead);

	if (ncpu < 2)
		KTEST_SKIP("needs two CPUs");

	/* The holder takes the last CPU; the deleters share the others. */
	for_each_online_cpu(cpu)
		hcpu = cpu;
	for_each_online_cpu(cpu) {
		if (cpu != hcpu)
			others[nothers++] = cpu;
	}

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
	for (int i = 0; i < QQ_DELETERS; i++) {
		deleters[i] = kthread_run_on_cpu(qq_deleter_fn, (void *)(uintptr_t)i,
						 others[i % nothers], "qq_deleter");
		KEXPECT(deleters[i] != NULL);
	}

	versions = holder ? kthread_stop(holder) : 0;
	for (int i = 0; i < QQ_DELETERS; i++) {
		if (deleters[i])
			KEXPECT_EQ(kthread_stop(deleters[i]), 0);
	}

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

