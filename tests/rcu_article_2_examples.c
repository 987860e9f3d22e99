/*
 * "What is RCU, Fundamentally?" (McKenney & Walpole), checked against the
 * real RCU of this kernel with readers on other CPUs: Example 1 (deletion)
 * and Example 2 (replacement).  Every reader sees a well-formed old or new
 * version, never a mix; the retracted element stays intact (payload and
 * ->next) for the readers that hold it until synchronize_rcu() returns,
 * and no reader that starts afterwards finds it.
 *
 * Everything is counted in events.  Time appears only as generous budgets
 * that end a wait when something already went wrong, never as a threshold
 * that decides success.
 */
#include "ktest.h"
#include "rcu_article.h"

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
static bool ex_expedited;	/* wait with synchronize_rcu_expedited() */
static bool ex_linger_cross_cpu;	/* the lingering reader has its own CPU */

/* Updater -> readers, each a round number; release/acquire pairs. */
static int ex_round;		/* the round that wants a lingering reader */
static int ex_in_sync;		/* its element retracted, synchronize_rcu() next */
static int ex_gp_done;		/* its synchronize_rcu() returned */
static int ex_freed;		/* its element was kfree()d */
/* Lingering reader -> updater. */
static int ex_linger_holding;	/* the reader stands on that round's element */

struct ex_reader {
	bool linger;		/* this one holds the element being retracted */
	int last_lingered;
	int last_start_done;	/* ex_gp_done when its last finished pass began */
	long passes;
	long old_seen;		/* whole old version */
	long new_seen;		/* whole new version */
	long mixed;		/* anything else: a mix, garbage, a freed element */
	long outlived_gp;	/* saw the element, and its synchronize_rcu() returned before it left */
	long held;		/* rounds it held the element being retracted */
	long held_across;	/* ...while the updater was in synchronize_rcu() */
	long held_broken;	/* the held element changed under it */
};

static struct ex_reader ex_readers[NR_CPUS];
static struct workers ex_workers;
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
			   smp_processor_id(), round, READ_ONCE(pos->a), READ_ONCE(pos->b),
			   READ_ONCE(pos->c), READ_ONCE(pos->gen), READ_ONCE(pos->list.next));
	return false;
}

/* One pass of the article's reader loop over the list; classifies it. */
static void ex_pass(struct ex_reader *r, int linger_round)
{
	int v[EX_MAX_SEEN][4], n = 0, start_done, end_done;
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
	/*
	 * Still inside: which round's synchronize_rcu() has returned?  If we
	 * found round r's element, we began before its removal, so its grace
	 * period must outlast us: end_done < r.  (A pass that merely began
	 * after gp_done cannot find the element whatever RCU does: the
	 * release/acquire pair on ex_gp_done alone orders the removal first.)
	 */
	end_done = READ_ONCE(ex_gp_done);
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
	/* Round v[1][3]'s grace period ended while we still held its (5,6,7). */
	if (n >= 2 && trip_is(v[1], 5, 6, 7, -1) && v[1][3] > 0 && v[1][3] <= end_done) {
		r->outlived_gp++;
		if (atomic_inc_return(&ex_reports) <= 4)
			ktest_info("reader on CPU%d: round %d's synchronize_rcu() returned while it held the element",
				   smp_processor_id(), v[1][3]);
	}
	if (old) {
		r->old_seen++;
	} else if (new) {
		r->new_seen++;
	} else {
		r->mixed++;
		if (atomic_inc_return(&ex_reports) <= 4) {
			ktest_info("reader on CPU%d: not a version of the list (%d elements%s):",
				   smp_processor_id(), n, bad ? ", broken" : "");
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
			worker_pause(&burst);
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
	if (ex_expedited)
		synchronize_rcu_expedited();
	else
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

static void ex_run(int mode, bool expedited)
{
	long passes = 0, old_seen = 0, new_seen = 0, mixed = 0, outlived_gp = 0;
	long held = 0, held_across = 0, held_broken = 0;
	int n, round;
	struct efoo *pos, *tmp, *mid;
	LIST_HEAD(dead);

	ex_mode = mode;
	ex_expedited = expedited;
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

	memset(ex_readers, 0, sizeof(ex_readers));
	ex_readers[0].linger = true;
	KEXPECT(workers_start_others(&ex_workers, NR_CPUS, ex_reader_fn, ex_readers,
				     sizeof(ex_readers[0]), "ex_reader"));
	n = ex_workers.nr;

	for (round = 1; round <= EX_ROUNDS; round++) {
		if (round > 1 && !ex_restore(round)) {
			KEXPECT(!"out of memory");
			break;
		}
		ex_round_run(n, round);
	}

	workers_stop(&ex_workers);
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
		outlived_gp += r->outlived_gp;
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
	/* No reader that found an element outlived its grace period. */
	KEXPECT_EQ(outlived_gp, 0);
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
	ex_run(EX_DELETE, false);
}

KTEST(rcu_example2_replacement)
{
	ex_run(EX_REPLACE, false);
}

/* The same examples with synchronize_rcu_expedited() in place of synchronize_rcu(). */
KTEST(rcu_example1_deletion_expedited)
{
	ex_run(EX_DELETE, true);
}

KTEST(rcu_example2_replacement_expedited)
{
	ex_run(EX_REPLACE, true);
}
