/*
 * The lookup's generation check, exercised on purpose.  A correct kernel
 * never frees a capability node under a lookup (it waits for a grace
 * period), so the check that would name such a use-after-free -- the
 * node's generation read again after its fields (cap_node_freed() in
 * kernel/object/lookup.h) -- only ever ran under CI's fault injections.
 * Here a lookup holds a node's old contents while the node is freed, and
 * in the second case reused for another capability, for real: the
 * lookup's seam (cap_lookup_hook, checking build), on another CPU, holds
 * it inside its critical section with the fields read and reports
 * quiescent states from there -- a reader that lies, made on purpose --
 * so the grace period of the node's delete ends under it.  The lookup
 * must then fail with -EBADF, take no reference, and name the
 * use-after-free ("BUG: use-after-free caught ..."), once.
 *
 * The object stays alive (a second capability names it), so a lookup
 * that skipped the check would succeed, quietly, on contents it read
 * while they were being freed.
 */
#include "rcu_window.h"
#include "cap_test.h"
#include "object/lookup.h"

enum { ST_WAITING, ST_HOLDING, ST_RELEASE, ST_LEFT };

static struct {
	struct test_space ts;
	struct cspace *cs;
	int phase;
	struct cap *node;
	u32 node_gen;
	int lookup_ret;
	struct cap_ref ref;
	bool hung;
} st;

/*
 * The seam: the node read, not yet rechecked.  Lies (quiescent states)
 * until released.  A report takes rcu_state's lock, which the lookup's
 * proof that it takes none would count (this CPU's task_locks_taken):
 * those are the lie's, not the lookup's, so they are taken back.
 */
static void st_hold_and_lie(struct cspace *cs, long slot)
{
	unsigned long locks = this_cpu()->task_locks_taken;
	u64 t0 = ktime_get_ns();

	if (cs != st.cs || smp_load_acquire(&st.phase) != ST_WAITING)
		return;
	st.node = cap_lookup_rcu(cs, slot);
	st.node_gen = READ_ONCE(st.node->head.gen);
	smp_store_release(&st.phase, ST_HOLDING);
	while (smp_load_acquire(&st.phase) != ST_RELEASE) {
		if (!win_budget_left(t0)) {
			st.hung = true;
			break;
		}
		rcu_note_context_switch();	/* the lie: we are inside rcu_read_lock() */
		udelay(2);
	}
	this_cpu()->task_locks_taken = locks;
}

static int st_lookup(void *arg)
{
	(void)arg;
	st.lookup_ret = cap_lookup(st.cs, 1, KOBJ_ENDPOINT, SYS_CAP_WRITE, &st.ref);
	smp_store_release(&st.phase, ST_LEFT);
	return 0;
}

/* Copies slot 0 until a new node lands where the freed one was; false if none did. */
static bool st_reuse(void)
{
	for (int i = 0; i < SYS_CAP_MAX_SLOTS - 2; i++) {
		int s = cap_copy(st.cs, 0, SYS_CAP_ANY_SLOT);
		struct cap *c;

		if (s < 0)
			return false;
		rcu_read_lock();
		c = cap_lookup_rcu(st.cs, s);
		rcu_read_unlock();
		if (c == st.node)
			return true;
	}
	return false;
}

/* A lookup of slot 1 held while its node is freed, and with reuse, reused. */
static void st_case(bool reuse)
{
	struct object_stats before, after;
	struct task_struct *t;
	int cpus[NR_CPUS];
	u32 gen_then;

	worker_cpus(cpus, NR_CPUS);
	memset(&st, 0, sizeof(st));
	KASSERT(test_space_make(&st.ts));
	st.cs = st.ts.cs;
	KASSERT(cap_create(st.cs, KOBJ_ENDPOINT, 0, 0) == 0 && cap_copy(st.cs, 0, 1) == 1);
	object_get_stats(&before);
	WRITE_ONCE(cap_lookup_hook, st_hold_and_lie);
	t = kthread_run_on_cpu(st_lookup, NULL, cpus[0], "cap_stale");
	KASSERT(t);
	KASSERT(WIN_WAIT(smp_load_acquire(&st.phase) == ST_HOLDING));
	KEXPECT_EQ(cap_delete(st.cs, 1), 0);
	/* The delete's grace period ends under the lying reader: the node is freed. */
	KEXPECT(WIN_WAIT(kcache_gen_free(READ_ONCE(st.node->head.gen))));
	if (reuse)
		KEXPECT(st_reuse());
	gen_then = READ_ONCE(st.node->head.gen);
	smp_store_release(&st.phase, ST_RELEASE);
	KEXPECT(WIN_WAIT(smp_load_acquire(&st.phase) == ST_LEFT));
	kthread_stop(t);
	WRITE_ONCE(cap_lookup_hook, NULL);
	object_get_stats(&after);
	ktest_info("the node went from generation %u to %u under the lookup (%s); it returned %d",
		   st.node_gen, gen_then, kcache_gen_free(gen_then) ? "freed" : "freed and reused",
		   st.lookup_ret);
	KEXPECT_EQ(st.lookup_ret, -EBADF);
	KEXPECT_EQ(after.uaf_caught - before.uaf_caught, 1);
	KEXPECT(!st.hung);
	if (!st.lookup_ret)
		kobject_put(st.ref.obj);	/* (a lookup that used the stale node took one) */
	test_space_free(&st.ts);
}

#define ST_NEEDS()								\
	do {									\
		WIN_NEEDS_CPUS(2, "needs a second CPU for the lookup");	\
		if (!CONFIG_RCU_CHECKING)					\
			KTEST_SKIP("production build: no lookup seam");		\
		run_on(0);							\
	} while (0)

KTEST(cap_lookup_names_a_node_freed_while_it_reads)
{
	ST_NEEDS();
	st_case(false);
}

KTEST(cap_lookup_names_a_node_freed_and_reused_while_it_reads)
{
	ST_NEEDS();
	st_case(true);
}
