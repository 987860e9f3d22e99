/*
 * make trace CMDLINE='ktest.filter=trace_object*': a kernel object's free
 * waits for its grace period, on the timeline (docs/trace.md).  Readers on
 * every other CPU look capabilities up inside rcu_read_lock() and hold
 * what they found 2-8 ms; the updater deletes the last capability of an
 * endpoint: the node is unpublished and queued for call_rcu() (cb_queue),
 * its callback (cb_invoke) drops the object's last reference, which
 * queues the object's own free (a second cb_queue), run a grace period
 * later.  tools/timeline.py checks that every reader that began before a
 * cb_queue ended before its cb_invoke; this test checks that no reader
 * found what it held freed, and that each object was freed in the end.
 */
#include "cap_test.h"
#include "workers.h"
#include "random.h"
#include "object/lookup.h"

#define TO_ROUNDS	3
#define TO_SLOTS	4		/* the endpoint and 3 copies */
#define TO_HOLD_MIN_US	2000
#define TO_HOLD_MAX_US	8000
#define TO_BUDGET_NS	ktest_budget_ns(20, 2)

struct to_reader {
	u64 sections, held, freed_seen;
};

static struct test_space to_space;
static struct to_reader to_readers[NR_CPUS];
static struct workers to_workers;

static int to_reader_fn(void *arg)
{
	struct to_reader *r = arg;
	u32 seed = prandom_seed(0x85ebca6bU * (u32)(smp_processor_id() + 1));

	while (!kthread_should_stop()) {
		u32 hold_us = TO_HOLD_MIN_US + prandom_u32(&seed) % (TO_HOLD_MAX_US - TO_HOLD_MIN_US);
		struct cap *c;
		u32 gen = 0;

		rcu_read_lock();
		c = cap_lookup_rcu(to_space.cs, prandom_u32(&seed) % TO_SLOTS);
		if (c)
			gen = READ_ONCE(c->head.gen);
		udelay(hold_us);		/* the section: a bar on the timeline */
		if (c) {
			r->held++;
			/* Type-stable: a freed node still has a generation to read. */
			if (READ_ONCE(c->head.gen) != gen)
				r->freed_seen++;
		}
		rcu_read_unlock();
		r->sections++;
		cond_resched();
		if (prandom_u32(&seed) % 4 == 0)
			worker_rest();
	}
	return 0;
}

/* Waits until every reader has completed a section; false on the budget. */
static bool readers_running(void)
{
	u64 t0 = ktime_get_ns();

	for (int i = 0; i < to_workers.nr; i++)
		while (!READ_ONCE(to_readers[i].sections))
			if (ktime_get_ns() - t0 > TO_BUDGET_NS)
				return false;
			else
				msleep(1);
	return true;
}

/* Waits until the object obj (generation gen) is freed; false on the budget. */
static bool wait_freed(struct kobject *obj, u32 gen)
{
	u64 t0 = ktime_get_ns();

	while (kobject_is(obj, gen)) {
		if (ktime_get_ns() - t0 > TO_BUDGET_NS)
			return false;
		msleep(1);
	}
	return true;
}

KTEST(trace_object_free_waits_for_its_grace_period)
{
	bool was_on = trace_enabled;
	int freed = 0;

	KASSERT(test_space_make(&to_space));
	trace_stop();
	trace_clear();
	trace_start();
	trace_mark("readers start");
	memset(to_readers, 0, sizeof(to_readers));
	KEXPECT(workers_start_others(&to_workers, NR_CPUS, to_reader_fn, to_readers,
				     sizeof(to_readers[0]), "to_reader/%d"));
	KEXPECT(readers_running());
	for (int round = 0; round < TO_ROUNDS; round++) {
		struct cap_ref ref;
		struct kobject *obj;
		u32 gen;

		KASSERT_EQ(cap_create(to_space.cs, KOBJ_ENDPOINT, 0, 0), 0);
		for (int s = 1; s < TO_SLOTS; s++)
			KEXPECT_EQ(cap_copy(to_space.cs, 0, s), s);
		KASSERT_EQ(cap_lookup(to_space.cs, 0, KOBJ_ENDPOINT, 0, &ref), 0);
		obj = ref.obj;
		gen = obj->head.gen;
		kobject_put(ref.obj);
		msleep(20);		/* readers find the capabilities */
		trace_mark("cap_delete: the object's last capabilities");
		for (int s = TO_SLOTS - 1; s >= 0; s--)
			KEXPECT_EQ(cap_delete(to_space.cs, s), 0);
		if (wait_freed(obj, gen)) {
			trace_mark("object freed");
			freed++;
		}
		msleep(10);
	}
	trace_mark("readers stop");
	workers_stop(&to_workers);
	trace_stop();
	trace_dump();
	if (was_on)
		trace_start();
	for (int i = 0; i < to_workers.nr; i++) {
		struct to_reader *r = &to_readers[i];

		ktest_info("reader on CPU%d: %llu critical sections, %llu held a capability, "
			   "%llu found it freed", to_workers.cpu[i], (unsigned long long)r->sections,
			   (unsigned long long)r->held, (unsigned long long)r->freed_seen);
		KEXPECT_EQ(r->freed_seen, 0);
	}
	KEXPECT_EQ(freed, TO_ROUNDS);
	test_space_free(&to_space);
}
