/*
 * The article's Quick Quizzes 4 and 5, the answers shown happening: more
 * than two versions of a list at once, counted as elements removed but
 * not yet freed while several deleters wait in synchronize_rcu().
 */
#include "demo.h"

#define WAIT_MS		3000

struct afoo {
	struct list_head list;
	int a, b, c;
};

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
	/* Statistics: the counts order nothing. */
	int now = atomic_inc_return_relaxed(&qq4_in_flight), seen = atomic_read(&qq4_max);

	while (now > seen && !atomic_try_cmpxchg_relaxed(&qq4_max, &seen, now))
		;
}

static int qq4_deleter_fn(void *arg)
{
	(void)arg;
	/* [qq4_go_acquire] pairs [qq4_go_release]: spin, so that all start together, on the built list. */
	while (!smp_load_acquire(&qq4_go))
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
	static struct workers deleters, reader;
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
	workers_start_spread(&deleters, QQ4_DELETERS, 0, qq4_deleter_fn, NULL, 0, "deleter");
	workers_start_others(&reader, 1, qq4_reader_fn, NULL, 0, "qq4_reader");
	msleep(5);
	/* [qq4_go_release] pairs [qq4_go_acquire]: the list is built before the deleters start. */
	smp_store_release(&qq4_go, true);
	t0 = ktime_get_ns();
	while (atomic_read(&qq4_done) < QQ4_DELETERS &&
	       ktime_get_ns() - t0 < 10 * WAIT_MS * NSEC_PER_MSEC)
		msleep(1);
	workers_stop(&deleters);
	workers_stop(&reader);
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
