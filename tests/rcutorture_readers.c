/*
 * rcutorture's readers (tests/rcutorture.c tells the whole story, and why
 * only buckets 0 and 1 of their histograms may be non-zero): one thread
 * per reader, and passes inside interrupt handlers that the threads ask for.
 */
#include "rcutorture.h"
#include "irq.h"	/* irq_work: readers inside interrupt handlers */

/* Has anything happened to p that a correct RCU forbids while we hold it? */
static bool rt_reader_saw_gp_end(struct rt_elem *p, unsigned long gen0, unsigned long b0)
{
	return torture_life_ended_under(&p->life, gen0) || READ_ONCE(rt_writer_gps) - b0 >= 2;
}

/*
 * How long a reader holds its element: mostly a few microseconds, one pass
 * in eight 20-120 us, one in eight 1-2 ms.  A long hold
 * ends early only once the element has visibly gone through a grace
 * period (or two of the writer's grace periods ended) under it, which a
 * correct RCU never allows: so with a correct RCU every long hold lasts
 * its full time, and with a broken one it lasts until the writer has made
 * the progress that convicts it, however the host schedules our vCPUs.
 */
static bool rt_reader_delay(u32 *rng, struct rt_elem *p, unsigned long gen0,
			    unsigned long b0)
{
	u32 r = prandom_u32(rng);

	if ((r & 7) == 0) {
		u64 end = ktime_get_ns() + (1000 + (r >> 8) % 1000) * NSEC_PER_USEC;

		while (ktime_get_ns() < end && !rt_reader_saw_gp_end(p, gen0, b0))
			udelay(5);
		return true;
	}
	if ((r & 7) == 1)
		udelay(20 + (r >> 8) % 100);
	else
		udelay(1 + (r >> 8) % 16);
	return false;
}

/* One read-side critical section on rt_current, counted in rd; false if none was published. */
static bool rt_reader_pass(struct rt_reader *rd)
{
	struct rt_elem *p;
	struct torture_look look;
	unsigned long b0, b1;
	bool recycled;
	int pc;

	rcu_read_lock();
	b0 = READ_ONCE(rt_writer_gps);
	p = rcu_dereference(rt_current);
	if (!p) {
		rcu_read_unlock();
		rd->nulls++;
		return false;
	}
	torture_look_begin(&p->life, &look);
	if (!look.mbtest_ok)
		rd->mbtest_errs++;

	if (rt_reader_delay(&rd->rng, p, look.gen, b0))
		rd->long_holds++;

	/* (RT_PIPE_LEN: freed, and maybe reused or kfree()d, under us) */
	pc = torture_look_end(&p->life, &look, &recycled);
	b1 = READ_ONCE(rt_writer_gps);
	rcu_read_unlock();

	rd->recycled += recycled;
	rd->pipe[pc]++;
	rd->batch[min(b1 - b0, (unsigned long)RT_PIPE_LEN)]++;
	rd->passes++;
	return true;
}

/*
 * Readers in interrupt handlers: each reader thread, every eighth pass,
 * asks a random CPU (busy or idle, its own too) for one pass inside its
 * next IPI or timer tick (irq_work_queue_on()).  Each CPU counts its
 * handlers' passes in its own rt_irq_readers[] slot: handlers on one CPU
 * never nest.
 */
struct rt_reader rt_irq_readers[NR_CPUS];
static struct irq_work rt_irq_work[NR_CPUS][2];	/* [cpu][lazy] */

static void rt_irq_reader(struct irq_work *work)
{
	(void)work;
	rt_reader_pass(&rt_irq_readers[smp_processor_id()]);
}

static void rt_kick_irq_reader(struct rt_reader *rd)
{
	u32 r = prandom_u32(&rd->rng);
	int cpu = r % num_online_cpus();
	bool lazy = (r >> 8) & 1;

	if (!cpu_online(cpu) || (!lazy && cpu == smp_processor_id()))
		return;		/* an IPI cannot go to ourselves: skip this one */
	rt_irq_work[cpu][lazy].func = rt_irq_reader;
	rt_irq_work[cpu][lazy].lazy = lazy;
	irq_work_queue_on(&rt_irq_work[cpu][lazy], cpu);	/* still pending: skip */
}

int rt_reader(void *arg)
{
	struct rt_reader *rd = arg;

	while (!kthread_should_stop()) {
		if (!rt_reader_pass(rd)) {
			cond_resched();
			continue;
		}
		if ((rd->passes & 7) == 0)
			rt_kick_irq_reader(rd);
		/* Now and then let the CPU idle: lighter, and idle CPUs are tested too. */
		if ((prandom_u32(&rd->rng) & rd->sleep_mask) == 0)
			worker_rest();	/* a tick; longer at 16 CPUs and more */
		else
			cond_resched();
	}
	return 0;
}
