/*
 * The routing table (kernel/route.c), the structure of lab rwlock_to_rcu:
 * what it does, that lookups never wait for an updater (true of RCU, not
 * of the reader-writer lock it was converted from), and a torture: readers
 * on every other CPU look up while writers add, change and remove routes;
 * no reader may see a freed entry, and no update may be lost.
 */
#include "ktest.h"
#include "workers.h"
#include "route.h"
#include "random.h"

/*
 * A route's interface carries its address in the low 16 bits: a reader can
 * tell a torn or freed entry.  Each torture writer owns RT_PER_WRITER
 * addresses, all in one bucket: long chains, so that readers spend their
 * time walking them, and an entry freed too early is likely to be under a
 * reader, whose next step then follows a poisoned pointer.
 */
#define RT_PER_WRITER	128
#define RT_ADDR(w, k)	((u32)(k) * ROUTE_BUCKETS + (w))
#define RT_IFACE(addr, version)	((u32)(addr) | ((u32)(version) << 16))

KTEST(route_add_lookup_change_del)
{
	u32 iface = 0;

	KEXPECT(!route_lookup(7, &iface));
	KEXPECT(route_add(7, RT_IFACE(7, 1)));
	KEXPECT(!route_add(7, RT_IFACE(7, 2)));		/* one route per address */
	KEXPECT(route_lookup(7, &iface));
	KEXPECT_EQ(iface, RT_IFACE(7, 1));
	KEXPECT(route_change(7, RT_IFACE(7, 3)));
	KEXPECT(route_lookup(7, &iface));
	KEXPECT_EQ(iface, RT_IFACE(7, 3));
	KEXPECT(!route_change(8, 1));
	KEXPECT_EQ(route_count(), 1);
	KEXPECT(route_del(7));
	KEXPECT(!route_del(7));
	KEXPECT(!route_lookup(7, &iface));
	KEXPECT_EQ(route_count(), 0);
}

/* ---- Lookups do not wait for updaters ---- */

static bool lookup_done;

static int one_lookup(void *arg)
{
	u32 iface;

	(void)arg;
	route_lookup(11, &iface);
	/* [route_lookup_done_release] pairs [route_lookup_done_acquire]: the lookup is over before the flag. */
	smp_store_release(&lookup_done, true);
	return 0;
}

KTEST(route_lookups_do_not_wait_for_updaters)
{
	/* Generous: the lookup needs microseconds, but its CPU may wait for a host core. */
	int budget_ms = 5000 + 1000 * num_online_cpus(), waited = 0;
	struct task_struct *t;
	bool done;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: a reader beside the updater");
	KASSERT(route_add(11, RT_IFACE(11, 1)));
	WRITE_ONCE(lookup_done, false);
	route_update_begin();		/* an updater in the middle of its update */
	t = kthread_run_on_cpu(one_lookup, NULL, 1, "route_lookup");
	/* [route_lookup_done_acquire] pairs [route_lookup_done_release]: or we might see the flag before its lookup ended. */
	while (!(done = smp_load_acquire(&lookup_done)) && waited < budget_ms) {
		mdelay(10);
		waited += 10;
	}
	route_update_end();
	/* the lookup ended while the update lock was held */
	KEXPECT_WHY(done, "a lookup on CPU1 waited %d ms for an updater that held the table's "
		    "lock: lookups must not take it (rcu_read_lock() instead)", waited);
	if (t)
		kthread_stop(t);
	KEXPECT(route_del(11));
}

/* ---- A removed route is freed only after a grace period ---- */

static bool gp_reader_in, gp_reader_release;

/* A reader that stays inside rcu_read_lock() until told to leave. */
static int gp_reader(void *arg)
{
	(void)arg;
	rcu_read_lock();
	/* [route_reader_in_release] pairs [route_reader_in_acquire]: we are inside before the flag says so. */
	smp_store_release(&gp_reader_in, true);
	while (!READ_ONCE(gp_reader_release))
		cpu_relax();	/* no quiescent state on this CPU meanwhile */
	rcu_read_unlock();
	return 0;
}

KTEST(route_del_and_change_free_only_after_a_grace_period)
{
	struct task_struct *t;
	long live;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: a reader beside the updater");
	KASSERT(route_add(21, RT_IFACE(21, 1)));
	KASSERT(route_add(22, RT_IFACE(22, 1)));
	WRITE_ONCE(gp_reader_in, false);
	WRITE_ONCE(gp_reader_release, false);
	t = kthread_run_on_cpu(gp_reader, NULL, 1, "route_gp_reader");
	KASSERT(t != NULL);
	/* [route_reader_in_acquire] pairs [route_reader_in_release]: the reader is inside now. */
	while (!smp_load_acquire(&gp_reader_in))
		msleep(1);
	/*
	 * A reader that began before the removal could be standing on the
	 * entry: it must not be freed while that reader runs.  (The runner
	 * waited for every callback before this test, and nothing else
	 * allocates meanwhile: the count moves only with our updates.)
	 */
	live = kmalloc_live_objects();
	KEXPECT(route_del(21));
	KEXPECT_WHY(kmalloc_live_objects() == live, "route_del() freed the entry while a "
		    "reader on CPU1, inside rcu_read_lock() since before the removal, could "
		    "still be standing on it: free it after a grace period (kfree_rcu())");
	KEXPECT(route_change(22, RT_IFACE(22, 2)));
	KEXPECT_WHY(kmalloc_live_objects() == live + 1, "after route_change() %ld objects are "
		    "live, not %ld (the new copy and the old entry): the old entry, which a "
		    "reader may hold, must stay until a grace period has passed",
		    kmalloc_live_objects(), live + 1);
	WRITE_ONCE(gp_reader_release, true);
	kthread_stop(t);
	KEXPECT(route_del(22));
}

/* ---- The torture ---- */

struct rt_reader {
	unsigned long lookups, found, bad;
	u32 first_bad_addr, first_bad_iface;
};

struct rt_writer {
	int id;			/* its addresses: RT_ADDR(id, 0 .. RT_PER_WRITER-1) */
	u32 iface[RT_PER_WRITER];	/* its view of the table: 0 = no route */
	int ops;
	bool failed;
	bool done;		/* its ops are over */
};

static struct rt_reader rt_readers[NR_CPUS];
static struct rt_writer rt_writers[2];

static int rt_reader_fn(void *arg)
{
	struct rt_reader *r = arg;
	u32 seed = prandom_seed((u32)(uintptr_t)r), iface;
	u64 burst = ktime_get_ns();

	while (!kthread_should_stop()) {
		u32 addr = RT_ADDR(prandom_u32(&seed) % 2, prandom_u32(&seed) % RT_PER_WRITER);

		r->lookups++;
		if (route_lookup(addr, &iface)) {
			r->found++;
			if ((iface & 0xffff) != addr && !r->bad++) {
				r->first_bad_addr = addr;
				r->first_bad_iface = iface;
			}
		}
		worker_pause(&burst);
	}
	return 0;
}

static int rt_writer_fn(void *arg)
{
	struct rt_writer *w = arg;
	u32 seed = prandom_seed(w->id + 1);

	for (int i = 0; i < w->ops && !w->failed; i++) {
		u32 k = prandom_u32(&seed) % RT_PER_WRITER, addr = RT_ADDR(w->id, k);
		u32 iface = RT_IFACE(addr, i + 1);
		bool ok;

		if (!w->iface[k]) {
			ok = route_add(addr, iface);
			w->iface[k] = iface;
		} else if (prandom_u32(&seed) % 2) {
			ok = route_change(addr, iface);
			w->iface[k] = iface;
		} else {
			ok = route_del(addr);
			w->iface[k] = 0;
		}
		if (!ok)
			w->failed = true;	/* the table disagrees with our view */
		if (i % 16 == 0)
			cond_resched();
	}
	/* [rt_writer_done_release] pairs [rt_writer_done_acquire]: our view is complete before the flag. */
	smp_store_release(&w->done, true);
	while (!kthread_should_stop())
		msleep(10);
	return 0;
}

KTEST(route_torture_no_use_after_free_no_lost_update)
{
	struct workers readers, writers;
	unsigned long lookups = 0, found = 0;
	u32 iface;

	memset(rt_readers, 0, sizeof(rt_readers));
	memset(rt_writers, 0, sizeof(rt_writers));
	for (int i = 0; i < 2; i++) {
		rt_writers[i].id = i;
		rt_writers[i].ops = 10000;
	}
	KASSERT(workers_start_others(&readers, NR_CPUS, rt_reader_fn, rt_readers,
				     sizeof(rt_readers[0]), "rt_read/%d"));
	KASSERT(workers_start_spread(&writers, 2, 0, rt_writer_fn, rt_writers,
				     sizeof(rt_writers[0]), "rt_write/%d"));
	/* [rt_writer_done_acquire] pairs [rt_writer_done_release]: we read each writer's whole view. */
	for (int i = 0; i < 2; i++)
		while (!smp_load_acquire(&rt_writers[i].done))
			msleep(20);
	workers_stop(&writers);
	workers_stop(&readers);

	for (int i = 0; i < readers.nr; i++) {
		struct rt_reader *r = &rt_readers[i];

		lookups += r->lookups;
		found += r->found;
		if (r->bad)
			ktest_info("reader %d: %lu lookups saw a freed or torn route, first "
				   "address %u -> interface %#x", i, r->bad, r->first_bad_addr,
				   r->first_bad_iface);
		KEXPECT_EQ(r->bad, 0);
	}
	for (int i = 0; i < 2; i++) {
		struct rt_writer *w = &rt_writers[i];

		KEXPECT(!w->failed);	/* every add, change and delete found what it expected */
		for (u32 k = 0; k < RT_PER_WRITER; k++) {
			bool has = route_lookup(RT_ADDR(i, k), &iface);

			KEXPECT_EQ(has, w->iface[k] != 0);	/* no lost update */
			if (has)
				KEXPECT_EQ(iface, w->iface[k]);
			if (has)
				route_del(RT_ADDR(i, k));
		}
	}
	KEXPECT_EQ(route_count(), 0);
	ktest_info("%lu lookups on %d CPUs, %lu found a route; %d updates",
		   lookups, readers.nr, found, 2 * rt_writers[0].ops);
}
