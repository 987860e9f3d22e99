/*
 * rcutorture: a torture test for RCU in the manner of Linux's rcutorture
 * (kernel/rcu/rcutorture.c, Documentation/RCU/torture.rst), written for
 * this kernel: one writer, a few fake writers and one reader per CPU hammer
 * RCU for rcutorture.duration seconds, and the readers check that no grace
 * period ever ends under their feet.
 *
 * The writer publishes torture elements through rt_current, one after the
 * other.  Each element carries a pipe_count that says how many grace
 * periods have passed since it was removed:
 *
 *   0          it is rt_current (or was handed out again from the pool);
 *   1          the writer replaced it: it is "retired", no grace period yet
 *              (the writer sets 1 at removal, before waiting for anything);
 *   1 + k      k grace periods, each begun after the removal, have ended;
 *   PIPE_LEN   it went back to the free pool: mbtest is 0, pipe_count is
 *              poisoned and it may be published again with a new gen.
 *
 * A retired element either joins the writer's shared pipeline, advanced by
 * one each time the writer waits for a grace period (synchronize_rcu(),
 * call_rcu() and waiting for the callback, or a polled cookie), or it takes
 * the asynchronous path Linux calls deferred free: a call_rcu() chain in
 * which each callback adds one and queues the element again.
 *
 * The invariant the readers check.  A reader obtains an element from
 * rt_current, so when it loaded the pointer the element was current (0) or
 * being retired at that instant (1).  Every grace period counted into
 * pipe_count began after the removal, hence after the reader began, so it
 * must wait for the reader to finish: while the reader holds the element,
 * pipe_count can have gone from 0 to 1 (retired meanwhile), never further.
 * So with a correct RCU only buckets 0 and 1 of the Reader Pipe histogram
 * may be non-zero; bucket 2..PIPE_LEN-1 means a grace period ended while a
 * pre-existing reader still held the element, and bucket PIPE_LEN means
 * the element was even freed (and perhaps reused) under the reader.
 *
 * The Reader Batch histogram counts the writer's grace periods that ended
 * during a read-side critical section (a counter bumped after each one).
 * At most one may: the one that was already running when the reader began.
 * Any later one began after the reader, so it must outlast it.  Again only
 * buckets 0 and 1 may be non-zero.
 *
 * Readers also run inside interrupt handlers: every eighth pass a reader
 * thread asks some CPU, busy or idle, for one pass in its next IPI or
 * timer tick (irq_work_queue_on()), counted in the same histograms.  And
 * the writer retires elements by every method: its pipeline (advanced by
 * synchronize_rcu(), synchronize_rcu_expedited(), call_rcu(), a polled
 * cookie or cond_synchronize_rcu()),
 * the call_rcu() chain, and kfree_rcu() of the element (a fresh one joins
 * the pool), whose poison a late reader sees as mbtest != 1.
 *
 * With rcu.inject=no_wait (grace periods that wait for nothing) and two or
 * more CPUs, readers on other CPUs see their elements age and be recycled
 * under them, and the test must fail.  On one CPU a grace period that waits
 * for nothing is still correct here (readers never block and nothing
 * preempts them), so the test passes there.
 */
#include "ktest.h"
#include "rcutorture.h"

static int rt_duration = 3;
KPARAM_INT("rcutorture.duration", rt_duration, 1, 3600);
static int rt_nreaders_param;		/* 0: one per online CPU */
KPARAM_INT("rcutorture.readers", rt_nreaders_param, 0, RT_MAX_READERS);
static int rt_nfakers_param = 2;
KPARAM_INT("rcutorture.fakewriters", rt_nfakers_param, 0, RT_MAX_FAKERS);
/*
 * CPU hotplug throughout, as Linux's onoff_interval: every this many
 * milliseconds a random CPU other than the boot CPU goes down, or comes
 * back if it is down.  0: none (the rcutorture test); the rcutorture_onoff
 * test uses RT_ONOFF_DEFAULT_MS when this is 0.
 */
static int rt_onoff_ms;
KPARAM_INT("rcutorture.onoff_interval", rt_onoff_ms, 0, 60000);
#define RT_ONOFF_DEFAULT_MS	20

struct rt_run rt;

/* Fresh state (the test may run more than once per boot) and a full pool. */
static bool rt_setup(void)
{
	rt.ncpus = num_online_cpus();
	rt.nreaders = min(rt_nreaders_param ? rt_nreaders_param : rt.ncpus, RT_MAX_READERS);
	rt.nfakers = rt_nfakers_param;
	rt.live_before = kmalloc_live_objects();
	ktest_info("rcutorture: --- Start of test: nreaders=%d nfakewriters=%d duration=%d s "
		   "cpus=%d pipe_len=%d%s", rt.nreaders, rt.nfakers, rt_duration, rt.ncpus,
		   RT_PIPE_LEN, rcu_injected(RCU_INJECT_NO_WAIT) ? " rcu.inject=no_wait" : "");

	memset(&rt_wstats, 0, sizeof(rt_wstats));
	atomic_set(&rt_deferred_inflight, 0);
	atomic_set(&rt_deferred_cbs, 0);
	rt_writer_gps = 0;
	RCU_INIT_POINTER(rt_current, NULL);
	INIT_LIST_HEAD(&rt_pipeline);
	init_completion(&rt_wgp_done);

	rt.readers = kcalloc(rt.nreaders, sizeof(*rt.readers), GFP_KERNEL);
	rt.fakers = kcalloc(rt.nfakers ? rt.nfakers : 1, sizeof(*rt.fakers), GFP_KERNEL);
	if (!rt.readers || !rt.fakers)
		return false;
	for (int i = 0; i < RT_NELEM; i++) {
		struct rt_elem *e = kzalloc(sizeof(*e), GFP_KERNEL);

		if (!e)
			return false;
		rt_elem_free(e);
	}
	atomic_set(&rt_frees, 0);
	return true;
}

/* Readers first, one per CPU (all on CPU0 with everything else at SMP=1), then the writers. */
static void rt_start(void)
{
	/*
	 * The host may have two cores for all our vCPUs: the more CPUs, the
	 * more often each reader sleeps (1 pass in 32 at SMP<=2, in 16 at
	 * <=4, in 8 beyond), and from 16 CPUs on the longer each sleep is
	 * (worker_rest()), so the readers' demand stays about constant.
	 */
	u32 sleep_mask = rt.ncpus <= 2 ? 31 : rt.ncpus <= 4 ? 15 : 7;

	rcu_get_stats(&rt.s0);
	memset(rt_irq_readers, 0, sizeof(rt_irq_readers));
	for (int i = 0; i < NR_CPUS; i++)
		rt_irq_readers[i].rng = rt_seed(200 + i);
	for (int i = 0; i < rt.nreaders; i++) {
		rt.readers[i].rng = rt_seed(i);
		rt.readers[i].sleep_mask = sleep_mask;
	}
	for (int i = 0; i < rt.nfakers; i++)
		rt.fakers[i].rng = rt_seed(100 + i);
	rt.started = workers_start_spread(&rt.reader_group, rt.nreaders, 0, rt_reader,
					  rt.readers, sizeof(*rt.readers), "rtort_r/%d");
	rt.started &= workers_start_spread(&rt.faker_group, rt.nfakers, 1, rt_fake_writer,
					   rt.fakers, sizeof(*rt.fakers), "rtort_fw/%d");
	rt.writer = kthread_run_on_cpu(rt_writer, NULL, rt.ncpus - 1, "rtort_w");
	rt.started &= rt.writer != NULL;
	rt.onoffs = rt.onoff_errors = 0;
	rt.onoff = NULL;
	if (rt.onoff_ms) {
		rt.onoff = kthread_run_on_cpu(rt_onoff, NULL, 0, "rtort_onoff");
		rt.started &= rt.onoff != NULL;
	}
	rt.t0 = ktime_get_ns();
}

/*
 * rcutorture.duration seconds, and at least RT_MIN_UPDATES updates,
 * however slow the machine: 16 vCPUs on two host cores make every grace
 * period slow.  An event count, with a generous cap only a hung writer hits.
 */
static void rt_wait(void)
{
	if (rt.started) {
		msleep((unsigned int)rt_duration * 1000);
		while (READ_ONCE(rt_wstats.updates) < RT_MIN_UPDATES &&
		       ktime_get_ns() - rt.t0 < RT_HUNG_WRITER_NS)
			msleep(10);
	}
	rt.t_run = ktime_get_ns() - rt.t0;
}

/* Writer first (it needs the others to make progress), then the rest; then drain. */
static void rt_stop(void)
{
	if (rt.onoff)
		kthread_stop(rt.onoff);	/* first: every CPU is back online after it */
	if (rt.writer)
		kthread_stop(rt.writer);
	workers_stop(&rt.faker_group);
	workers_stop(&rt.reader_group);
	msleep(30);	/* the handler passes the readers asked for last have run */
	rt.run_frees = atomic_read(&rt_frees);	/* before the final drain */
	rcu_barrier();
	rt_drain();
	rt.t_stop = ktime_get_ns() - rt.t0 - rt.t_run;
	rcu_get_stats(&rt.s1);
}

/* What the readers and fake writers counted, summed. */
struct rt_totals {
	unsigned long long pipe[RT_PIPE_LEN + 1], batch[RT_PIPE_LEN + 1];
	unsigned long long mbtest_errs, recycled, long_holds, fake_gps;
	unsigned long long bad_pipe, bad_batch, min_passes, irq_passes;
};

static void rt_sum(struct rt_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->min_passes = ~0ULL;
	for (int i = 0; i < rt.nreaders; i++) {
		struct rt_reader *rd = &rt.readers[i];

		for (int n = 0; n <= RT_PIPE_LEN; n++) {
			t->pipe[n] += rd->pipe[n];
			t->batch[n] += rd->batch[n];
		}
		t->mbtest_errs += rd->mbtest_errs;
		t->recycled += rd->recycled;
		t->long_holds += rd->long_holds;
		t->min_passes = min(t->min_passes, rd->passes);
	}
	for (int i = 0; i < NR_CPUS; i++) {
		struct rt_reader *rd = &rt_irq_readers[i];

		for (int n = 0; n <= RT_PIPE_LEN; n++) {
			t->pipe[n] += rd->pipe[n];
			t->batch[n] += rd->batch[n];
		}
		t->mbtest_errs += rd->mbtest_errs;
		t->recycled += rd->recycled;
		t->long_holds += rd->long_holds;
		t->irq_passes += rd->passes;
	}
	/* Buckets 2 and up: a grace period ended under a pre-existing reader. */
	for (int n = 2; n <= RT_PIPE_LEN; n++) {
		t->bad_pipe += t->pipe[n];
		t->bad_batch += t->batch[n];
	}
	for (int i = 0; i < rt.nfakers; i++)
		t->fake_gps += rt.fakers[i].sync + rt.fakers[i].call + rt.fakers[i].poll +
			       rt.fakers[i].exp;
}

/* "label: n0 n1 ... n10" into buf. */
static void rt_fmt_hist(char *buf, size_t size, const char *label,
			const unsigned long long *h)
{
	int n = snprintf(buf, size, "rcutorture: %s:", label);

	for (int i = 0; i <= RT_PIPE_LEN && n < (int)size; i++)
		n += snprintf(buf + n, size - n, "%s%llu", i ? " " : "  ", h[i]);
}

/* The statistics, in the manner of Linux's rcu_torture_stats_print(). */
static void rt_print(const struct rt_totals *t)
{
	char line[320];
	int n;

	rt_fmt_hist(line, sizeof(line), "Reader Pipe", t->pipe);
	ktest_info("%s", line);
	rt_fmt_hist(line, sizeof(line), "Reader Batch", t->batch);
	ktest_info("%s", line);
	n = snprintf(line, sizeof(line), "rcutorture: reader passes:");
	for (int i = 0; i < rt.nreaders && n < (int)sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - n, " %llu", rt.readers[i].passes);
	ktest_info("%s, in interrupt handlers %llu (long holds %llu)", line, t->irq_passes,
		   t->long_holds);
	ktest_info("rcutorture: mbtest errors: %llu", t->mbtest_errs);
	ktest_info("rcutorture: freed under a reader: %llu", t->recycled);
	ktest_info("rcutorture: updates %llu, frees %d (%d at the end), deferred %llu "
		   "(callbacks %d), kfree_rcu %llu, alloc failures %llu", rt_wstats.updates,
		   rt.run_frees, atomic_read(&rt_frees) - rt.run_frees, rt_wstats.deferred,
		   atomic_read(&rt_deferred_cbs), rt_wstats.kfreed, rt_wstats.alloc_fail);
	ktest_info("rcutorture: grace periods: writer %llu (sync %llu, expedited %llu, "
		   "call_rcu %llu, polled %llu [%llu early]), fake writers %llu; rcu: "
		   "gps_completed %lu, tours %lu, expedited %lu, callbacks invoked %llu",
		   rt_wstats.gp_sync + rt_wstats.gp_exp + rt_wstats.gp_call + rt_wstats.gp_poll,
		   rt_wstats.gp_sync, rt_wstats.gp_exp, rt_wstats.gp_call, rt_wstats.gp_poll,
		   rt_wstats.poll_early, t->fake_gps, rt.s1.gps_completed - rt.s0.gps_completed,
		   rt.s1.tours_completed - rt.s0.tours_completed,
		   rt.s1.exp_completed - rt.s0.exp_completed,
		   rt.s1.cbs_invoked - rt.s0.cbs_invoked);
	if (rt.onoff_ms)
		ktest_info("rcutorture: onoff every %d ms: %lu CPUs down or up, %lu errors",
			   rt.onoff_ms, rt.onoffs, rt.onoff_errors);
	ktest_info("rcutorture: ran %llu ms, stopping took %llu ms",
		   (unsigned long long)(rt.t_run / NSEC_PER_MSEC),
		   (unsigned long long)(rt.t_stop / NSEC_PER_MSEC));
}

/* Gives the pool and the thread arrays back; returns how many elements came home. */
static int rt_cleanup(void)
{
	int pooled = 0;

	while (!list_empty(&rt_pool)) {
		struct rt_elem *e = list_first_entry(&rt_pool, struct rt_elem, node);

		list_del(&e->node);
		kfree(e);
		pooled++;
	}
	rt_pool_count = 0;
	kfree(rt.readers);
	kfree(rt.fakers);
	rt.readers = NULL;
	rt.fakers = NULL;
	return pooled;
}

/* The verdict: every check below is one a broken RCU (rcu.inject=no_wait) can fail. */
static void rt_report(void)
{
	struct rt_totals t;
	bool fail = false;
	int pooled;

	rt_sum(&t);
	rt_print(&t);
	pooled = rt_cleanup();

#define RT_EXPECT(cond) do { fail |= !(cond); KEXPECT(cond); } while (0)
	RT_EXPECT(rt.started);
	RT_EXPECT(t.bad_pipe == 0);	/* Reader Pipe buckets >= 2 */
	RT_EXPECT(t.bad_batch == 0);	/* Reader Batch buckets >= 2 */
	RT_EXPECT(t.mbtest_errs == 0);
	RT_EXPECT(t.min_passes > 0);	/* every reader made progress */
	RT_EXPECT(t.irq_passes > 0);	/* and readers in interrupt handlers too */
	RT_EXPECT(rt_wstats.updates >= RT_MIN_UPDATES);
	RT_EXPECT(rt.run_frees > 0);	/* elements went round while it ran */
	RT_EXPECT(atomic_read(&rt_deferred_inflight) == 0);
	RT_EXPECT(pooled == RT_NELEM);	/* no element leaked */
	RT_EXPECT(kmalloc_live_objects() == rt.live_before);
	RT_EXPECT(!rt.onoff_ms || rt.onoffs > 0);	/* CPUs did go down and up */
	RT_EXPECT(rt.onoff_errors == 0);
	RT_EXPECT(num_online_cpus() == rt.ncpus);	/* all back */
#undef RT_EXPECT

	ktest_info("--- End of test: %s", fail ? "FAILURE" : "SUCCESS");
}

static void rt_run(int onoff_ms)
{
	rt.onoff_ms = onoff_ms;
	if (!rt_setup()) {
		rt_cleanup();
		KASSERT(!"rcutorture: out of memory");
	}
	rt_start();
	rt_wait();
	rt_stop();
	rt_report();
}

KTEST(rcutorture)
{
	rt_run(rt_onoff_ms);
}

/* The same with CPUs going down and coming back throughout (Linux's onoff_interval). */
KTEST(rcutorture_onoff)
{
	if (nr_cpu_ids < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	rt_run(rt_onoff_ms ? rt_onoff_ms : RT_ONOFF_DEFAULT_MS);
}
