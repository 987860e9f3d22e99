/*
 * "What is RCU, Fundamentally?" (McKenney & Walpole), checked against the
 * real RCU of this kernel with readers on other CPUs: publish/subscribe.
 * rcu_assign_pointer() after initialisation and rcu_dereference() in the
 * readers show only complete objects; the broken order (publish, then
 * initialise) is seen by the readers.
 *
 * Everything is counted in events.  Time appears only as generous budgets
 * that end a wait when something already went wrong, never as a threshold
 * that decides success.
 */
#include "ktest.h"
#include "rcu_article.h"

struct pfoo {
	int a;
	int b;
	int c;
	struct rcu_head rh;
};

static struct pfoo __rcu *ps_gp;
static DEFINE_SPINLOCK(ps_lock);

struct ps_reader {
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

static void ps_report(const char *what, int a, int b, int c)
{
	if (atomic_inc_return(&ps_reports) <= 4)
		ktest_info("reader on CPU%d: %s object (%#x, %#x, %#x)", smp_processor_id(), what,
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
				ps_report("freed", a, b, c);
			} else if (a < 0 || b != 2 * a || c != 3 * a) {
				r->torn++;
				ps_report("torn", a, b, c);
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
					ps_report("changed while held",
						  READ_ONCE(p->a), READ_ONCE(p->b),
						  READ_ONCE(p->c));
				}
			}
		}
		rcu_read_unlock();
		WRITE_ONCE(r->passes, r->passes + 1);
		worker_pause(&burst);
	}
	return 0;
}

static struct ps_reader ps_readers[NR_CPUS];
static struct workers ps_workers;

static int ps_start_readers(void)
{
	atomic_set(&ps_caught, 0);
	atomic_set(&ps_reports, 0);
	memset(ps_readers, 0, sizeof(ps_readers));
	KEXPECT(workers_start_others(&ps_workers, NR_CPUS, ps_reader_fn, ps_readers,
				     sizeof(ps_readers[0]), "ps_reader"));
	return ps_workers.nr;
}

/* Fewest distinct objects any reader has seen so far. */
static long ps_min_distinct(int n)
{
	long m = LONG_MAX;

	for (int i = 0; i < n; i++) {
		if (ps_workers.task[i])
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

/*
 * The article's publication: initialise, then publish.  Lab publish reads
 * its AArch64 instructions (the publishing store must be a release).
 */
static KTEST_GRADED_SITE void ps_init_and_publish(struct pfoo *p, int k)
{
	p->a = k;
	p->b = 2 * k;
	p->c = 3 * k;
	rcu_assign_pointer(ps_gp, p);
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

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: on one, no reader runs while the pointer changes");
	RCU_INIT_POINTER(ps_gp, NULL);
	n = ps_start_readers();

	for (k = 1; k <= PS_MAX_UPDATES; k++) {
		struct pfoo *p = kmalloc(sizeof(*p), GFP_KERNEL), *old;

		if (!p) {
			KEXPECT(p != NULL);
			break;
		}
		spin_lock(&ps_lock);
		old = rcu_dereference_protected(ps_gp, lockdep_is_held(&ps_lock));
		ps_init_and_publish(p, k);
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
	workers_stop(&ps_workers);
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
	workers_stop(&ps_workers);
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
