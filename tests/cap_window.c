/*
 * A capability lookup held open on another CPU while the updater revokes,
 * deletes or outgrows what it found: what the reader holds must stay
 * valid -- the capability node, its object, the old slot table -- until
 * it leaves its read-side critical section, and a lookup already inside
 * the kernel finishes against a live object while new lookups fail at
 * once.  Deterministic, as tests/rcu_window_*.c: the reader holds until
 * the free has happened (a broken kernel) or the grace period in progress
 * waits for the reader's CPU alone (a correct one), whichever comes first.
 *
 * Caught here: cap.inject=free_no_wait (objects and nodes freed without a
 * grace period) and rcu.inject=no_wait (grace periods that wait for
 * nothing); CI runs both as expected failures.
 */
#include "rcu_window.h"
#include "cap_test.h"
#include "object/lookup.h"

enum { WAITING, HOLDING, RELEASE, LEFT };

/* One round: the space, what the reader found, and what it saw when it let go. */
static struct round {
	struct test_space ts;
	struct cspace *cs;
	long slot;
	int phase;
	struct cap *node;
	u32 node_gen;
	struct kobject *obj;
	u32 obj_gen;
	struct cap_table *table;
	unsigned int nslots;
	int lookup_ret, hold_ret;
	bool node_live, obj_live, table_live;
} r;

static void hold(void)
{
	u64 t0 = ktime_get_ns();

	smp_store_release(&r.phase, HOLDING);
	while (smp_load_acquire(&r.phase) != RELEASE && win_budget_left(t0))
		cpu_relax();
}

/* The reader: finds slot inside rcu_read_lock(), holds, then checks what it found. */
static int raw_reader(void *arg)
{
	(void)arg;
	rcu_read_lock();
	r.table = rcu_dereference(r.cs->table);
	r.nslots = READ_ONCE(r.table->nslots);
	r.node = cap_lookup_rcu(r.cs, r.slot);
	if (r.node) {
		r.node_gen = READ_ONCE(r.node->head.gen);
		r.obj = READ_ONCE(r.node->obj);
		r.obj_gen = READ_ONCE(r.node->obj_gen);
	}
	hold();
	if (r.node) {
		r.node_live = READ_ONCE(r.node->head.gen) == r.node_gen;
		r.obj_live = kobject_is(r.obj, r.obj_gen);
	}
	r.table_live = READ_ONCE(r.table->nslots) == r.nslots;
	rcu_read_unlock();
	smp_store_release(&r.phase, LEFT);
	return 0;
}

/* cap_lookup()'s test hook: inside its critical section, the node found, not yet validated. */
static void hold_in_lookup(struct cspace *cs, long slot)
{
	if (cs != r.cs || smp_load_acquire(&r.phase) != WAITING)
		return;
	r.node = cap_lookup_rcu(cs, slot);
	r.node_gen = READ_ONCE(r.node->head.gen);
	hold();
}

/* The reader inside the system call's own lookup (the hook holds it after the node is found). */
static int lookup_reader(void *arg)
{
	struct cap_ref ref;

	(void)arg;
	r.lookup_ret = cap_lookup(r.cs, r.slot, KOBJ_ENDPOINT, SYS_CAP_WRITE, &ref);
	if (!r.lookup_ret) {
		r.obj_live = !kcache_gen_free(READ_ONCE(ref.obj->head.gen));
		kobject_put(ref.obj);
	}
	smp_store_release(&r.phase, LEFT);
	return 0;
}

/*
 * A system call's reference-free lookup (cap_lookup_noref()), held -- no
 * quiescent state -- and then the late reference a sleep would take.
 */
static int noref_reader(void *arg)
{
	struct cap_ref ref;

	(void)arg;
	r.lookup_ret = cap_lookup_noref(r.cs, r.slot, KOBJ_ENDPOINT, SYS_CAP_WRITE, &ref);
	if (!r.lookup_ret) {
		r.obj = cap_ref_obj(&ref);
		r.obj_gen = ref.gen;
	}
	hold();
	if (!r.lookup_ret) {
		r.obj_live = kobject_is(r.obj, r.obj_gen);
		r.hold_ret = cap_ref_hold(&ref);
		cap_ref_put(&ref);
	}
	smp_store_release(&r.phase, LEFT);
	return 0;
}

static bool node_freed(void *arg)
{
	(void)arg;
	return READ_ONCE(r.node->head.gen) != r.node_gen;
}

static bool obj_freed(void *arg)
{
	(void)arg;
	return !kobject_is(r.obj, r.obj_gen);
}

/* (reads a table kfree() may have poisoned on purpose: kmalloc's slabs stay mapped) */
static bool table_freed(void *arg)
{
	(void)arg;
	return READ_ONCE(r.table->nslots) != r.nslots;
}

/* A space with an endpoint in slot 0 and a copy of it in slot 1. */
static bool setup(void)
{
	memset(&r, 0, sizeof(r));
	if (!test_space_make(&r.ts))
		return false;
	r.cs = r.ts.cs;
	return cap_create(r.cs, KOBJ_ENDPOINT, 0, 0) == 0 && cap_copy(r.cs, 0, 1) == 1;
}

static void teardown(void)
{
	test_space_free(&r.ts);
}

/*
 * Starts reader on another CPU, lets it find slot and hold, runs remove,
 * then waits for the free (freed()) or for RCU to wait on the reader
 * alone; lets the reader go.  false if the reader never held.
 */
static bool run_round(long slot, int (*reader)(void *), void (*remove)(void),
		      bool (*freed)(void *))
{
	int cpus[NR_CPUS], cpu;
	struct task_struct *t;
	enum win_wait how;

	worker_cpus(cpus, NR_CPUS);
	cpu = cpus[0];
	r.slot = slot;
	t = kthread_run_on_cpu(reader, NULL, cpu, "cap_window");
	if (!t)
		return false;
	if (!WIN_WAIT(smp_load_acquire(&r.phase) != WAITING)) {
		kthread_stop(t);
		return false;
	}
	remove();
	how = win_wait_gp_blocked(cpu, freed, NULL);
	ktest_info("after the removal: %s", how == WIN_DONE ? "FREED while the reader held it" :
		   how == WIN_BLOCKED ? "the grace period waits for the reader's CPU alone" :
		   "the budget ran out");
	KEXPECT(how != WIN_DONE);
	smp_store_release(&r.phase, RELEASE);
	WIN_WAIT(smp_load_acquire(&r.phase) == LEFT);
	kthread_stop(t);
	return true;
}

static void revoke_slot0(void)
{
	KEXPECT_EQ(cap_revoke(r.cs, 0), 1);
}

static void delete_both(void)
{
	KEXPECT_EQ(cap_delete(r.cs, 1), 0);
	KEXPECT_EQ(cap_delete(r.cs, 0), 0);	/* the endpoint's last capability */
}

static void grow_table(void)
{
	KEXPECT_EQ(cap_copy(r.cs, 0, SYS_CAP_MAX_SLOTS - 1), SYS_CAP_MAX_SLOTS - 1);
	KEXPECT(rcu_access_pointer(r.cs->table) != r.table);
}

KTEST(cap_window_reader_held_across_revoke)
{
	if (num_online_cpus() < 2)
		KTEST_SKIP("needs a second CPU for the reader");
	KASSERT(setup());
	if (run_round(1, raw_reader, revoke_slot0, node_freed)) {
		KEXPECT(r.node_live);
		KEXPECT(r.obj_live);
	} else {
		KEXPECT(!"the reader held the capability");
	}
	teardown();
}

KTEST(cap_window_reader_held_across_last_delete)
{
	if (num_online_cpus() < 2)
		KTEST_SKIP("needs a second CPU for the reader");
	KASSERT(setup());
	if (run_round(1, raw_reader, delete_both, obj_freed)) {
		KEXPECT(r.node_live);
		KEXPECT(r.obj_live);
	} else {
		KEXPECT(!"the reader held the capability");
	}
	teardown();
}

KTEST(cap_window_reader_held_across_table_growth)
{
	if (num_online_cpus() < 2)
		KTEST_SKIP("needs a second CPU for the reader");
	KASSERT(setup());
	if (run_round(1, raw_reader, grow_table, table_freed)) {
		KEXPECT(r.table_live);
		KEXPECT(r.node_live);
	} else {
		KEXPECT(!"the reader held the table");
	}
	teardown();
}

/*
 * A system call's lookup, which took no reference, held (no quiescent
 * state on its CPU) across the delete of the object's last capability:
 * the object is not freed while it holds it, even though its count fell
 * to zero, and the late reference a sleep would take is refused (-EBADF:
 * as if the lookup came after the delete), not taken on a dying object.
 */
KTEST(cap_window_noref_lookup_held_across_last_delete)
{
	if (num_online_cpus() < 2)
		KTEST_SKIP("needs a second CPU for the reader");
	if (CONFIG_PREEMPT)
		KTEST_SKIP("the preemptible build's lookups keep their reference");
	KASSERT(setup());
	if (run_round(1, noref_reader, delete_both, obj_freed)) {
		KEXPECT_EQ(r.lookup_ret, 0);
		KEXPECT(r.obj_live);
		KEXPECT_EQ(r.hold_ret, -EBADF);
	} else {
		KEXPECT(!"the reader held the capability");
	}
	teardown();
}

/*
 * The system call's lookup, held after it found the node, across a
 * revoke of that capability: it still completes (with a reference on a
 * live object, nothing reported), and a lookup that starts after the
 * revoke fails at once.
 */
KTEST(cap_window_lookup_held_across_revoke_finishes_on_a_live_object)
{
	struct object_stats before, after;
	struct cap_ref ref;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs a second CPU for the reader");
	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no lookup hooks");
	KASSERT(setup());
	object_get_stats(&before);
	cap_lookup_hook = hold_in_lookup;
	if (run_round(1, lookup_reader, revoke_slot0, node_freed)) {
		KEXPECT_EQ(r.lookup_ret, 0);
		KEXPECT(r.obj_live);
	} else {
		KEXPECT(!"the lookup held the capability");
	}
	cap_lookup_hook = NULL;
	KEXPECT_EQ(cap_lookup(r.cs, 1, KOBJ_ENDPOINT, SYS_CAP_WRITE, &ref), -EBADF);
	object_get_stats(&after);
	KEXPECT_EQ(after.uaf_caught, before.uaf_caught);
	teardown();
}
