/*
 * The capability lookup takes no lock (kernel/object/lookup.h): the
 * checking build counts this CPU's lock acquisitions across every lookup
 * and panics if one was taken.  Lookups on every CPU while another
 * thread copies, deletes and grows the same space never trip it; a
 * lookup made to take a lock (through the test hook) does, which shows
 * the check can fail.
 */
#include "cap_test.h"
#include "object/lookup.h"

#define LOOKUPS_PER_CPU		2000
#define MUTATIONS		300

static struct test_space ts;
static atomic_long_t found, failed, locked;

/*
 * This CPU's lock acquisitions by task code (checking build; spinlocks,
 * and the mutexes and rwlocks built on them).  A worker stays on its CPU
 * and the kernel does not preempt it, so a difference across one lookup
 * is that lookup's -- counted here as well as in cap_lookup() itself,
 * whose own check a changed lookup could leave out.
 */
static unsigned long locks_now(void)
{
	return this_cpu()->task_locks_taken;
}

static int looker(void *arg)
{
	struct cap_ref ref;

	(void)arg;
	for (int i = 0; i < LOOKUPS_PER_CPU; i++) {
		unsigned long before = locks_now();
		int err = cap_lookup(ts.cs, i % 8, KOBJ_ENDPOINT, SYS_CAP_WRITE, &ref);

		if (locks_now() != before)
			atomic_long_inc(&locked);
		if (err) {
			atomic_long_inc(&failed);
		} else {
			atomic_long_inc(&found);
			kobject_put(ref.obj);
		}
		if (i % 64 == 0)
			cond_resched();
	}
	return 0;
}

KTEST(cap_lookup_takes_no_lock_while_the_space_changes)
{
	static struct workers w;
	struct cspace_stats s0, s1;

	KASSERT(test_space_make(&ts));
	KASSERT_EQ(cap_create(ts.cs, KOBJ_ENDPOINT, 0, 0), 0);
	atomic_long_set(&found, 0);
	atomic_long_set(&failed, 0);
	atomic_long_set(&locked, 0);
	cspace_get_stats(&s0);
	KASSERT(workers_start_others(&w, NR_CPUS, looker, NULL, 0, "cap_look/%d"));
	for (int i = 0; i < MUTATIONS; i++) {
		int s = 1 + i % 7;

		cap_delete(ts.cs, s);
		cap_copy(ts.cs, 0, s);
		if (i % 3 == 0)
			cap_copy(ts.cs, 0, 16 + (i % 200));	/* grows the table now and then */
		if (i % 50 == 49)
			cap_revoke(ts.cs, 0);
		cond_resched();
	}
	KEXPECT_EQ(workers_stop(&w), 0);
	cspace_get_stats(&s1);
	ktest_info("%ld lookups found their capability, %ld found none; the table grew %lu times",
		   atomic_long_read(&found), atomic_long_read(&failed), s1.grows - s0.grows);
	KEXPECT(atomic_long_read(&found) > 0);
	KEXPECT_WHY(atomic_long_read(&locked) == 0,
		    "%ld of the lookups took a lock: a lookup under RCU takes none, so it never "
		    "waits for an updater (rcu_read_lock() is all it needs)",
		    atomic_long_read(&locked));
	if (CONFIG_RCU_CHECKING)	/* (the production build counts failed lookups only) */
		KEXPECT(s1.lookups - s0.lookups >= (unsigned long)w.nr * LOOKUPS_PER_CPU);
	test_space_free(&ts);
}

static DEFINE_SPINLOCK(wrong_lock);

/* A lookup that (wrongly) takes a lock, through the hook inside its critical section. */
static void take_a_lock(struct cspace *cs, long slot)
{
	(void)cs;
	(void)slot;
	spin_lock(&wrong_lock);
	spin_unlock(&wrong_lock);
}

KTEST_EXPECT_PANIC(cap_lookup_that_takes_a_lock_is_caught, "BUG: capability lookup of slot 0 took 1 lock")
{
	struct cap_ref ref;

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no lookup hooks");
	KASSERT(test_space_make(&ts));
	KASSERT_EQ(cap_create(ts.cs, KOBJ_ENDPOINT, 0, 0), 0);
	cap_lookup_hook = take_a_lock;
	cap_lookup(ts.cs, 0, KOBJ_ENDPOINT, SYS_CAP_WRITE, &ref);
	cap_lookup_hook = NULL;
	KEXPECT(!"the lookup that took a lock was caught");
}
