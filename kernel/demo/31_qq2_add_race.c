/*
 * The article's Quick Quiz 2, the answer shown happening: a reader racing
 * list_add_rcu() never faults.  Readers walk a list forwards while this
 * CPU inserts elements at random places.
 */
#include "demo.h"

#define MAX_READERS	2

struct afoo {
	struct list_head list;
	int a, b, c;
};

static LIST_HEAD(qq2_head);
static DEFINE_SPINLOCK(qq2_lock);

static struct qq2_reader {
	long walks, elements, bad, min_len, max_len;
} qq2_readers[MAX_READERS + 1];
static struct workers qq2_workers;

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
		worker_pause(&burst);
	}
	return 0;
}

#define QQ2_ADDS	400

static struct afoo *qq2_all[QQ2_ADDS];	/* to free them after the grace period */

DEMO(qq2_add_race, "Quick Quiz 2: a reader racing list_add_rcu() never faults")
{
	int cpus[MAX_READERS + 1], n = worker_cpus(cpus, MAX_READERS + 1);
	long walks = 0, elems = 0, bad = 0, lo = LONG_MAX, hi = 0;
	struct afoo *p, *next;
	u32 rng = prandom_seed(2007);
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
	workers_start_on(&qq2_workers, cpus, n, qq2_reader_fn, qq2_readers, sizeof(qq2_readers[0]),
			 "qq2_reader");
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
		skip = added ? (int)(prandom_u32(&rng) % (u32)added) : 0;
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
	workers_stop(&qq2_workers);
	for (int i = 0; i < n; i++) {
		struct qq2_reader *r = &qq2_readers[i];

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
