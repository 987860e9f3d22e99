/*
 * The article's Quick Quiz 6, the answer shown happening (and what TCG
 * measures instead): what an updater costs readers that never spin nor
 * block.
 */
#include "demo.h"

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
	long passes;
	long sum;
	/* Its cond_resched() calls: those that reported a quiescent state, the others. */
	long reports, others;
	u64 report_ns, other_ns;
} qq6_reader;
static struct workers qq6_workers;	/* the one reader */

/* One measuring window. */
struct qq6_window {
	long per_ms;		/* the reader's passes per millisecond */
	long reports;		/* quiescent states it reported (rcu_state.lock) */
	long report_ns;		/* the average cond_resched() that reported one */
	long other_ns;		/* the average one that did not */
	long rcu_us;		/* reports * (report_ns - other_ns): RCU's part */
	unsigned long gps;	/* call_rcu() grace periods that ended meanwhile */
};

static long qq6_updates;

static int qq6_reader_fn(void *arg)
{
	(void)arg;
	while (!kthread_should_stop()) {
		struct cfoo *p;
		long sum = 0;
		bool owes;
		u64 t0;

		rcu_read_lock();
		list_for_each_entry_rcu(p, &qq6_head, list)
			sum += READ_ONCE(p->a) + READ_ONCE(p->b) + READ_ONCE(p->c);
		rcu_read_unlock();
		qq6_reader.sum += sum;
		WRITE_ONCE(qq6_reader.passes, qq6_reader.passes + 1);
		/*
		 * Runs flat out: we are measuring it.  While a grace period
		 * waits for this CPU, this is where it reports its quiescent
		 * state, under the global rcu_state.lock (kernel/rcu/gp.c).
		 */
		owes = rcu_cpu_owes_qs(smp_processor_id());
		t0 = ktime_get_ns();
		cond_resched();
		t0 = ktime_get_ns() - t0;
		if (owes) {
			WRITE_ONCE(qq6_reader.report_ns, qq6_reader.report_ns + t0);
			WRITE_ONCE(qq6_reader.reports, qq6_reader.reports + 1);
		} else {
			WRITE_ONCE(qq6_reader.other_ns, qq6_reader.other_ns + t0);
			WRITE_ONCE(qq6_reader.others, qq6_reader.others + 1);
		}
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

static void qq6_measure(struct qq6_window *w)
{
	long p0 = READ_ONCE(qq6_reader.passes), r0 = READ_ONCE(qq6_reader.reports);
	long o0 = READ_ONCE(qq6_reader.others);
	u64 rn0 = READ_ONCE(qq6_reader.report_ns), on0 = READ_ONCE(qq6_reader.other_ns);
	u64 t0 = ktime_get_ns(), dt;
	struct rcu_stats s0, s1;
	long others;

	rcu_get_stats(&s0);
	msleep(QQ6_MS);
	dt = ktime_get_ns() - t0;
	rcu_get_stats(&s1);
	w->per_ms = (READ_ONCE(qq6_reader.passes) - p0) * (long)NSEC_PER_MSEC / (long)dt;
	w->reports = READ_ONCE(qq6_reader.reports) - r0;
	others = max(READ_ONCE(qq6_reader.others) - o0, 1L);
	w->report_ns = w->reports ? (long)(READ_ONCE(qq6_reader.report_ns) - rn0) / w->reports : 0;
	w->other_ns = (long)(READ_ONCE(qq6_reader.other_ns) - on0) / others;
	w->rcu_us = w->reports * max(w->report_ns - w->other_ns, 0L) / 1000;
	w->gps = s1.gps_completed - s0.gps_completed;
}

static void qq6_report(const char *label, const struct qq6_window *w)
{
	demo_say("%s %ld passes/ms; %lu grace periods ended, %ld quiescent states", label,
		 w->per_ms, w->gps, w->reports);
	demo_say("             reported: %ld ns a cond_resched() that reported one, %ld ns one "
		 "that did not", w->report_ns, w->other_ns);
}

DEMO(qq6_cost, "Quick Quiz 6: how updaters slow readers that never spin nor block")
{
	int cpus[2], n = worker_cpus(cpus, 2);
	int wcpu = n > 1 ? cpus[1] : smp_processor_id();
	struct task_struct *writer;
	struct cfoo *p, *next, *doomed[QQ6_ELEMS];
	struct qq6_window quiet, busy;
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
	workers_start_on(&qq6_workers, cpus, 1, qq6_reader_fn, NULL, 0, "qq6_reader");
	msleep(10);

	demo_step("Measuring");
	qq6_measure(&quiet);
	qq6_report("no writer:  ", &quiet);
	writer = kthread_run_on_cpu(qq6_writer_fn, NULL, wcpu, "qq6_writer");
	qq6_measure(&busy);
	kthread_stop(writer);
	qq6_report("with writer:", &busy);
	demo_say("(%ld updates meanwhile)", READ_ONCE(qq6_updates));
	workers_stop(&qq6_workers);
	if (quiet.per_ms > 0 && busy.per_ms < quiet.per_ms)
		demo_say("the reader slowed down by %ld%%",
			 (quiet.per_ms - busy.per_ms) * 100 / quiet.per_ms);
	else
		demo_say("no slowdown this time (the figures vary from run to run)");

	demo_step("The answer, and what this machine measures");
	demo_say("On real hardware the writer's stores invalidate the cache lines holding");
	demo_say("the elements in the readers' caches, so each reader's next load misses and");
	demo_say("waits for the line to come back: rcu_read_lock() costs nothing, the data");
	demo_say("does.  Under QEMU's TCG there are no caches to miss, so none of the");
	demo_say("slowdown above is cache misses.  Part of it is RCU's own: the writer's");
	demo_say("kfree_rcu()s keep call_rcu() grace periods running back to back, and each");
	demo_say("one needs a quiescent state from the reader's CPU, which its cond_resched()");
	demo_say("reports through rcu_note_context_switch() and rcu_report_qs(), taking the");
	demo_say("global rcu_state.lock that every CPU shares.  Measured above: %ld reports,",
		 busy.reports);
	demo_say("each %ld ns dearer than a cond_resched() that reports nothing: %ld us of the",
		 max(busy.report_ns - busy.other_ns, 0L), busy.rcu_us);
	demo_say("%d ms.  The rest of the slowdown is emulator effects: vCPUs are host", QQ6_MS);
	demo_say("threads sharing the host's cores, and shared-memory atomics and QEMU's own");
	demo_say("locking take host time.");
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
