/*
 * The article's first section, "Publish-Subscribe Mechanism": a pointer
 * (gp and struct foo), then a list (list_add_rcu while readers walk it).
 * Readers run as kernel threads on the other CPUs and report what they saw.
 */
#include "demo.h"

#define MAX_READERS	3
#define WAIT_MS		3000	/* only runs out when something is broken */

/* ------------------------------------------------------------------ */
/* gp and struct foo                                                   */
/* ------------------------------------------------------------------ */

struct foo {
	int a;
	int b;
	int c;
};

static struct foo __rcu *gp;

struct ps_reader {
	long passes;
	long saw_null;		/* gp was NULL */
	long saw_full;		/* a complete 1,2,3 */
	long saw_bad;		/* anything else: a half-initialised foo */
	long null_before;	/* passes that saw NULL before the first 1,2,3 */
	bool seen_full;
	int bad_a, bad_b, bad_c;
};

static struct ps_reader ps_readers[MAX_READERS];
static struct workers ps_workers;

/* The article's reader, counting what it finds. */
static int ps_reader_fn(void *arg)
{
	struct ps_reader *r = arg;
	u64 burst = ktime_get_ns();

	while (!kthread_should_stop()) {
		struct foo *p;

		rcu_read_lock();
		p = rcu_dereference(gp);
		if (!p) {
			WRITE_ONCE(r->saw_null, r->saw_null + 1);
		} else {
			int a = READ_ONCE(p->a), b = READ_ONCE(p->b), c = READ_ONCE(p->c);

			if (a == 1 && b == 2 && c == 3) {
				WRITE_ONCE(r->saw_full, r->saw_full + 1);
				if (!r->seen_full) {
					r->null_before = r->saw_null;
					/*
					 * [ps_seen_release] pairs [ps_all_seen_acquire],
					 * [ps_seen_report_acquire]: null_before is written
					 * before the flag, so the report prints our count.
					 */
					smp_store_release(&r->seen_full, true);
				}
			} else {
				r->bad_a = a, r->bad_b = b, r->bad_c = c;
				WRITE_ONCE(r->saw_bad, r->saw_bad + 1);
			}
		}
		rcu_read_unlock();
		WRITE_ONCE(r->passes, r->passes + 1);
		worker_pause(&burst);
	}
	return 0;
}

static void ps_start(void)
{
	memset(ps_readers, 0, sizeof(ps_readers));
	if (!workers_start_others(&ps_workers, MAX_READERS, ps_reader_fn, ps_readers,
				  sizeof(ps_readers[0]), "ps_reader"))
		demo_fail("cannot start the readers");
}

static void ps_stop(void)
{
	workers_stop(&ps_workers);
}

static bool ps_all_seen_full(void)
{
	for (int i = 0; i < ps_workers.nr; i++)
		/* [ps_all_seen_acquire] pairs [ps_seen_release]: or we might see the flag and an old null_before. */
		if (ps_workers.task[i] && !smp_load_acquire(&ps_readers[i].seen_full))
			return false;
	return true;
}

#define PS_CYCLES	20

DEMO(publish, "Publish-subscribe: rcu_assign_pointer(gp, p) and rcu_dereference(gp)")
{
	struct foo *p;
	long passes = 0, nulls = 0, full = 0, bad = 0;
	u64 t0;

	demo_step("gp starts NULL; readers on other CPUs subscribe to it");
	demo_code("struct foo { int a; int b; int c; };\n"
		  "struct foo *gp = NULL;\n\n"
		  "rcu_read_lock();                 /* each reader, in a loop */\n"
		  "p = rcu_dereference(gp);\n"
		  "if (p != NULL)\n"
		  "        do_something_with(p->a, p->b, p->c);\n"
		  "rcu_read_unlock();");
	RCU_INIT_POINTER(gp, NULL);
	ps_start();
	msleep(30);
	for (int i = 0; i < ps_workers.nr; i++)
		demo_say("reader on CPU%d: %ld passes so far, every one saw gp == NULL",
			 ps_workers.cpu[i], READ_ONCE(ps_readers[i].passes));

	demo_step("Publish: initialise first, then rcu_assign_pointer()");
	demo_code("p = kmalloc(sizeof(*p), GFP_KERNEL);\n"
		  "p->a = 1;\np->b = 2;\np->c = 3;\n"
		  "rcu_assign_pointer(gp, p);       /* a release store */");
	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		demo_fail("out of memory");
		ps_stop();
		return;
	}
	p->a = 1;
	p->b = 2;
	p->c = 3;
	rcu_assign_pointer(gp, p);
	t0 = ktime_get_ns();
	while (!ps_all_seen_full() && ktime_get_ns() - t0 < WAIT_MS * NSEC_PER_MSEC)
		msleep(1);
	for (int i = 0; i < ps_workers.nr; i++) {
		struct ps_reader *r = &ps_readers[i];

		/* [ps_seen_report_acquire] pairs [ps_seen_release]: or the report could print an old null_before. */
		if (!smp_load_acquire(&r->seen_full)) {
			demo_fail("reader on CPU%d never saw the published foo", ps_workers.cpu[i]);
			continue;
		}
		demo_say("reader on CPU%d: %ld passes saw NULL, then it saw %d,%d,%d: "
			 "the whole foo, at once", ps_workers.cpu[i], r->null_before, p->a, p->b,
			 p->c);
	}
	demo_say("rcu_assign_pointer() orders the three initialising stores before the");
	demo_say("store to gp; rcu_dereference() is one untorn load whose address the");
	demo_say("reader's loads of p->a, p->b, p->c depend on (on DEC Alpha it would need");
	demo_say("a barrier too).  Subscribing never waits and never retries.");

	demo_step("Publish and retract %d more times while the readers race", PS_CYCLES);
	demo_code("rcu_assign_pointer(gp, NULL);    /* retract */\n"
		  "synchronize_rcu();               /* readers holding p are done */\n"
		  "kfree(p);\n"
		  "p = kmalloc(...); p->a = 1; p->b = 2; p->c = 3;\n"
		  "rcu_assign_pointer(gp, p);       /* publish again */");
	for (int i = 0; i < PS_CYCLES; i++) {
		struct foo *q;

		rcu_assign_pointer(gp, NULL);
		synchronize_rcu();
		kfree(p);
		q = kmalloc(sizeof(*q), GFP_KERNEL);
		if (!q) {
			p = NULL;
			break;
		}
		q->a = 1;
		q->b = 2;
		q->c = 3;
		rcu_assign_pointer(gp, q);
		p = q;
		msleep(1);
	}

	demo_step("Retract for good: rcu_assign_pointer(gp, NULL), synchronize_rcu(), kfree(p)");
	rcu_assign_pointer(gp, NULL);
	synchronize_rcu();
	kfree(p);
	for (int i = 0; i < ps_workers.nr; i++) {
		struct ps_reader *r = &ps_readers[i];

		passes += READ_ONCE(r->passes);
		nulls += READ_ONCE(r->saw_null);
		full += READ_ONCE(r->saw_full);
		bad += READ_ONCE(r->saw_bad);
		if (READ_ONCE(r->saw_bad))
			demo_fail("reader on CPU%d saw %d,%d,%d", ps_workers.cpu[i], r->bad_a,
				  r->bad_b, r->bad_c);
	}
	demo_say("%d reader%s made %ld passes: %ld saw NULL, %ld saw 1,2,3, and %ld saw a",
		 ps_workers.nr, ps_workers.nr == 1 ? "" : "s", passes, nulls, full, bad);
	ps_stop();
	demo_say("half-initialised foo.  Either NULL or the whole 1,2,3: nothing in between.");

	demo_step("What this run proves, and what it does not");
	demo_say("Here a plain gp = p would print the same 0: x86-64 never makes two stores");
	demo_say("visible out of order, and QEMU's TCG on an x86-64 host does not reorder an");
	demo_say("AArch64 guest's stores either.  rcu_assign_pointer() is what makes the order");
	demo_say("hold where it can break: it forbids the compiler to sink the initialising");
	demo_say("stores below the publication (compiled, it is a plain mov on x86-64 and an");
	demo_say("stlr, a store-release, on AArch64), and on a weakly ordered CPU it keeps");
	demo_say("them ahead for the other CPUs too.  On the reader's side, rcu_dereference()");
	demo_say("relies on the address dependency from gp to p->a, which every CPU but DEC");
	demo_say("Alpha honours, and which the compiler must not break: no value speculation");
	demo_say("(guessing p and loading p->a before checking the guess) and no comparing p");
	demo_say("against a known pointer and then using that pointer instead.");
}

/* ------------------------------------------------------------------ */
/* A list: list_add_rcu() while readers walk it                        */
/* ------------------------------------------------------------------ */

#define LP_MAX_LEN	8

struct lfoo {
	struct list_head list;
	int a;
	int b;
	int c;
};

static LIST_HEAD(lp_head);
static DEFINE_SPINLOCK(lp_lock);

struct lp_reader {
	long passes;
	long by_len[LP_MAX_LEN + 1];	/* walks that found this many elements */
	long bad;			/* an element not a, a+1, a+2 */
	bool seen[LP_MAX_LEN + 1];	/* snap[n] holds the first n-element walk */
	int snap[LP_MAX_LEN + 1][LP_MAX_LEN];	/* its a values */
};

static struct lp_reader lp_readers[MAX_READERS];
static struct workers lp_workers;

static int lp_reader_fn(void *arg)
{
	struct lp_reader *r = arg;
	u64 burst = ktime_get_ns();

	while (!kthread_should_stop()) {
		int as[LP_MAX_LEN], n = 0;
		struct lfoo *p;

		rcu_read_lock();
		list_for_each_entry_rcu(p, &lp_head, list) {
			int a = READ_ONCE(p->a);

			if (READ_ONCE(p->b) != a + 1 || READ_ONCE(p->c) != a + 2)
				WRITE_ONCE(r->bad, r->bad + 1);
			if (n < LP_MAX_LEN)
				as[n] = a;
			n++;
		}
		rcu_read_unlock();
		n = min(n, LP_MAX_LEN);
		WRITE_ONCE(r->by_len[n], r->by_len[n] + 1);
		if (!r->seen[n]) {
			memcpy(r->snap[n], as, n * sizeof(int));
			/*
			 * [lp_seen_release] pairs [lp_seen_wait_acquire],
			 * [lp_seen_report_acquire]: the snapshot is copied before
			 * the flag, so the demo never prints a half-copied list.
			 */
			smp_store_release(&r->seen[n], true);
		}
		WRITE_ONCE(r->passes, r->passes + 1);
		worker_pause(&burst);
	}
	return 0;
}

/* "head -> 5,6,7 -> 9,10,11" from a list of a values. */
static void lp_show(const char *who, const int *as, int n)
{
	char line[256];
	size_t len = 0;

	demo_fmt(line, sizeof(line), &len, "%s head", who);
	for (int i = 0; i < n; i++) {
		demo_fmt(line, sizeof(line), &len, " -> ");
		demo_fmt_elem(line, sizeof(line), &len, as[i], as[i] + 1, as[i] + 2, false);
	}
	if (!n)
		demo_fmt(line, sizeof(line), &len, " (empty)");
	demo_say("%s", line);
}

static void lp_free_all(void)
{
	struct lfoo *p, *n, *doomed[LP_MAX_LEN];
	int nr = 0;

	spin_lock(&lp_lock);
	list_for_each_entry_safe(p, n, &lp_head, list) {
		if (nr == LP_MAX_LEN)
			break;
		list_del_rcu(&p->list);	/* ->next kept for readers standing on p */
		doomed[nr++] = p;
	}
	spin_unlock(&lp_lock);
	synchronize_rcu();
	while (nr)
		kfree(doomed[--nr]);
}

DEMO(list_publish, "Publish-subscribe on a list: list_add_rcu() while readers walk it")
{
	static const int adds[] = { 9, 5, 1 };
	long passes = 0, bad = 0;

	demo_step("LIST_HEAD(head): readers walk it with list_for_each_entry_rcu()");
	demo_code("rcu_read_lock();\n"
		  "list_for_each_entry_rcu(p, head, list)\n"
		  "        do_something_with(p->a, p->b, p->c);\n"
		  "rcu_read_unlock();");
	memset(lp_readers, 0, sizeof(lp_readers));
	if (!workers_start_others(&lp_workers, MAX_READERS, lp_reader_fn, lp_readers,
				  sizeof(lp_readers[0]), "lp_reader"))
		demo_fail("cannot start the readers");
	msleep(20);
	lp_show("every reader sees:", NULL, 0);

	for (size_t k = 0; k < ARRAY_SIZE(adds); k++) {
		struct lfoo *p;
		u64 t0;
		char who[48];

		demo_step("list_add_rcu() of %d,%d,%d at the head", adds[k], adds[k] + 1,
			  adds[k] + 2);
		if (k == 0)
			demo_code("p = kmalloc(sizeof(*p), GFP_KERNEL);\n"
				  "p->a = 9; p->b = 10; p->c = 11;\n"
				  "spin_lock(&lock);                /* one updater at a time */\n"
				  "list_add_rcu(&p->list, &head);   /* publishes p */\n"
				  "spin_unlock(&lock);");
		p = kmalloc(sizeof(*p), GFP_KERNEL);
		if (!p) {
			demo_fail("out of memory");
			break;
		}
		p->a = adds[k];
		p->b = adds[k] + 1;
		p->c = adds[k] + 2;
		spin_lock(&lp_lock);
		list_add_rcu(&p->list, &lp_head);
		spin_unlock(&lp_lock);
		t0 = ktime_get_ns();
		/* [lp_seen_wait_acquire] pairs [lp_seen_release]: or we might see the flag and a half-copied snapshot. */
		while (!smp_load_acquire(&lp_readers[0].seen[k + 1]) &&
		       ktime_get_ns() - t0 < WAIT_MS * NSEC_PER_MSEC)
			msleep(1);
		/* [lp_seen_report_acquire] pairs [lp_seen_release]: or the report could print a half-copied snapshot. */
		if (!smp_load_acquire(&lp_readers[0].seen[k + 1])) {
			demo_fail("the reader on CPU%d never saw %d elements", lp_workers.cpu[0],
				  (int)k + 1);
			continue;
		}
		snprintf(who, sizeof(who), "reader on CPU%d now sees:", lp_workers.cpu[0]);
		lp_show(who, lp_readers[0].snap[k + 1], (int)k + 1);
	}

	demo_step("What the readers saw");
	workers_stop(&lp_workers);
	for (int i = 0; i < lp_workers.nr; i++) {
		struct lp_reader *r = &lp_readers[i];

		passes += r->passes;
		bad += r->bad;
		demo_say("reader on CPU%d: %ld walks: %ld found 0 elements, %ld found 1, "
			 "%ld found 2, %ld found 3", lp_workers.cpu[i], r->passes, r->by_len[0],
			 r->by_len[1], r->by_len[2], r->by_len[3]);
	}
	if (bad)
		demo_fail("%ld walks met an element that was not a,a+1,a+2", bad);
	demo_say("%ld walks, %ld incomplete elements: each walk saw the list before or after",
		 passes, bad);
	demo_say("an addition, each element whole.  list_add_rcu() sets the new element's");
	demo_say("next first and publishes it with rcu_assign_pointer(): one pointer store");
	demo_say("makes it reachable (Quick Quiz 2 races this many times).");
	lp_free_all();
	demo_say("(list emptied: list_del_rcu(), synchronize_rcu(), kfree())");
}
