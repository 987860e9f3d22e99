/*
 * srcutorture: rcutorture's method (tests/rcutorture.c) applied to SRCU,
 * with readers that sleep inside srcu_read_lock() and a writer that uses
 * every update method: synchronize_srcu(), call_srcu() waited for with a
 * completion, and call_srcu() chains (deferred free) drained by
 * srcu_barrier().  Fake writers add grace periods and barriers of every
 * kind, and readers of a second domain sleep beside the first's, each
 * domain's counters summed apart.
 *
 * The invariant is rcutorture's: an element's pipe_count counts the grace
 * periods that ended since it was removed (1 at removal), so a reader that
 * holds it may see it go from 0 to 1, never further; >= 2 means a grace
 * period ended under a reader that began before it, and an element back in
 * the pool (mbtest 0, or a new generation) was freed under the reader.
 * With srcu.inject=no_flip the test must fail, on any CPU count: readers
 * sleep, so even on one CPU the writer runs while they are inside.
 */
#include "ktest.h"

#define ST_PIPE_LEN		10
#define ST_NELEM		128
#define ST_MAX_READERS		32
#define ST_NFAKERS		2
#define ST_MIN_UPDATES		(2 * ST_PIPE_LEN)

static int st_duration = 1;
KPARAM_INT("srcutorture.duration", st_duration, 1, 3600);

DEFINE_STATIC_SRCU(st_srcu);
DEFINE_STATIC_SRCU(st_other);		/* the second domain */

struct st_elem {
	struct rcu_head rh;
	int pipe_count;
	int mbtest;
	unsigned long gen;
	struct list_head node;
};

static struct st_elem st_elems[ST_NELEM];
static struct st_elem *st_current;
static DEFINE_SPINLOCK(st_pool_lock);
static LIST_HEAD(st_pool);
static LIST_HEAD(st_pipeline);		/* writer only */
static atomic_t st_deferred;		/* elements on a call_srcu() chain */
static struct rcu_head st_wgp_head;
static struct completion st_wgp_done;

static struct {
	unsigned long long updates, sync, call, deferred, barriers;
} st_w;

struct st_reader {
	struct srcu_struct *ssp;
	u32 rng;
	unsigned long long passes, sleeps;
	unsigned long long pipe[ST_PIPE_LEN + 1];
	unsigned long long mbtest_errs;
};

struct st_faker {
	u32 rng;
	struct rcu_head rh;
	unsigned long long gps;
};

static void st_free(struct st_elem *e)
{
	WRITE_ONCE(e->mbtest, 0);
	spin_lock(&st_pool_lock);
	list_add_tail(&e->node, &st_pool);
	spin_unlock(&st_pool_lock);
}

static struct st_elem *st_alloc(void)
{
	struct st_elem *e;

	spin_lock(&st_pool_lock);
	e = list_first_entry_or_null(&st_pool, struct st_elem, node);
	if (e)
		list_del(&e->node);
	spin_unlock(&st_pool_lock);
	if (!e)
		return NULL;
	WRITE_ONCE(e->gen, e->gen + 1);
	smp_wmb();	/* the new generation before the fields: a stale reader sees both or neither */
	WRITE_ONCE(e->pipe_count, 0);
	WRITE_ONCE(e->mbtest, 1);
	return e;
}

/* Deferred free: one grace period per link of the chain. */
static void st_deferred_cb(struct rcu_head *rh)
{
	struct st_elem *e = container_of(rh, struct st_elem, rh);
	int pc = READ_ONCE(e->pipe_count) + 1;

	if (pc >= ST_PIPE_LEN) {
		st_free(e);
		atomic_dec(&st_deferred);
		return;
	}
	WRITE_ONCE(e->pipe_count, pc);
	call_srcu(&st_srcu, &e->rh, st_deferred_cb);
}

static void st_wgp_cb(struct rcu_head *rh)
{
	(void)rh;
	complete(&st_wgp_done);
}

/* One grace period has passed since every element in the pipeline was removed. */
static void st_pipeline_advance(void)
{
	struct st_elem *e, *n;

	list_for_each_entry_safe(e, n, &st_pipeline, node) {
		int pc = e->pipe_count + 1;

		if (pc >= ST_PIPE_LEN) {
			list_del(&e->node);
			st_free(e);
		} else {
			WRITE_ONCE(e->pipe_count, pc);
		}
	}
}

static int st_writer(void *arg)
{
	unsigned int round = 0;

	(void)arg;
	while (!kthread_should_stop()) {
		struct st_elem *new = st_alloc(), *old;

		if (!new) {
			srcu_barrier(&st_srcu);		/* the chains give elements back */
			st_w.barriers++;
			continue;
		}
		old = rcu_dereference_protected(st_current, 1 /* the only updater */);
		rcu_assign_pointer(st_current, new);
		st_w.updates++;
		if (!old)
			continue;
		WRITE_ONCE(old->pipe_count, 1);
		switch (round++ % 3) {
		case 0:
			list_add_tail(&old->node, &st_pipeline);
			synchronize_srcu(&st_srcu);
			st_w.sync++;
			st_pipeline_advance();
			break;
		case 1:
			list_add_tail(&old->node, &st_pipeline);
			call_srcu(&st_srcu, &st_wgp_head, st_wgp_cb);
			wait_for_completion(&st_wgp_done);
			st_w.call++;
			st_pipeline_advance();
			break;
		default:
			atomic_inc(&st_deferred);
			call_srcu(&st_srcu, &old->rh, st_deferred_cb);
			st_w.deferred++;
			break;
		}
		cond_resched();
	}
	return 0;
}

static void st_faker_cb(struct rcu_head *rh)
{
	container_of(rh, struct st_faker, rh)->gps++;
}

static int st_fake_writer(void *arg)
{
	struct st_faker *f = arg;

	while (!kthread_should_stop()) {
		u32 r = prandom_u32(&f->rng);

		if (r % 3 == 0) {
			synchronize_srcu(&st_srcu);
			f->gps++;
		} else if (r % 3 == 1) {
			call_srcu(&st_srcu, &f->rh, st_faker_cb);
			srcu_barrier(&st_srcu);		/* f->rh is free again after this */
		} else {
			srcu_barrier(&st_srcu);
		}
		msleep(1 + (r >> 8) % 3);
	}
	return 0;
}

/* A pass: take the current element, sometimes sleep holding it, look again. */
static int st_reader_fn(void *arg)
{
	struct st_reader *rd = arg;

	while (!kthread_should_stop()) {
		u32 r = prandom_u32(&rd->rng);
		struct st_elem *p;
		unsigned long gen0, gen1;
		int idx, pc0, pc1, mb1, pc;

		if (rd->ssp != &st_srcu) {
			/* The other domain: readers asleep beside the tortured domain's. */
			idx = srcu_read_lock(rd->ssp);
			msleep(1 + r % 4);
			srcu_read_unlock(rd->ssp, idx);
			rd->passes++;
			continue;
		}
		idx = srcu_read_lock(&st_srcu);
		p = srcu_dereference(st_current, &st_srcu);
		if (!p) {
			srcu_read_unlock(&st_srcu, idx);
			msleep(1);
			continue;
		}
		gen0 = READ_ONCE(p->gen);
		smp_rmb();	/* pairs with the smp_wmb() in st_alloc() */
		if (!READ_ONCE(p->mbtest))
			rd->mbtest_errs++;
		pc0 = READ_ONCE(p->pipe_count);
		if ((r & 3) == 0) {
			msleep(1 + (r >> 4) % 3);	/* asleep inside the reader */
			rd->sleeps++;
		} else {
			udelay(1 + (r >> 4) % 50);
		}
		pc1 = READ_ONCE(p->pipe_count);
		mb1 = READ_ONCE(p->mbtest);
		smp_rmb();	/* pairs with the smp_wmb() in st_alloc() */
		gen1 = READ_ONCE(p->gen);
		srcu_read_unlock(&st_srcu, idx);

		pc = max(pc0, pc1);
		if (gen1 != gen0 || !mb1 || pc < 0 || pc > ST_PIPE_LEN)
			pc = ST_PIPE_LEN;
		rd->pipe[pc]++;
		rd->passes++;
		if ((r >> 12) & 1)
			cond_resched();
	}
	return 0;
}

KTEST(srcutorture)
{
	int ncpus = num_online_cpus(), nreaders = min(2 * ncpus + 1, ST_MAX_READERS);
	static struct st_reader readers[ST_MAX_READERS];
	static struct st_faker fakers[ST_NFAKERS];
	static struct workers reader_group, faker_group;
	unsigned long long pipe[ST_PIPE_LEN + 1] = { 0 }, bad = 0, mbtest_errs = 0;
	unsigned long long passes = 0, sleeps = 0, fake_gps = 0;
	unsigned long gps0 = srcu_batches_completed(&st_srcu);
	struct task_struct *writer;
	struct st_elem *cur;
	bool started;
	int i, n, pooled = 0;
	char line[200];
	u64 t0;

	ktest_info("srcutorture: --- Start of test: nreaders=%d (every third on a second "
		   "domain) nfakewriters=%d duration=%d s cpus=%d%s", nreaders, ST_NFAKERS,
		   st_duration, ncpus, srcu_injected(SRCU_INJECT_NO_FLIP) ? " srcu.inject=no_flip" : "");
	memset(&st_w, 0, sizeof(st_w));
	memset(readers, 0, sizeof(readers));
	memset(fakers, 0, sizeof(fakers));
	INIT_LIST_HEAD(&st_pool);
	INIT_LIST_HEAD(&st_pipeline);
	atomic_set(&st_deferred, 0);
	init_completion(&st_wgp_done);
	RCU_INIT_POINTER(st_current, NULL);
	for (i = 0; i < ST_NELEM; i++)
		st_free(&st_elems[i]);

	for (i = 0; i < nreaders; i++) {
		readers[i].ssp = i % 3 == 2 ? &st_other : &st_srcu;
		readers[i].rng = prandom_seed((u32)ktime_get_ns() ^ (0x9e3779b9u * (i + 1)));
	}
	for (i = 0; i < ST_NFAKERS; i++)
		fakers[i].rng = prandom_seed(0x2545f491u * (i + 7));
	started = workers_start_spread(&reader_group, nreaders, 0, st_reader_fn, readers,
				       sizeof(readers[0]), "stort_r/%d");
	started &= workers_start_spread(&faker_group, ST_NFAKERS, 1, st_fake_writer, fakers,
					sizeof(fakers[0]), "stort_fw/%d");
	writer = kthread_run_on_cpu(st_writer, NULL, ncpus - 1, "stort_w");
	started &= writer != NULL;
	t0 = ktime_get_ns();
	if (started) {
		msleep((unsigned int)st_duration * 1000);
		/* Enough updates however slow the machine: an event count, with a cap only a hang hits. */
		while (READ_ONCE(st_w.updates) < ST_MIN_UPDATES &&
		       ktime_get_ns() - t0 < 120 * NSEC_PER_SEC)
			msleep(10);
	}

	if (writer)
		kthread_stop(writer);
	workers_stop(&faker_group);
	workers_stop(&reader_group);

	/* Drain: every chain to its end, then the current element and the pipeline. */
	for (i = 0; i <= ST_PIPE_LEN + 2 && atomic_read(&st_deferred); i++)
		srcu_barrier(&st_srcu);
	cur = rcu_dereference_protected(st_current, 1 /* writer stopped */);
	RCU_INIT_POINTER(st_current, NULL);
	synchronize_srcu(&st_srcu);
	if (cur)
		st_free(cur);
	while (!list_empty(&st_pipeline)) {
		struct st_elem *e = list_first_entry(&st_pipeline, struct st_elem, node);

		list_del(&e->node);
		st_free(e);
	}
	list_for_each_entry(cur, &st_pool, node)
		pooled++;

	for (i = 0; i < nreaders; i++) {
		for (n = 0; n <= ST_PIPE_LEN; n++)
			pipe[n] += readers[i].pipe[n];
		mbtest_errs += readers[i].mbtest_errs;
		passes += readers[i].passes;
		sleeps += readers[i].sleeps;
	}
	for (n = 2; n <= ST_PIPE_LEN; n++)
		bad += pipe[n];
	for (i = 0; i < ST_NFAKERS; i++)
		fake_gps += fakers[i].gps;
	n = snprintf(line, sizeof(line), "srcutorture: Reader Pipe:");
	for (i = 0; i <= ST_PIPE_LEN && n < (int)sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - n, " %llu", pipe[i]);
	ktest_info("%s", line);
	ktest_info("srcutorture: reader passes %llu (asleep inside %llu), mbtest errors %llu",
		   passes, sleeps, mbtest_errs);
	ktest_info("srcutorture: updates %llu: synchronize_srcu %llu, call_srcu %llu, deferred "
		   "%llu, srcu_barrier on an empty pool %llu; fake writers' grace periods %llu; "
		   "grace periods %lu", st_w.updates, st_w.sync, st_w.call, st_w.deferred,
		   st_w.barriers, fake_gps, srcu_batches_completed(&st_srcu) - gps0);
	KEXPECT(started);
	KEXPECT_EQ(bad, 0);
	KEXPECT_EQ(mbtest_errs, 0);
	KEXPECT(st_w.updates >= ST_MIN_UPDATES);
	KEXPECT_EQ(pooled, ST_NELEM);		/* every element came home */
	ktest_info("srcutorture: --- End of test: %s",
		   bad || mbtest_errs || pooled != ST_NELEM || !started ? "FAILURE" : "SUCCESS");
}
