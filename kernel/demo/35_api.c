/*
 * The article's table of publish, retract and subscribe primitives,
 * printed once from the kernel with the demos that use each one; then the
 * properties of readers the other demos never show: critical sections
 * nest, and a grace period waits for the outermost rcu_read_unlock(), not
 * for an inner one; and a reader may run inside an interrupt handler (the
 * article's "readers delayed by interrupts"), where the CPU cannot switch
 * until the handler returns.
 */
#include "demo.h"
#include "irq.h"

#define MAX_HOLD_MS	2000	/* the reader's longest wait (far below a stall warning) */
#define LINGER_MS	100	/* it stays this long after the grace period began */
#define WAIT_MS		3000

/* The article's table, row by row, as it prints it. */
static const char *const api_table[][4] = {
	{ "Category", "Publish", "Retract", "Subscribe" },
	{ "Pointers", "rcu_assign_pointer()", "rcu_assign_pointer(..., NULL)",
	  "rcu_dereference()" },
	{ "Lists", "list_add_rcu() list_add_tail_rcu() list_replace_rcu()", "list_del_rcu()",
	  "list_for_each_entry_rcu()" },
	{ "Hlists", "hlist_add_after_rcu() hlist_add_before_rcu() hlist_add_head_rcu() "
	  "hlist_replace_rcu()", "hlist_del_rcu()", "hlist_for_each_entry_rcu()" },
};

/*
 * Where each primitive runs in these demos: demo names, then the files
 * (tools/test_demos.py checks each file calls it).
 */
static const char *const api_uses[][2] = {
	{ "rcu_assign_pointer()", "publish, qq1_seqlock, qq2_add_race: "
	  "10_publish.c 30_qq1_seqlock.c 31_qq2_add_race.c" },
	{ "rcu_assign_pointer(..., NULL)", "publish (retract gp): 10_publish.c" },
	{ "rcu_dereference()", "publish, qq1_seqlock, qq3_hlist: "
	  "10_publish.c 30_qq1_seqlock.c 32_qq3_hlist.c" },
	{ "list_add_rcu()", "list_publish, qq2_add_race: 10_publish.c 31_qq2_add_race.c" },
	{ "list_add_tail_rcu()", "deletion, replacement, qq45_versions, qq6_cost: "
	  "20_versions.c 33_qq45_versions.c 34_qq6_cost.c" },
	{ "list_replace_rcu()", "replacement, qq6_cost: 20_versions.c 34_qq6_cost.c" },
	{ "list_del_rcu()", "deletion, qq45_versions, and every demo's clean-up: "
	  "20_versions.c 33_qq45_versions.c" },
	{ "list_for_each_entry_rcu()", "list_publish, deletion, replacement, qq2, qq45, qq6: "
	  "10_publish.c 20_versions.c 31_qq2_add_race.c" },
	{ "hlist_add_after_rcu()", "qq3_hlist, as hlist_add_behind_rcu() (its name since "
	  "Linux 3.17): 32_qq3_hlist.c" },
	{ "hlist_add_before_rcu()", "qq3_hlist: 32_qq3_hlist.c" },
	{ "hlist_add_head_rcu()", "qq3_hlist: 32_qq3_hlist.c" },
	{ "hlist_replace_rcu()", "qq3_hlist: 32_qq3_hlist.c" },
	{ "hlist_del_rcu()", "qq3_hlist: 32_qq3_hlist.c" },
	{ "hlist_for_each_entry_rcu()", "qq3_hlist: 32_qq3_hlist.c" },
	{ "rcu_read_lock() nested", "api_table (below): 35_api.c" },
	{ "rcu_read_lock() in an interrupt handler", "api_table (below): 35_api.c" },
};

/* ------------------------------------------------------------------ */
/* Nesting, live                                                       */
/* ------------------------------------------------------------------ */

struct nfoo {
	int a, b, c;
};

static struct nfoo __rcu *api_gp;

static struct {
	struct task_struct *task;
	int cpu;
	bool holding;		/* reader: inside both critical sections, holding p */
	bool retracted;		/* demo: gp is NULL now */
	bool inner_done;	/* reader: the inner rcu_read_unlock() is done */
	int nesting_after_inner;	/* current->rcu_read_lock_nesting then */
	bool gp_started;	/* demo: synchronize_rcu() is about to begin */
	bool intact;		/* reader: p was 1,2,3 at the end */
	bool released;		/* reader: the outer rcu_read_unlock() is done */
	u64 outer_ns;		/* when */
} nest;

static void wait_flag(const bool *flag, u64 t0)
{
	while (!READ_ONCE(*flag) && ktime_get_ns() - t0 < MAX_HOLD_MS * NSEC_PER_MSEC)
		udelay(20);	/* busy: a reader must not sleep */
}

static int nest_reader_fn(void *arg)
{
	struct nfoo *p;
	u64 t0;

	(void)arg;
	rcu_read_lock();		/* outer */
	rcu_read_lock();		/* inner: a function that reads too */
	p = rcu_dereference(api_gp);
	t0 = ktime_get_ns();
	/* [nest_holding_release] pairs [demo_wait_acquire]: p is loaded before the updater retracts it. */
	smp_store_release(&nest.holding, true);
	wait_flag(&nest.retracted, t0);
	rcu_read_unlock();		/* inner: ends nothing */
	nest.nesting_after_inner = current->rcu_read_lock_nesting;
	/* [nest_inner_done_release] pairs [demo_wait_acquire]: or the demo could print an old nesting. */
	smp_store_release(&nest.inner_done, true);
	wait_flag(&nest.gp_started, t0);
	mdelay(LINGER_MS);
	WRITE_ONCE(nest.intact, p && READ_ONCE(p->a) == 1 && READ_ONCE(p->b) == 2 &&
		   READ_ONCE(p->c) == 3);
	rcu_read_unlock();		/* outer: the critical section ends here */
	nest.outer_ns = ktime_get_ns();
	/* [nest_released_release] pairs [nest_released_acquire]: outer_ns is written before the flag. */
	smp_store_release(&nest.released, true);
	demo_say("reader on CPU%d: outer rcu_read_unlock(): now it no longer holds 1,2,3",
		 nest.cpu);
	while (!kthread_should_stop())
		msleep(1);
	return 0;
}

static void show_table(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(api_table); i++)
		demo_say("%-9s| %s", api_table[i][0], api_table[i][1]);
	demo_say("then, for each row, retract and subscribe:");
	for (size_t i = 1; i < ARRAY_SIZE(api_table); i++)
		demo_say("%-9s| %s | %s", api_table[i][0], api_table[i][2], api_table[i][3]);
	demo_say("Each one, and the demos that run it (kernel/demo/):");
	for (size_t i = 0; i < ARRAY_SIZE(api_uses); i++)
		demo_say("  %-40s %s", api_uses[i][0], api_uses[i][1]);
	demo_say("All of them are in kernel/rcu/rcupdate.h and lib/rculist.h.");
}

/* Publishes a fresh {1, 2, 3} at api_gp for a live reader to hold. */
static struct nfoo *publish_fresh_nfoo(void)
{
	struct nfoo *p = kmalloc(sizeof(*p), GFP_KERNEL);

	if (!p) {
		demo_fail("out of memory");
		return NULL;
	}
	p->a = 1, p->b = 2, p->c = 3;
	rcu_assign_pointer(api_gp, p);
	return p;
}

static void nesting_live(void)
{
	struct nfoo *p = publish_fresh_nfoo();
	int cpus[1];
	u64 t0, t1;

	if (!p)
		return;
	memset(&nest, 0, sizeof(nest));
	worker_cpus(cpus, 1);
	nest.cpu = cpus[0];
	nest.task = kthread_run_on_cpu(nest_reader_fn, NULL, nest.cpu, "nest_reader");
	if (!nest.task || !demo_wait_for(&nest.holding, WAIT_MS)) {
		demo_fail("the nested reader on CPU%d did not start", nest.cpu);
		goto out;
	}
	demo_say("reader on CPU%d: rcu_read_lock(); rcu_read_lock(); p = rcu_dereference(gp);",
		 nest.cpu);
	demo_say("  it holds 1,2,3 inside two nested critical sections");
	rcu_assign_pointer(api_gp, NULL);
	WRITE_ONCE(nest.retracted, true);	/* a signal: it publishes nothing the reader reads */
	demo_say("updater: rcu_assign_pointer(gp, NULL): new readers find nothing");
	if (!demo_wait_for(&nest.inner_done, WAIT_MS)) {
		demo_fail("the reader did not leave its inner critical section");
		goto out;
	}
	if (CONFIG_RCU_CHECKING)
		demo_say("reader on CPU%d: inner rcu_read_unlock(): nesting now %d, still a reader",
			 nest.cpu, nest.nesting_after_inner);
	else
		demo_say("reader on CPU%d: inner rcu_read_unlock() (the production build keeps "
			 "no count: nesting costs nothing)", nest.cpu);
	demo_say("updater: synchronize_rcu() must wait for the outer rcu_read_unlock()");
	WRITE_ONCE(nest.gp_started, true);	/* a signal: it publishes nothing */
	t0 = ktime_get_ns();
	synchronize_rcu();
	t1 = ktime_get_ns();
	demo_say("synchronize_rcu() returned after %llu ms",
		 (unsigned long long)((t1 - t0) / NSEC_PER_MSEC));
	/* [nest_released_acquire] pairs [nest_released_release]: or we might compare an old outer_ns. */
	if (!smp_load_acquire(&nest.released) || nest.outer_ns > t1)
		demo_fail("synchronize_rcu() returned before the outer rcu_read_unlock()");
	else
		demo_say("it waited for the outermost rcu_read_unlock(), not the inner one");
	if (!READ_ONCE(nest.intact))
		demo_fail("the reader's 1,2,3 changed under it");
out:
	if (nest.task)
		kthread_stop(nest.task);
	rcu_assign_pointer(api_gp, NULL);
	synchronize_rcu();
	kfree(p);
}

/* ------------------------------------------------------------------ */
/* A reader inside an interrupt handler                                */
/* ------------------------------------------------------------------ */

static struct {
	struct irq_work work;
	int cpu;
	bool holding;		/* handler: inside rcu_read_lock(), holding p */
	bool in_irq;		/* in_interrupt() was true there */
	bool gp_started;	/* demo: synchronize_rcu() is about to begin */
	bool intact;
	bool released;		/* handler: rcu_read_unlock() done */
	u64 unlock_ns;
} irqr;

/*
 * Runs in hard-interrupt context on irqr.cpu (an IPI): a reader that
 * lingers, as one delayed by a long interrupt would.  The CPU cannot
 * switch tasks until the handler returns, so no tour can pass it.
 */
static void irq_reader(struct irq_work *work)
{
	struct nfoo *p;
	u64 t0 = ktime_get_ns();

	(void)work;
	rcu_read_lock();
	p = rcu_dereference(api_gp);
	WRITE_ONCE(irqr.in_irq, in_interrupt());
	/* [irqr_holding_release] pairs [demo_wait_acquire]: or the demo could print an old in_irq. */
	smp_store_release(&irqr.holding, true);
	wait_flag(&irqr.gp_started, t0);
	mdelay(LINGER_MS);
	WRITE_ONCE(irqr.intact, p && READ_ONCE(p->a) == 1 && READ_ONCE(p->b) == 2 &&
		   READ_ONCE(p->c) == 3);
	rcu_read_unlock();
	irqr.unlock_ns = ktime_get_ns();
	/*
	 * [irqr_released_release] pairs [irqr_released_acquire],
	 * [demo_wait_acquire]: unlock_ns is written before the flag, so the
	 * demo compares the grace period's end with our real unlock time.
	 */
	smp_store_release(&irqr.released, true);
}

static void irq_reader_live(void)
{
	struct nfoo *p = publish_fresh_nfoo();
	int cpus[1];
	u64 t0, t1;

	if (!p)
		return;
	memset(&irqr, 0, sizeof(irqr));
	worker_cpus(cpus, 1);
	irqr.cpu = cpus[0];
	irqr.work.func = irq_reader;
	if (!irq_work_queue_on(&irqr.work, irqr.cpu) || !demo_wait_for(&irqr.holding, WAIT_MS)) {
		demo_fail("the interrupt handler on CPU%d did not run", irqr.cpu);
		goto out;
	}
	demo_say("CPU%d, in an interrupt handler (in_interrupt() %s): rcu_read_lock();",
		 irqr.cpu, READ_ONCE(irqr.in_irq) ? "true" : "FALSE");
	demo_say("  p = rcu_dereference(gp); it holds 1,2,3 and lingers");
	if (!READ_ONCE(irqr.in_irq))
		demo_fail("the reader did not run in interrupt context");
	rcu_assign_pointer(api_gp, NULL);
	demo_say("updater: rcu_assign_pointer(gp, NULL); synchronize_rcu() must wait: CPU%d",
		 irqr.cpu);
	demo_say("  cannot switch tasks until its handler returns");
	WRITE_ONCE(irqr.gp_started, true);	/* a signal: it publishes nothing */
	t0 = ktime_get_ns();
	synchronize_rcu();
	t1 = ktime_get_ns();
	/* [irqr_released_acquire] pairs [irqr_released_release]: or we might compare an old unlock_ns. */
	if (!smp_load_acquire(&irqr.released) || irqr.unlock_ns > t1)
		demo_fail("synchronize_rcu() returned before the handler's rcu_read_unlock()");
	else
		demo_say("synchronize_rcu() returned after %llu ms, %llu ms after the handler's "
			 "rcu_read_unlock()", (unsigned long long)((t1 - t0) / NSEC_PER_MSEC),
			 (unsigned long long)((t1 - irqr.unlock_ns) / NSEC_PER_MSEC));
	if (!READ_ONCE(irqr.intact))
		demo_fail("the handler's 1,2,3 changed under it");
out:
	if (!READ_ONCE(irqr.released))		/* only whether to wait */
		demo_wait_for(&irqr.released, WAIT_MS);	/* it ends within MAX_HOLD_MS */
	rcu_assign_pointer(api_gp, NULL);
	synchronize_rcu();
	kfree(p);
}

DEMO(api_table, "The article's API table from the kernel; nested rcu_read_lock(), live")
{
	demo_step("The article's publish / retract / subscribe primitives, and their demos");
	show_table();

	demo_step("Nesting: a grace period waits for the outermost rcu_read_unlock()");
	demo_code("rcu_read_lock();                 /* outer */\n"
		  "        rcu_read_lock();         /* inner: a function that reads too */\n"
		  "        p = rcu_dereference(gp);\n"
		  "        rcu_read_unlock();       /* ends nothing: still a reader */\n"
		  "        ... p is still safe to use ...\n"
		  "rcu_read_unlock();               /* the critical section ends here */");
	if (num_online_cpus() == 1) {
		demo_say("(one CPU: no reader can be inside rcu_read_lock() while the updater");
		demo_say(" runs; with SMP=2 or more a reader on another CPU shows it.)");
		return;
	}
	/* No pause from here to the step's end: the reader holds 1,2,3 throughout. */
	nesting_live();

	demo_step("A reader inside an interrupt handler");
	demo_code("static void handler(struct irq_work *work)   /* hard-interrupt context */\n"
		  "{\n"
		  "        rcu_read_lock();\n"
		  "        p = rcu_dereference(gp);\n"
		  "        ... a long interrupt: the reader lingers ...\n"
		  "        rcu_read_unlock();\n"
		  "}\n"
		  "irq_work_queue_on(&work, 1);                  /* an IPI to CPU1 */");
	irq_reader_live();
}
