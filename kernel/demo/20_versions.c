/*
 * "Maintain Multiple Versions of Recently Updated Objects": the article's
 * Example 1 (deletion) and Example 2 (replacement), drawn as its figures
 * are, from a real run.
 *
 * The list is 1,2,3 -> 5,6,7 -> 9,10,11 and p points to 5,6,7.  Two kinds
 * of readers run on the other CPUs:
 *  - the holder enters rcu_read_lock(), finds 5,6,7 and keeps it while the
 *    updater removes it, looks at it again, and leaves its critical section
 *    a little after the grace period began: the grace period must wait;
 *  - walkers walk the list over and over and say which version they saw.
 * With a single CPU no reader can be inside its critical section while the
 * updater runs, and the demo says so.
 *
 * Elements that readers may still hold are printed red (with colour) or
 * as [a,b,c]* (without), the article's red border.
 */
#include "demo.h"

#define MAX_WALKERS	2
#define MAX_SHOW	4
#define LINGER_MS	150	/* the holder stays this long after the grace period began */
#define MAX_HOLD_MS	2000	/* and never longer than this (far below a stall warning) */
#define WAIT_MS		3000

struct vfoo {
	struct list_head list;
	int a;
	int b;
	int c;
};

static LIST_HEAD(v_head);
static DEFINE_SPINLOCK(v_lock);

/* The element a reader may hold, as the figures draw it. */
struct triple {
	int a, b, c;
};

/* ------------------------------------------------------------------ */
/* The holder                                                          */
/* ------------------------------------------------------------------ */

static struct holder {
	struct task_struct *task;
	int cpu;
	bool go;		/* demo: enter a critical section and grab 5,6,7 */
	bool holding;		/* holder: inside it, holding 5,6,7 */
	bool updated;		/* demo: the removal/replacement is done */
	bool view_ready;	/* holder: view[] is what it sees from 5,6,7 now */
	bool gp_started;	/* demo: the grace period began */
	bool released;		/* holder: rcu_read_unlock() done */
	struct triple view[MAX_SHOW];
	int nview;
	u64 unlock_ns;
} holder;

static int holder_fn(void *arg)
{
	struct holder *h = arg;

	while (!kthread_should_stop()) {
		struct vfoo *p, *pos;
		bool found = false;
		u64 t0;

		if (!READ_ONCE(h->go)) {
			msleep(1);
			continue;
		}
		rcu_read_lock();
		list_for_each_entry_rcu(p, &v_head, list) {
			if (READ_ONCE(p->a) == 5 && READ_ONCE(p->b) == 6) {
				found = true;
				break;
			}
		}
		if (found) {
			/*
			 * [holding_release] pairs [demo_wait_acquire]: the walk
			 * that found p is done before the demo, seeing the flag,
			 * removes p: the narration's "pre-existing reader" is one.
			 */
			smp_store_release(&h->holding, true);
			/* Waits for the update, holding p: a reader delayed here. */
			t0 = ktime_get_ns();
			/* [updated_acquire] pairs [updated_release]: or we might see the flag and the list before the update. */
			while (!smp_load_acquire(&h->updated) &&
			       ktime_get_ns() - t0 < MAX_HOLD_MS * NSEC_PER_MSEC)
				udelay(20);
			/* Look again: p is intact and its ->next still leads on. */
			h->nview = 0;
			pos = p;
			list_for_each_entry_from_rcu(pos, &v_head, list) {
				if (h->nview < MAX_SHOW)
					h->view[h->nview++] = (struct triple){ READ_ONCE(pos->a),
						READ_ONCE(pos->b), READ_ONCE(pos->c) };
			}
			/* [view_ready_release] pairs [demo_wait_acquire]: or the demo could print a half-filled view[]. */
			smp_store_release(&h->view_ready, true);
			while (!READ_ONCE(h->gp_started) &&	/* a signal: it publishes nothing */
			       ktime_get_ns() - t0 < MAX_HOLD_MS * NSEC_PER_MSEC)
				udelay(20);
			mdelay(LINGER_MS);	/* a busy wait: legal in a reader */
		}
		rcu_read_unlock();
		h->unlock_ns = ktime_get_ns();
		WRITE_ONCE(h->go, false);
		/*
		 * [released_release] pairs [released_narrated_acquire],
		 * [released_sync_acquire]: unlock_ns is written before the flag,
		 * so the demo compares the grace period's end with our real
		 * unlock time, not a stale one.
		 */
		smp_store_release(&h->released, true);
		if (found)
			demo_say("reader on CPU%d: rcu_read_unlock(): it no longer holds 5,6,7",
				 h->cpu);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The walkers                                                         */
/* ------------------------------------------------------------------ */

static struct walker {
	long walks;
	long old_version;	/* found 5,6,7 */
	long new_version;	/* found the list as the update left it */
	long bad;		/* anything else */
	long late_old;		/* found 5,6,7 though it began after the grace period */
} walkers[MAX_WALKERS];
static struct workers walker_group;
static bool replacing;		/* Example 2: the new version holds 5,2,3 */
static u64 gp_end_ns;		/* when the grace period ended (0: not yet) */

static int walker_fn(void *arg)
{
	struct walker *w = arg;
	u64 burst = ktime_get_ns();

	while (!kthread_should_stop()) {
		struct triple seen[MAX_SHOW];
		struct vfoo *p;
		int n = 0;
		u64 start = ktime_get_ns();
		/*
		 * [gp_end_acquire] pairs [gp_end_narrated_release],
		 * [gp_end_sync_release]: seeing the grace period's end, we see
		 * the list as it was then, with the old element gone.
		 */
		u64 end_of_gp = smp_load_acquire(&gp_end_ns);
		bool old, new, ok;

		rcu_read_lock();
		list_for_each_entry_rcu(p, &v_head, list) {
			if (n < MAX_SHOW)
				seen[n] = (struct triple){ READ_ONCE(p->a), READ_ONCE(p->b),
							   READ_ONCE(p->c) };
			n++;
		}
		rcu_read_unlock();

		ok = n >= 2 && n <= 3 && seen[0].a == 1 && seen[0].b == 2 &&
		     seen[n - 1].a == 9 && seen[n - 1].c == 11;
		old = ok && n == 3 && seen[1].a == 5 && seen[1].b == 6 && seen[1].c == 7;
		if (replacing)
			new = ok && n == 3 && seen[1].a == 5 && seen[1].b == 2 && seen[1].c == 3;
		else
			new = ok && n == 2;
		if (old)
			WRITE_ONCE(w->old_version, w->old_version + 1);
		else if (new)
			WRITE_ONCE(w->new_version, w->new_version + 1);
		else
			WRITE_ONCE(w->bad, w->bad + 1);
		if (old && end_of_gp && start > end_of_gp)
			WRITE_ONCE(w->late_old, w->late_old + 1);
		WRITE_ONCE(w->walks, w->walks + 1);
		worker_pause(&burst);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Set-up, figures, the narrated grace period                          */
/* ------------------------------------------------------------------ */

static struct vfoo *v_new(int a, int b, int c)
{
	struct vfoo *p = kmalloc(sizeof(*p), GFP_KERNEL);

	if (p) {
		p->a = a;
		p->b = b;
		p->c = c;
	}
	return p;
}

/* Builds 1,2,3 -> 5,6,7 -> 9,10,11 and starts the readers. */
static bool v_start(bool replace)
{
	int cpus[NR_CPUS], n, first;

	replacing = replace;
	WRITE_ONCE(gp_end_ns, 0);
	for (int a = 1; a <= 9; a += 4) {
		struct vfoo *p = v_new(a, a + 1, a + 2);

		if (!p)
			return false;
		spin_lock(&v_lock);
		list_add_tail_rcu(&p->list, &v_head);
		spin_unlock(&v_lock);
	}
	memset(&holder, 0, sizeof(holder));
	memset(walkers, 0, sizeof(walkers));
	n = worker_cpus(cpus, 1 + MAX_WALKERS);
	if (num_online_cpus() > 1) {
		holder.cpu = cpus[0];
		holder.task = kthread_run_on_cpu(holder_fn, &holder, cpus[0], "holder");
	}
	/* Walkers on the other CPUs; with two CPUs the holder's CPU is shared. */
	first = n > 1 ? 1 : 0;
	workers_start_on(&walker_group, cpus + first, n - first, walker_fn, walkers,
			 sizeof(walkers[0]), "walker");
	return true;
}

static void v_stop(void)
{
	struct vfoo *p, *n, *doomed[8];
	int nr = 0;

	if (holder.task)
		kthread_stop(holder.task);
	holder.task = NULL;
	workers_stop(&walker_group);
	spin_lock(&v_lock);
	list_for_each_entry_safe(p, n, &v_head, list) {
		if (nr == (int)ARRAY_SIZE(doomed))
			break;
		list_del_rcu(&p->list);
		doomed[nr++] = p;
	}
	spin_unlock(&v_lock);
	synchronize_rcu();
	while (nr)
		kfree(doomed[--nr]);
}

static struct vfoo *search(int key)
{
	struct vfoo *p;

	list_for_each_entry(p, &v_head, list)	/* the updater, under v_lock */
		if (p->a == key)
			return p;
	return NULL;
}

/*
 * One version of the list, as readers walking it from the head would see
 * it: with old set, old_p stands where new_p is now (or where nothing is
 * now, for a deletion).  held: readers may hold the elements.
 */
static void show_version(const char *label, struct vfoo *old_p, struct vfoo *new_p,
			 bool held)
{
	char line[256];
	size_t len = 0;
	struct vfoo *p;

	demo_fmt(line, sizeof(line), &len, "%-13s head", label);
	list_for_each_entry(p, &v_head, list) {
		struct vfoo *e = p;

		if (old_p && p == new_p)
			e = old_p;
		if (old_p && !new_p && p->a > old_p->a) {	/* where it stood */
			demo_fmt(line, sizeof(line), &len, " -> ");
			demo_fmt_elem(line, sizeof(line), &len, old_p->a, old_p->b, old_p->c, held);
			old_p = NULL;
		}
		demo_fmt(line, sizeof(line), &len, " -> ");
		demo_fmt_elem(line, sizeof(line), &len, e->a, e->b, e->c, held);
	}
	demo_say("%s", line);
}

static void show_elem(const char *label, struct vfoo *p, bool held, const char *note)
{
	char line[160];
	size_t len = 0;

	demo_fmt(line, sizeof(line), &len, "%-13s ", label);
	demo_fmt_elem(line, sizeof(line), &len, p->a, p->b, p->c, held);
	demo_say("%s   %s", line, note);
}

static void legend(void)
{
	if (demo_color_on())
		demo_say("(%sred%s: readers may hold a reference, the article's red border)",
			 demo_color(DC_RED), demo_color(DC_RESET));
	else
		demo_say("([a,b,c]*: readers may hold a reference, the article's red border;");
	if (!demo_color_on())
		demo_say(" a,b,c without the star: no reader can)");
}

/* The holder grabs 5,6,7 inside rcu_read_lock(); false with one CPU. */
static bool holder_grab(void)
{
	if (!holder.task) {
		demo_say("(one CPU: a reader cannot be inside rcu_read_lock() while the updater");
		demo_say(" runs here, since nothing preempts it.  With SMP=2 or more, a reader");
		demo_say(" on another CPU holds 5,6,7 through the update.)");
		return false;
	}
	WRITE_ONCE(holder.go, true);
	if (!demo_wait_for(&holder.holding, WAIT_MS)) {
		demo_fail("the reader on CPU%d did not find 5,6,7", holder.cpu);
		return false;
	}
	demo_say("reader on CPU%d: rcu_read_lock(); found 5,6,7 and keeps it (it lingers,",
		 holder.cpu);
	demo_say("  as a reader delayed by an interrupt would)");
	return true;
}

static void holder_view(void)
{
	char line[256];
	size_t len = 0;

	if (!holder.task)
		return;
	/* [updated_release] pairs [updated_acquire]: or the reader could see the flag before the update. */
	smp_store_release(&holder.updated, true);
	if (!demo_wait_for(&holder.view_ready, WAIT_MS)) {
		demo_fail("the reader on CPU%d did not report its view", holder.cpu);
		return;
	}
	demo_fmt(line, sizeof(line), &len, "reader on CPU%d, still inside rcu_read_lock(), "
		 "sees from p:", holder.cpu);
	for (int i = 0; i < holder.nview; i++) {
		demo_fmt(line, sizeof(line), &len, "%s", i ? " -> " : " ");
		demo_fmt_elem(line, sizeof(line), &len, holder.view[i].a, holder.view[i].b,
			      holder.view[i].c, true);
	}
	demo_say("%s", line);
	if (holder.nview < 1 || holder.view[0].a != 5 || holder.view[0].b != 6 ||
	    holder.view[0].c != 7)
		demo_fail("the reader's 5,6,7 changed under it");
	else
		demo_say("  5,6,7 is intact and its ->next still leads back into the list");
}

/*
 * The grace period, narrated: the demo runs synchronize_rcu()'s loop
 * (kernel/rcu/sync.c) itself, with a line from each CPU it reaches, and
 * says so.  What it leaves out is the real function's bookkeeping
 * (tour_begin()/tour_end(): the polled API's wait number, the counts,
 * the trace); Example 2 calls the real one.
 */
static void narrated_grace_period(void)
{
	int cpu, home = smp_processor_id();

	demo_say("synchronize_rcu(), narrated: the demo runs synchronize_rcu()'s loop");
	demo_say("(kernel/rcu/sync.c) itself, to print a line from each CPU it reaches;");
	demo_say("the real function adds only its bookkeeping (a number for the polled");
	demo_say("API, counts, the trace), and Example 2 calls it.  run_on(cpu) returns");
	demo_say("once this task has run on cpu, so cpu has switched away from whatever");
	demo_say("it was running (on its own CPU, the updater, which is in no reader):");
	demo_code("for_each_online_cpu(cpu)\n        run_on(cpu);\nrun_on(home);");
	WRITE_ONCE(holder.gp_started, true);	/* a signal: it publishes nothing */
	for_each_online_cpu(cpu) {
		u64 t0 = ktime_get_ns(), us;
		u64 switches = current->switches;
		bool here = cpu == smp_processor_id();

		run_on(cpu);
		us = (ktime_get_ns() - t0) / NSEC_PER_USEC;
		if (here && current->switches == switches)
			demo_say("on CPU%d: no switch: the updater was already here, alone, and is "
				 "in no reader (%llu us)", cpu, (unsigned long long)us);
		else if (here)
			demo_say("on CPU%d: the updater is already here; run_on() let the tasks "
				 "queued here run first, then it ran again (%llu us)", cpu,
				 (unsigned long long)us);
		else if (holder.task && cpu == holder.cpu)
			demo_say("on CPU%d: it switched, so its pre-existing readers are done "
				 "(it waited %llu ms for the reader holding 5,6,7, which the demo "
				 "keeps there %d ms after the grace period begins)", cpu,
				 (unsigned long long)(us / 1000), LINGER_MS);
		else
			demo_say("on CPU%d: it switched, so its pre-existing readers are done "
				 "(%llu us)", cpu, (unsigned long long)us);
	}
	run_on(home);
	/* [gp_end_narrated_release] pairs [gp_end_acquire]: or a walker could see the end and the old list. */
	smp_store_release(&gp_end_ns, ktime_get_ns());
	/* [released_narrated_acquire] pairs [released_release]: or we might compare with an old unlock_ns. */
	if (holder.task && (!smp_load_acquire(&holder.released) ||
			    holder.unlock_ns > gp_end_ns))
		demo_fail("the grace period ended before the reader on CPU%d left", holder.cpu);
	else if (holder.task)
		demo_say("the grace period ended after the reader on CPU%d left: it waited "
			 "for it", holder.cpu);
}

/* Walkers' verdict; late is how many began after the grace period. */
static void walkers_report(const char *new_what)
{
	long walks = 0, old = 0, new = 0, bad = 0, late = 0;

	msleep(20);	/* a few walks that surely began after the grace period */
	for (int i = 0; i < walker_group.nr; i++) {
		walks += READ_ONCE(walkers[i].walks);
		old += READ_ONCE(walkers[i].old_version);
		new += READ_ONCE(walkers[i].new_version);
		bad += READ_ONCE(walkers[i].bad);
		late += READ_ONCE(walkers[i].late_old);
	}
	demo_say("%d walker%s on other CPUs made %ld walks: %ld saw the version with 5,6,7,",
		 walker_group.nr, walker_group.nr == 1 ? "" : "s", walks, old);
	demo_say("%ld the one %s, %ld anything else; walks that began after the grace",
		 new, new_what, bad);
	demo_say("period and still found 5,6,7: %ld.", late);
	if (holder.task && walker_group.nr == 1 && walker_group.cpu[0] == holder.cpu)
		demo_say("(With two CPUs the walker shares CPU%d with the reader above: it "
			 "could not walk while that reader held 5,6,7.)", holder.cpu);
	if (bad)
		demo_fail("%ld walks saw a list that is neither version", bad);
	if (late)
		demo_fail("%ld walks found 5,6,7 after the grace period", late);
}

/* ------------------------------------------------------------------ */
/* Example 1: deletion                                                 */
/* ------------------------------------------------------------------ */

/*
 * Both examples start alike: the list 1,2,3 / 5,6,7 / 9,10,11 with readers
 * walking it, and p pointing to 5,6,7.  NULL (after saying why) when it
 * could not be built.
 */
static struct vfoo *initial_state(bool replace, const char *about_p)
{
	struct vfoo *p;

	if (!v_start(replace)) {
		demo_fail("out of memory");
		v_stop();
		return NULL;
	}
	spin_lock(&v_lock);
	p = search(5);
	spin_unlock(&v_lock);
	if (!p) {
		demo_fail("5,6,7 is not in the list it was just put in");
		v_stop();
		return NULL;
	}
	show_version("the list:", NULL, NULL, true);
	demo_say("%s", about_p);
	legend();
	return p;
}

DEMO(deletion, "Example 1: maintaining multiple versions during deletion")
{
	struct vfoo *p;

	demo_step("Example 1, deletion: the initial state");
	demo_code("p = search(head, key);\n"
		  "if (p != NULL) {\n"
		  "        list_del_rcu(&p->list);\n"
		  "        synchronize_rcu();\n"
		  "        kfree(p);\n"
		  "}");
	p = initial_state(false, "p = search(head, 5) points to 5,6,7");
	if (!p)
		return;

	demo_step("list_del_rcu(&p->list): two versions of the list, then the grace period");
	holder_grab();
	spin_lock(&v_lock);
	list_del_rcu(&p->list);
	spin_unlock(&v_lock);
	demo_say("list_del_rcu() done.  Readers that start now cannot find 5,6,7; readers");
	demo_say("that already had it still do.  Two versions:");
	show_version("new readers:", NULL, NULL, true);
	show_version("old readers:", p, NULL, true);
	holder_view();
	narrated_grace_period();
	demo_say("back to one version: no reader can hold 5,6,7 any more (black border):");
	show_version("every reader:", NULL, NULL, true);
	show_elem("p:", p, false, "(unreachable; no reader holds it)");

	demo_step("kfree(p)");
	kfree(p);
	show_version("the list:", NULL, NULL, true);
	demo_say("5,6,7 is freed: the deletion is complete.");
	walkers_report("without it");
	v_stop();
}

/* ------------------------------------------------------------------ */
/* Example 2: replacement                                              */
/* ------------------------------------------------------------------ */

DEMO(replacement, "Example 2: maintaining multiple versions during replacement")
{
	struct vfoo *p, *q;
	u64 t0;

	demo_step("Example 2, replacement: the same initial state");
	demo_code("q = kmalloc(sizeof(*p), GFP_KERNEL);\n"
		  "*q = *p;\n"
		  "q->b = 2;\n"
		  "q->c = 3;\n"
		  "list_replace_rcu(&p->list, &q->list);\n"
		  "synchronize_rcu();\n"
		  "kfree(p);");
	p = initial_state(true, "p points to 5,6,7");
	if (!p)
		return;

	demo_step("Line 1: q = kmalloc(sizeof(*p), GFP_KERNEL)");
	q = kmalloc(sizeof(*q), GFP_KERNEL);
	if (!q) {
		demo_fail("out of memory");
		v_stop();
		return;
	}
	demo_say("q:            ?,?,?   (uninitialised; no reader can reach it)");

	demo_step("Line 2: *q = *p");
	*q = *p;
	show_elem("q:", q, false, "(a copy, still private)");

	demo_step("Line 3: q->b = 2");
	q->b = 2;
	show_elem("q:", q, false, "(readers still see only 5,6,7)");

	demo_step("Line 4: q->c = 3");
	q->c = 3;
	show_elem("q:", q, false, "(ready to publish)");

	demo_step("Line 5: list_replace_rcu(&p->list, &q->list): two versions");
	if (holder.task)
		demo_say("(from here to synchronize_rcu() the demo does not pause: a reader is "
			 "about to hold 5,6,7)");
	holder_grab();
	spin_lock(&v_lock);
	list_replace_rcu(&p->list, &q->list);
	spin_unlock(&v_lock);
	demo_say("new readers see 5,2,3, pre-existing ones may see 5,6,7; each sees one");
	demo_say("well-defined list:");
	show_version("new readers:", NULL, NULL, true);
	show_version("old readers:", p, q, true);
	holder_view();

	/*
	 * No pause between Line 5 and Line 6: the reader holds 5,6,7 now, and
	 * at a reading pace it would leave (MAX_HOLD_MS) before the grace
	 * period began, which would then wait for nobody.
	 */
	demo_step_nopause("Line 6: synchronize_rcu()");
	if (holder.task && !READ_ONCE(holder.released))	/* for the narration only */
		demo_say("the reader on CPU%d still holds 5,6,7; the real synchronize_rcu() "
			 "must wait for it", holder.cpu);
	else if (holder.task)
		demo_fail("the reader on CPU%d left before synchronize_rcu() began: the grace "
			  "period has nobody to wait for", holder.cpu);
	WRITE_ONCE(holder.gp_started, true);	/* a signal: it publishes nothing */
	t0 = ktime_get_ns();
	synchronize_rcu();
	/* [gp_end_sync_release] pairs [gp_end_acquire]: or a walker could see the end and the old list. */
	smp_store_release(&gp_end_ns, ktime_get_ns());
	demo_say("synchronize_rcu() returned after %llu ms",
		 (unsigned long long)((gp_end_ns - t0) / NSEC_PER_MSEC));
	/* [released_sync_acquire] pairs [released_release]: or we might compare with an old unlock_ns. */
	if (holder.task && (!smp_load_acquire(&holder.released) ||
			    holder.unlock_ns > gp_end_ns))
		demo_fail("synchronize_rcu() returned before the reader on CPU%d left",
			  holder.cpu);
	else if (holder.task)
		demo_say("it waited for the reader on CPU%d, which left %llu ms after "
			 "synchronize_rcu() began", holder.cpu,
			 (unsigned long long)((holder.unlock_ns - t0) / NSEC_PER_MSEC));
	demo_say("back to one version, with the new element in place of the old:");
	show_version("every reader:", NULL, NULL, true);
	show_elem("p:", p, false, "(unreachable; no reader holds it)");

	demo_step("Line 7: kfree(p)");
	kfree(p);
	show_version("the list:", NULL, NULL, true);
	demo_say("5,6,7 is freed: the replacement is complete.  RCU is named after this");
	demo_say("case, though most uses in Linux are the deletion of Example 1.");
	walkers_report("with 5,2,3");
	v_stop();
}
