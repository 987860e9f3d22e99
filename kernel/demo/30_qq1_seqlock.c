/*
 * The article's Quick Quiz 1, the answer shown happening: seqlock readers
 * retry while RCU readers get work done.  Readers on the other CPUs
 * alternate a seqlock read and an RCU read of the same data while this CPU
 * updates both.  The Quick Quizzes follow in 31_ to 34_.
 */
#include "demo.h"

#define MAX_READERS	2

/*
 * A tiny seqlock over type-stable data: the protected pointer always
 * points into sq_pool, which is never freed, so a reader racing a writer
 * may read a slot being rewritten (and will retry) but never freed memory.
 */
struct sq_data {
	int a, b, c;
};

static struct sq_data sq_pool[4];
static struct sq_data *sq_ptr = &sq_pool[0];
static unsigned int sq_seq;
static DEFINE_SPINLOCK(sq_lock);

static unsigned int sq_read_begin(void)
{
	unsigned int s;

	while ((s = READ_ONCE(sq_seq)) & 1)	/* a writer is in: wait */
		cpu_relax();
	/*
	 * [sq_read_begin_rmb] pairs [sq_write_end_wmb]: having seen the even
	 * count a writer left, we read that writer's data, not older data
	 * the retry check would then wrongly accept.
	 */
	smp_rmb();
	return s;
}

static bool sq_read_retry(unsigned int s)
{
	/*
	 * [sq_read_retry_rmb] pairs [sq_write_begin_wmb]: if our reads saw
	 * anything of a new write, the count we read again is odd or newer,
	 * and we retry instead of returning torn data.
	 */
	smp_rmb();
	return READ_ONCE(sq_seq) != s;
}

/* The RCU side: the same values, in kmalloc'd objects freed after a grace period. */
struct rq_data {
	int a, b, c;
	struct rcu_head rh;
};

static struct rq_data __rcu *rq_ptr;
static DEFINE_SPINLOCK(rq_lock);

static struct qq1_reader {
	long seq_tries, seq_retries, seq_useful, seq_bad;
	long rcu_passes, rcu_bad;
} qq1_readers[MAX_READERS];
static struct workers qq1_workers;

#define QQ1_WORK_US	3	/* the "work" a reader does with the values */

static int qq1_reader_fn(void *arg)
{
	struct qq1_reader *r = arg;
	u64 burst = ktime_get_ns();

	while (!kthread_should_stop()) {
		struct sq_data *sp;
		struct rq_data *rp;
		unsigned int s;
		int a, b, c;

		/* One seqlock read: begin, work, retry if a writer came by. */
		for (;;) {
			s = sq_read_begin();
			sp = READ_ONCE(sq_ptr);
			a = READ_ONCE(sp->a);
			udelay(QQ1_WORK_US);
			b = READ_ONCE(sp->b);
			c = READ_ONCE(sp->c);
			r->seq_tries++;
			if (!sq_read_retry(s))
				break;
			r->seq_retries++;	/* the work above is thrown away */
		}
		if (b != 2 * a || c != 3 * a)
			r->seq_bad++;
		r->seq_useful++;

		/* One RCU read: it always finishes with a consistent snapshot. */
		rcu_read_lock();
		rp = rcu_dereference(rq_ptr);
		a = READ_ONCE(rp->a);
		udelay(QQ1_WORK_US);
		b = READ_ONCE(rp->b);
		c = READ_ONCE(rp->c);
		rcu_read_unlock();
		if (b != 2 * a || c != 3 * a)
			r->rcu_bad++;
		WRITE_ONCE(r->rcu_passes, r->rcu_passes + 1);
		worker_pause(&burst);
	}
	return 0;
}

#define QQ1_MS		300
#define QQ1_WRITE_US	20	/* a writer stays this long in its write section */

DEMO(qq1_seqlock, "Quick Quiz 1: seqlock readers retry, RCU readers get work done")
{
	long tries = 0, retries = 0, useful = 0, rpasses = 0, bad = 0;
	struct rq_data *rp, *old;
	unsigned int slot = 0;
	long writes = 0;
	u64 t0;

	demo_step("Quick Quiz 1: doesn't seqlock also let readers and updaters run concurrently?");
	demo_code("do {                                  /* seqlock reader */\n"
		  "        seq = read_seqbegin(&lock);\n"
		  "        do_something_with(p->a, p->b, p->c);\n"
		  "} while (read_seqretry(&lock, seq)); /* a writer came: redo */");
	demo_say("Readers alternate one seqlock read and one RCU read of the same kind of");
	demo_say("data (a,2a,3a) while this CPU updates both as fast as it can for %d ms.",
		 QQ1_MS);
	demo_say("The seqlock protects a pointer into a static pool that is never freed");
	demo_say("(type-stable memory), so a reader that races a writer reads a slot being");
	demo_say("rewritten and retries, but never follows a pointer into freed memory.");

	for (size_t i = 0; i < ARRAY_SIZE(sq_pool); i++)
		sq_pool[i] = (struct sq_data){ 1, 2, 3 };
	sq_ptr = &sq_pool[0];
	rp = kmalloc(sizeof(*rp), GFP_KERNEL);
	if (!rp) {
		demo_fail("out of memory");
		return;
	}
	rp->a = 1, rp->b = 2, rp->c = 3;
	RCU_INIT_POINTER(rq_ptr, rp);
	memset(qq1_readers, 0, sizeof(qq1_readers));
	workers_start_others(&qq1_workers, MAX_READERS, qq1_reader_fn, qq1_readers,
			     sizeof(qq1_readers[0]), "qq1_reader");

	demo_step("The writer updates for %d ms", QQ1_MS);
	t0 = ktime_get_ns();
	while (ktime_get_ns() - t0 < QQ1_MS * NSEC_PER_MSEC) {
		struct sq_data *next = &sq_pool[++slot % ARRAY_SIZE(sq_pool)];
		int v = (int)(writes % 1000) + 1;

		/* seqlock writer: odd count, rewrite a slot, point at it, even count */
		spin_lock(&sq_lock);
		WRITE_ONCE(sq_seq, sq_seq + 1);
		/* [sq_write_begin_wmb] pairs [sq_read_retry_rmb]: or a reader could see new data and no odd count. */
		smp_wmb();
		WRITE_ONCE(next->a, v);
		udelay(QQ1_WRITE_US);
		WRITE_ONCE(next->b, 2 * v);
		WRITE_ONCE(next->c, 3 * v);
		WRITE_ONCE(sq_ptr, next);
		/* [sq_write_end_wmb] pairs [sq_read_begin_rmb]: or a reader could see the even count and old data. */
		smp_wmb();
		WRITE_ONCE(sq_seq, sq_seq + 1);
		spin_unlock(&sq_lock);

		/* RCU updater: copy, update, publish, free after a grace period */
		rp = kmalloc(sizeof(*rp), GFP_KERNEL);
		if (rp) {
			rp->a = v;
			udelay(QQ1_WRITE_US);
			rp->b = 2 * v;
			rp->c = 3 * v;
			spin_lock(&rq_lock);
			old = rcu_dereference_protected(rq_ptr, lockdep_is_held(&rq_lock));
			rcu_assign_pointer(rq_ptr, rp);
			spin_unlock(&rq_lock);
			kfree_rcu(old, rh);
		}
		writes++;
		cond_resched();		/* with one CPU, the readers run now */
	}
	workers_stop(&qq1_workers);
	for (int i = 0; i < qq1_workers.nr; i++) {
		struct qq1_reader *r = &qq1_readers[i];

		tries += r->seq_tries;
		retries += r->seq_retries;
		useful += r->seq_useful;
		rpasses += r->rcu_passes;
		bad += r->seq_bad + r->rcu_bad;
	}
	old = rcu_dereference_protected(rq_ptr, true);
	RCU_INIT_POINTER(rq_ptr, NULL);
	synchronize_rcu();
	kfree(old);

	demo_step("The answer");
	demo_say("%ld updates of each.  seqlock readers: %ld tries, %ld retried (%ld%% of the",
		 writes, tries, retries, tries ? retries * 100 / tries : 0);
	demo_say("work thrown away and redone), %ld useful reads.", useful);
	demo_say("RCU readers: %ld reads, every one useful, none retried; %ld inconsistent",
		 rpasses, bad);
	demo_say("snapshots in either.  seqlock readers run alongside the writer but cannot");
	demo_say("get work done while it writes; RCU readers can: the writer builds a new");
	demo_say("copy beside the one they read.");
	if (num_online_cpus() == 1)
		demo_say("(one CPU: the readers only run between updates, so nothing retries.)");
	if (bad)
		demo_fail("%ld inconsistent snapshots", bad);
}
