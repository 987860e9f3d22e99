/*
 * rcu_barrier() under stress: when it returns, every callback queued
 * before the call has run, on every CPU -- callbacks queued from tasks and
 * from interrupt handlers, slow ones, ones that re-post themselves (only
 * their first posting counts), and ones on a CPU whose rcuc thread cannot
 * run: a task there passes quiescent states (rcu_note_context_switch(),
 * as a long loop in Linux reports them) but never yields, until
 * rcu_barrier() itself is queued on that CPU.  Grace periods go on, so
 * every other CPU's callbacks run; an rcu_barrier() that does not wait on
 * that CPU returns with its callback still queued, every time.
 */
#include "rcu_window.h"

#define NPLAIN	8
#define NIRQ	4
#define REPOSTS	3

struct bcb {
	struct rcu_head rh;
	int ran;		/* times it ran */
	int reposts;		/* a chain: times it queues itself again */
};

static struct bcb plain[NR_CPUS][NPLAIN], irqcb[NR_CPUS][NIRQ];
static struct bcb chain[NR_CPUS], slow[NR_CPUS], hogged;
static struct irq_work irq_queue[NR_CPUS];
static atomic_t irq_queued;

static struct {
	struct task_struct *caller;
	int hog_cpu;
	int started, returned;		/* caller: rcu_barrier() called, returned */
	int hogging;			/* hog: it holds its CPU */
	int hogged_queued;		/* the callback behind the hog is queued */
} bw;

static void bcb_count(struct rcu_head *rh)
{
	struct bcb *b = container_of(rh, struct bcb, rh);

	WRITE_ONCE(b->ran, b->ran + 1);
	if (b->reposts-- > 0)
		call_rcu(&b->rh, bcb_count);	/* after rcu_barrier(): not its business */
}

static void bcb_slow(struct rcu_head *rh)
{
	udelay(500);
	bcb_count(rh);
}

static void queue_from_irq(struct irq_work *work)
{
	int cpu = smp_processor_id();

	(void)work;
	for (int i = 0; i < NIRQ; i++)
		call_rcu(&irqcb[cpu][i].rh, bcb_count);
	atomic_inc(&irq_queued);
}

static void queue_hogged(struct irq_work *work)
{
	(void)work;
	call_rcu(&hogged.rh, bcb_count);
	smp_store_release(&bw.hogged_queued, 1);
}

/* Reports quiescent states, never yields, until rcu_barrier() waits for this CPU. */
static int bw_hog(void *arg)
{
	int me = smp_processor_id();
	u64 t0 = ktime_get_ns();

	(void)arg;
	smp_store_release(&bw.hogging, 1);
	while (!smp_load_acquire(&bw.returned) && win_budget_left(t0)) {
		if (smp_load_acquire(&bw.started) && READ_ONCE(bw.caller->cpu) == me)
			break;		/* rcu_barrier() is queued here: let it in */
		rcu_note_context_switch();
		udelay(2);
	}
	return 0;
}

static void bw_queue_everything(void)
{
	int cpu, n = 0;

	memset(plain, 0, sizeof(plain));
	memset(irqcb, 0, sizeof(irqcb));
	memset(chain, 0, sizeof(chain));
	memset(slow, 0, sizeof(slow));
	atomic_set(&irq_queued, 0);
	for_each_online_cpu(cpu) {
		run_on(cpu);
		for (int i = 0; i < NPLAIN; i++)
			call_rcu(&plain[cpu][i].rh, bcb_count);
		chain[cpu].reposts = REPOSTS;
		call_rcu(&chain[cpu].rh, bcb_count);
		call_rcu(&slow[cpu].rh, bcb_slow);
	}
	run_on(0);
	for_each_online_cpu(cpu) {
		if (cpu == 0)
			continue;
		irq_queue[cpu].func = queue_from_irq;
		irq_queue[cpu].lazy = false;
		while (!irq_work_queue_on(&irq_queue[cpu], cpu))
			msleep(1);
		n++;
	}
	for (u64 t0 = ktime_get_ns(); atomic_read(&irq_queued) < n && win_budget_left(t0);)
		msleep(1);
}

/* Callbacks queued before rcu_barrier() that had not run when it returned. */
static int bw_not_run(void)
{
	int cpu, missing = 0;

	for_each_online_cpu(cpu) {
		for (int i = 0; i < NPLAIN; i++)
			missing += !READ_ONCE(plain[cpu][i].ran);
		for (int i = 0; i < NIRQ && cpu != 0; i++)
			missing += !READ_ONCE(irqcb[cpu][i].ran);
		missing += !READ_ONCE(chain[cpu].ran) + !READ_ONCE(slow[cpu].ran);
	}
	return missing + !READ_ONCE(hogged.ran);
}

KTEST(rcu_window_barrier_under_stress)
{
	int cpus[NR_CPUS], n, failed = 0;

	run_on(0);
	n = win_reader_cpus(cpus);
	for (int i = 0; i < max(n, 1); i++) {
		struct task_struct *hog = NULL;
		int missing;

		memset(&bw, 0, sizeof(bw));
		memset(&hogged, 0, sizeof(hogged));
		bw.caller = current;
		bw_queue_everything();
		if (n) {
			/*
			 * The hog takes cpus[i] first; then an interrupt there
			 * queues a callback, which its rcuc thread cannot reach.
			 */
			bw.hog_cpu = cpus[i];
			hog = kthread_run_on_cpu(bw_hog, NULL, cpus[i], "bw_hog");
			KASSERT(hog != NULL);
			KASSERT(WIN_WAIT(smp_load_acquire(&bw.hogging)));
			irq_queue[cpus[i]].func = queue_hogged;
			while (!irq_work_queue_on(&irq_queue[cpus[i]], cpus[i]))
				msleep(1);
			KASSERT(WIN_WAIT(smp_load_acquire(&bw.hogged_queued)));
		} else {
			call_rcu(&hogged.rh, bcb_count);
		}
		smp_store_release(&bw.started, 1);
		rcu_barrier();
		missing = bw_not_run();
		smp_store_release(&bw.returned, 1);
		if (hog)
			kthread_stop(hog);
		if (missing)
			ktest_info("rcu_barrier() returned with %d callbacks not run (rcuc held off CPU%d)",
				   missing, n ? cpus[i] : 0);
		failed += missing != 0;
		/* The chains re-post themselves: one rcu_barrier() per link. */
		for (int k = 0; k < REPOSTS; k++)
			rcu_barrier();
		for (int cpu = 0; cpu < NR_CPUS; cpu++)
			if (cpu_online(cpu))
				KEXPECT_EQ(READ_ONCE(chain[cpu].ran), REPOSTS + 1);
	}
	KEXPECT_EQ(failed, 0);
}
