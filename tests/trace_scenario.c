/*
 * The article's figure "RCU is a way of waiting for pre-existing RCU
 * read-side critical sections" ("What is RCU, Fundamentally?", section
 * "Wait For Pre-Existing RCU Readers to Complete"), happening for real
 * and recorded by the RCU trace (kernel/trace.c), for `make trace` and
 * tools/timeline.py to draw.
 *
 * Readers on every CPU but the updater's own hold the first element of a
 * small RCU list for a pseudo-random 2-15 ms, so some began before a
 * grace period (pre-existing: they must be waited for), some begin while
 * it runs (later: they may outlast it), some after.  The updater, on its
 * own CPU, removes the first element a few times, each time
 *
 *	mark "list_del_rcu"; list_del_rcu(); synchronize_rcu(); mark "kfree"; kfree();
 *
 * after removing one element with call_rcu() and the next with
 * synchronize_rcu() side by side, then one with synchronize_rcu_expedited(),
 * for the picture to contrast the three kinds of grace period.  The trace is
 * dumped on the console at the end (docs/trace.md has the line format).
 *
 * Its own bookkeeping checks the outcome: every reader made progress, and
 * no reader ever found the element it held freed (kfree() poisons memory)
 * -- the same guarantee the timeline checks from the trace.
 */
#include "ktest.h"

#define TS_ELEMS	7		/* list length at the start */
#define TS_SYNC_ROUNDS	4		/* list_del_rcu + synchronize_rcu + kfree */
#define TS_LIVE		0x11fe11feU	/* an element's magic while it may be reached */
#define TS_HOLD_MIN_US	2000		/* a reader holds its element 2 .. */
#define TS_HOLD_MAX_US	15000		/* .. 15 ms */
#define TS_BUDGET_NS	ktest_budget_ns(20, 2)	/* only runs out when something hangs */

struct ts_elem {
	struct list_head node;
	struct rcu_head rcu;
	unsigned int magic;
	int key;
};

struct ts_reader {
	u64 sections;		/* read-side critical sections completed */
	u64 held;		/* ... that held an element through their busy wait */
	u64 freed_seen;		/* elements found freed while still held: must stay 0 */
};

static LIST_HEAD(ts_list);
static DEFINE_SPINLOCK(ts_lock);
static struct ts_reader ts_readers[NR_CPUS];
static struct workers ts_workers;
static struct completion ts_cb_done;

static int ts_reader_fn(void *arg)
{
	struct ts_reader *r = arg;
	u32 seed = prandom_seed(0x9e3779b9U * (u32)(smp_processor_id() + 1));

	while (!kthread_should_stop()) {
		u32 hold_us = TS_HOLD_MIN_US +
			      prandom_u32(&seed) % (TS_HOLD_MAX_US - TS_HOLD_MIN_US + 1);
		struct ts_elem *e;

		rcu_read_lock();
		/* Subscribe to the first element (the one the updater removes next)... */
		e = list_first_or_null_rcu(&ts_list, struct ts_elem, node);
		/* ...and hold it: the read-side critical section, a bar on the timeline. */
		udelay(hold_us);
		if (e) {
			r->held++;
			/* Only its magic is read: a freed element's pointers are poison. */
			if (READ_ONCE(e->magic) != TS_LIVE)
				r->freed_seen++;
		}
		rcu_read_unlock();
		r->sections++;
		cond_resched();		/* a quiescent state; the updater's hop gets in here */
		/*
		 * Sometimes: a tick idle, no reader on this CPU.  At 16 CPUs or
		 * more, after every section and longer (worker_rest()): busy
		 * vCPUs would otherwise outnumber the host's cores many times.
		 */
		if (num_online_cpus() >= 2 * WORKER_BUSY_CPUS || prandom_u32(&seed) % 4 == 0)
			worker_rest();
	}
	return 0;
}

/* call_rcu()'s callback: the grace period is over, nobody can hold e. */
static void ts_free_cb(struct rcu_head *head)
{
	struct ts_elem *e = container_of(head, struct ts_elem, rcu);

	kfree(e);
	complete(&ts_cb_done);
}

static struct ts_elem *ts_remove_first(void)
{
	struct ts_elem *e;

	trace_mark("list_del_rcu");
	spin_lock(&ts_lock);
	e = list_first_entry_or_null(&ts_list, struct ts_elem, node);
	if (e)
		list_del_rcu(&e->node);	/* records "unpublish ptr=e" */
	spin_unlock(&ts_lock);
	return e;
}

/* Waits (sleeping) until every reader has completed `n` more sections. */
static bool ts_readers_progress(u64 n)
{
	u64 want[NR_CPUS], start = ktime_get_ns();
	int i;

	for (i = 0; i < ts_workers.nr; i++)
		want[i] = READ_ONCE(ts_readers[i].sections) + n;
	for (i = 0; i < ts_workers.nr; i++) {
		while (READ_ONCE(ts_readers[i].sections) < want[i]) {
			if (ktime_get_ns() - start > TS_BUDGET_NS)
				return false;
			msleep(1);
		}
	}
	return true;
}

/*
 * Both ways at once, first, for the picture to contrast them (the default
 * window shows the first grace periods): call_rcu() frees one element
 * after an asynchronous grace period, which ends once every CPU has
 * reported a quiescent state, in any order; the synchronize_rcu() tour
 * started just after it for the next element visits the CPUs one by one,
 * waiting on each for whatever runs there when it arrives.  Returns how
 * many elements it freed.
 */
static int ts_both_ways(void)
{
	struct ts_elem *e = ts_remove_first(), *e2;
	int freed = 0;

	KEXPECT(e != NULL);
	if (!e)
		return 0;
	trace_mark("call_rcu");
	call_rcu(&e->rcu, ts_free_cb);
	e2 = ts_remove_first();
	KEXPECT(e2 != NULL);
	if (e2) {
		synchronize_rcu();
		trace_mark("kfree");
		kfree(e2);
		freed++;
	}
	wait_for_completion(&ts_cb_done);
	return freed + 1;
}

KTEST(trace_scenario_grace_period_waits_for_readers)
{
	int i, round, freed = 0;
	u64 t0 = ktime_get_ns(), sync_before, sync_after, exp_before, exp_after;
	struct ts_elem *e, *tmp;
	bool progress, was_on = trace_enabled;

	for (i = 0; i < TS_ELEMS; i++) {
		e = kmalloc(sizeof(*e), GFP_KERNEL);
		KEXPECT(e != NULL);
		if (!e)
			break;		/* fewer elements: the rounds below notice */
		e->magic = TS_LIVE;
		e->key = i;
		spin_lock(&ts_lock);
		list_add_tail_rcu(&e->node, &ts_list);
		spin_unlock(&ts_lock);
	}
	init_completion(&ts_cb_done);

	/* A fresh recording (tracing may be on since boot: trace=rcu). */
	trace_stop();
	trace_clear();
	trace_start();
	trace_mark("readers start");

	/* The readers' CPUs: all but ours; with one CPU, ours (they share it). */
	memset(ts_readers, 0, sizeof(ts_readers));
	KEXPECT(workers_start_others(&ts_workers, NR_CPUS, ts_reader_fn, ts_readers,
				     sizeof(ts_readers[0]), "ts_reader/%d"));
	/* Readers in full swing before the first grace period. */
	progress = ts_readers_progress(1);
	KEXPECT(progress);

	sync_before = trace_count(TR_SYNC_BEGIN);
	exp_before = trace_count(TR_EXP_BEGIN);
	freed += ts_both_ways();
	msleep(5);
	/* The expedited wait beside the tour: every CPU asked at once. */
	e = ts_remove_first();
	KEXPECT(e != NULL);
	if (e) {
		synchronize_rcu_expedited();
		trace_mark("kfree");
		kfree(e);
		freed++;
	}
	msleep(5);
	for (round = 0; round < TS_SYNC_ROUNDS; round++) {
		e = ts_remove_first();
		KEXPECT(e != NULL);
		if (!e)
			break;		/* (readers still run: no early return) */
		synchronize_rcu();	/* waits for the readers that may hold e */
		trace_mark("kfree");
		kfree(e);
		freed++;
		msleep(5);		/* a gap between grace periods on the picture */
	}

	sync_after = trace_count(TR_SYNC_BEGIN);
	exp_after = trace_count(TR_EXP_BEGIN);

	/* Readers kept going during and after the grace periods. */
	progress = ts_readers_progress(1);
	KEXPECT(progress);
	trace_mark("readers stop");
	workers_stop(&ts_workers);
	trace_stop();

	/* No reader is left: what remains of the list can go without waiting. */
	spin_lock(&ts_lock);
	list_for_each_entry_safe(e, tmp, &ts_list, node) {
		list_del(&e->node);
		kfree(e);
	}
	spin_unlock(&ts_lock);

	trace_dump();
	if (was_on)
		trace_start();	/* as it was: recording again (trace=rcu) */

	for (i = 0; i < ts_workers.nr; i++) {
		struct ts_reader *r = &ts_readers[i];

		ktest_info("reader on CPU%d: %llu critical sections, %llu held an element, "
			   "%llu found it freed", ts_workers.cpu[i], (unsigned long long)r->sections,
			   (unsigned long long)r->held, (unsigned long long)r->freed_seen);
		KEXPECT(r->sections >= 2);
		KEXPECT(r->held >= 1);
		KEXPECT_EQ(r->freed_seen, 0);	/* what a too-short grace period does */
	}
	KEXPECT_EQ(freed, TS_SYNC_ROUNDS + 3);
	/* Each synchronize_rcu() made a tour (rcu.inject=no_wait skips them). */
	KEXPECT_EQ(sync_after - sync_before, TS_SYNC_ROUNDS + 1);
	KEXPECT_EQ(exp_after - exp_before, 1);
	ktest_info("trace scenario: %d grace periods in %llu ms", TS_SYNC_ROUNDS + 3,
		   (unsigned long long)((ktime_get_ns() - t0) / NSEC_PER_MSEC));
}
