/*
 * Beyond the article: a reader that must sleep.  Inside rcu_read_lock()
 * it is a bug, and the checking build stops the kernel on it; inside
 * srcu_read_lock() it is allowed, and synchronize_srcu() waits for the
 * sleeper -- while classic RCU's synchronize_rcu() does not.  The price is
 * on the read side (make bench, docs/benchmarks.md).
 */
#include "demo.h"

/*
 * The first line of the report, as the checking build prints it.  Shown
 * from a recording because the report ends the kernel.  The test
 * misuse_msleep_in_rcu_reader (tests/misuse.c) boots a kernel that sleeps
 * in rcu_read_lock() and passes only if this exact line appears.
 */
const char srcu_demo_panic_line[] =
	"BUG: Illegal context switch in RCU read-side critical section: "
	"msleep() inside rcu_read_lock() (nesting depth 1)";

#define SRCU_DEMO_SLEEP_MS	100

DEFINE_STATIC_SRCU(demo_srcu);

struct sfoo {
	int a, b, c;
};

static struct sfoo *srcu_gp;

static struct {
	struct task_struct *task;
	int cpu;
	bool in, left;
	int idx;
	int a;
	u64 left_ns;
} sleeper;

static int srcu_sleeper_fn(void *arg)
{
	int idx = srcu_read_lock(&demo_srcu);
	struct sfoo *p = srcu_dereference(srcu_gp, &demo_srcu);

	(void)arg;
	sleeper.idx = idx;
	WRITE_ONCE(sleeper.in, true);
	msleep(SRCU_DEMO_SLEEP_MS);		/* asleep inside the reader */
	sleeper.a = p ? READ_ONCE(p->a) : 0;	/* still valid: the updater waits */
	sleeper.left_ns = ktime_get_ns();
	WRITE_ONCE(sleeper.left, true);
	srcu_read_unlock(&demo_srcu, idx);
	return 0;
}

static bool start_srcu_sleeper(void)
{
	int cpus[1];

	worker_cpus(cpus, 1);
	sleeper.in = sleeper.left = false;
	sleeper.cpu = cpus[0];
	sleeper.task = kthread_run_on_cpu(srcu_sleeper_fn, NULL, cpus[0], "srcu_sleeper");
	return sleeper.task && demo_wait_for(&sleeper.in, 10000);
}

static void show_the_bug(void)
{
	char line[192];

	demo_step("A reader that sleeps inside rcu_read_lock()");
	demo_code("rcu_read_lock();\n"
		  "p = rcu_dereference(gp);\n"
		  "msleep(100);          /* a context switch: the CPU's quiescent state */\n"
		  "do_something_with(p->a);\n"
		  "rcu_read_unlock();");
	demo_say("Classic RCU's grace period is \"every CPU switched\".  A reader that");
	demo_say("sleeps lets its CPU switch while it still holds p, so synchronize_rcu()");
	demo_say("could return and the updater free p under it.  The checking build stops");
	demo_say("the kernel at the msleep().  That ends the kernel, so here is the report");
	demo_say("recorded from a boot of its own (make test TESTS=misuse_msleep_in_rcu_reader");
	demo_say("boots it and checks the first line):");
	snprintf(line, sizeof(line), "Kernel panic - not syncing: %s", srcu_demo_panic_line);
	demo_code(line);
	/* The rest as a boot of make test SMP=2 on x86-64 printed it (addresses vary). */
	demo_code("CPU: 0 Task: ktest\n"
		  "Call Trace:\n"
		  " [<0000000000106eb8>] might_sleep_check+0x78/0xc1\n"
		  " [<000000000010720b>] msleep+0x2b/0xec\n"
		  " [<000000000011a4b0>] ktest_fn_misuse_msleep_in_rcu_reader+0x30/0x45\n"
		  " [<00000000001045a9>] ktest_run_all+0x229/0x333");
}

/* The same reader under SRCU; returns false if the demo failed. */
static bool show_srcu_waits(void)
{
	struct sfoo *old = kmalloc(sizeof(*old), GFP_KERNEL), *new;
	u64 t0, t1;

	if (!old) {
		demo_fail("out of memory");
		return false;
	}
	*old = (struct sfoo){ 1, 2, 3 };
	rcu_assign_pointer(srcu_gp, old);

	/* The pause comes before the reader starts: it sleeps only 100 ms. */
	demo_step("The same reader under srcu_read_lock()");
	demo_code("idx = srcu_read_lock(&demo_srcu);\n"
		  "p = srcu_dereference(gp, &demo_srcu);\n"
		  "msleep(100);          /* allowed: SRCU counts its readers */\n"
		  "do_something_with(p->a);\n"
		  "srcu_read_unlock(&demo_srcu, idx);");
	if (!start_srcu_sleeper()) {
		demo_fail("the reader did not start");
		return false;
	}
	demo_say("The reader on CPU%d took the index %d and fell asleep holding 1,2,3.",
		 sleeper.cpu, sleeper.idx);

	/* No pause: at a reading pace the reader would have left already. */
	demo_step_nopause("The updater replaces 1,2,3 and calls synchronize_srcu()");
	if (READ_ONCE(sleeper.left))
		demo_fail("the reader left before synchronize_srcu() began: nothing to wait for");
	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (new) {
		*new = (struct sfoo){ 4, 5, 6 };
		rcu_assign_pointer(srcu_gp, new);
	}
	t0 = ktime_get_ns();
	synchronize_srcu(&demo_srcu);
	t1 = ktime_get_ns();
	demo_say("the reader left after %llu ms; synchronize_srcu() returned after %llu ms",
		 (unsigned long long)((READ_ONCE(sleeper.left_ns) - t0) / NSEC_PER_MSEC),
		 (unsigned long long)((t1 - t0) / NSEC_PER_MSEC));
	if (READ_ONCE(sleeper.left) && sleeper.left_ns <= t1)
		demo_say("synchronize_srcu() returned after the reader left (it read a=%d):",
			 sleeper.a);
	else
		demo_fail("synchronize_srcu() returned while the reader was still inside");
	demo_say("the grace period flipped the index and waited, twice, until the lock and");
	demo_say("unlock counts of each rank were equal.  Now kfree(1,2,3) is safe.");
	kthread_stop(sleeper.task);
	kfree(old);
	RCU_INIT_POINTER(srcu_gp, NULL);
	synchronize_srcu(&demo_srcu);
	kfree(new);
	return true;
}

static void show_rcu_does_not_wait(void)
{
	u64 t0, t1;

	demo_step("Each domain waits only for its own readers");
	demo_say("Classic RCU does not wait for a sleeping SRCU reader: it has switched.");
	if (!start_srcu_sleeper()) {
		demo_fail("the reader did not start");
		return;
	}
	t0 = ktime_get_ns();
	synchronize_rcu();
	t1 = ktime_get_ns();
	if (!READ_ONCE(sleeper.left))
		demo_say("synchronize_rcu() returned while the SRCU reader slept (%llu ms).",
			 (unsigned long long)((t1 - t0) / NSEC_PER_MSEC));
	else
		demo_say("the reader woke before synchronize_rcu() returned this time");
	demo_say("Likewise a grace period of one srcu_struct never waits for the readers");
	demo_say("of another (tests/srcu.c checks both).");
	kthread_stop(sleeper.task);
}

DEMO(srcu, "SRCU: a reader that sleeps, and the grace period that waits for it")
{
	show_the_bug();
	if (!show_srcu_waits())
		return;
	show_rcu_does_not_wait();

	demo_step("The price");
	demo_say("rcu_read_lock() is no instruction at all in the production build.");
	demo_say("srcu_read_lock() adds one to a per-CPU counter and executes a full");
	demo_say("barrier (smp_mb(): mfence on x86-64, dmb ish on AArch64), and so does");
	demo_say("srcu_read_unlock(): make bench measures it (bench_readside, method srcu).");
}
