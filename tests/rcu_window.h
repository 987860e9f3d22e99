/*
 * What the grace-period window tests share (tests/rcu_window_*.c): an
 * element that knows whether it is still alive, and the updater's wait
 * that ends on an event, never on a time threshold.
 *
 * The tests hold a reader open across the exact window a subtle bug
 * needs, and decide when to let it go from RCU's own state: once the
 * grace period in progress owes a quiescent state to the reader's CPU
 * and to no other, nothing a correct RCU does can end it, so waiting
 * longer proves nothing more.  A broken RCU frees the element (or ends the
 * poll, or returns from synchronize_rcu()) before that point, and the
 * reader sees it.  Time appears only as a budget that a hung kernel runs
 * out of.  Everything here is static: a test file exports nothing.
 */
#ifndef TESTS_RCU_WINDOW_H
#define TESTS_RCU_WINDOW_H

#include "ktest.h"
#include "irq.h"	/* irq_work: readers inside interrupt handlers */

/* Only a hung kernel runs out: 30 s, and 10 s more per CPU (they share two host cores). */
#define WIN_BUDGET_NS		(30 * NSEC_PER_SEC)
#define WIN_BUDGET_PER_CPU_NS	(10 * NSEC_PER_SEC)
#define WIN_LIVE	0x11fe11feu

static inline bool win_budget_left(u64 start)
{
	return ktime_get_ns() - start <
	       WIN_BUDGET_NS + WIN_BUDGET_PER_CPU_NS * (u64)num_online_cpus();
}

/* Waits, sleeping, until cond (evaluated again at the end) or the budget is gone. */
#define WIN_WAIT(cond)							\
({									\
	u64 __t0 = ktime_get_ns();					\
	while (!(cond) && win_budget_left(__t0))			\
		msleep(1);						\
	(cond);								\
})

/* What readers hold: kfree() poisons it, so a freed one is not live. */
struct win_elem {
	u32 magic;
	int id;
	struct rcu_head rh;	/* not first: kfree_rcu() must find the start */
};

static inline struct win_elem *win_elem_new(int id)
{
	struct win_elem *e = kmalloc(sizeof(*e), GFP_KERNEL);

	if (e) {
		e->magic = WIN_LIVE;
		e->id = id;
	}
	return e;
}

/*
 * Is e still the element id?  Called by readers on what they hold, and by
 * an updater on what kfree_rcu() will free: it reads memory that may have
 * been freed on purpose (kmalloc's slabs stay mapped, and freed memory is
 * poisoned, so a freed element never reads live).
 */
static inline bool win_elem_live(const struct win_elem *e, int id)
{
	return READ_ONCE(e->magic) == WIN_LIVE && READ_ONCE(e->id) == id;
}

/* Does the grace period in progress wait for cpu alone? */
static inline bool win_gp_owes_only(int cpu, unsigned long *gp)
{
	struct rcu_stats s;

	rcu_get_stats(&s);
	*gp = s.gp_seq;
	return (s.gp_seq & 1) && cpumask_weight(&s.qs_mask) == 1 &&
	       cpumask_test_cpu(cpu, &s.qs_mask);
}

enum win_wait { WIN_DONE, WIN_BLOCKED, WIN_HUNG };

/*
 * The updater's wait, sleeping (so its own CPU passes quiescent states and
 * its rcuc thread runs): until done(arg) -- the callback ran, the poll
 * says done -- or until the grace period in progress has waited for the
 * reader's CPU alone across two ticks of this CPU, long enough for every
 * callback that period made ready here to have run.
 */
static inline enum win_wait win_wait_gp_blocked(int cpu, bool (*done)(void *), void *arg)
{
	u64 t0 = ktime_get_ns();
	unsigned long gp, gp2;

	while (win_budget_left(t0)) {
		if (done(arg))
			return WIN_DONE;
		if (win_gp_owes_only(cpu, &gp)) {
			msleep(2);
			if (done(arg))
				return WIN_DONE;
			if (win_gp_owes_only(cpu, &gp2) && gp2 == gp)
				return WIN_BLOCKED;
		}
		msleep(1);
	}
	return WIN_HUNG;
}

/* Skips the test on fewer than n CPUs, saying why. */
#define WIN_NEEDS_CPUS(n, why)						\
	do {								\
		if (num_online_cpus() < (n))				\
			KTEST_SKIP(why);				\
	} while (0)

/* Is t asleep in wait_for_completion() (an updater or a barrier waiting)? */
static inline bool win_task_waits(const struct task_struct *t)
{
	return t && READ_ONCE(t->waiting_since_ns) && READ_ONCE(t->state) == TASK_BLOCKED;
}

/* Is t queued on cpu by run_on(), behind the task that runs there? */
static inline bool win_task_queued_on(const struct task_struct *t, int cpu)
{
	return t && READ_ONCE(t->cpu) == cpu && READ_ONCE(t->run_on_hop);
}

/* remove_cpu(cpu) in a thread of its own, once *go (if go is set); removed once it went. */
struct win_removal {
	int cpu;
	const int *go;
	int removed;
};

static int __maybe_unused win_remover(void *arg)
{
	struct win_removal *r = arg;
	u64 t0 = ktime_get_ns();

	while (r->go && !smp_load_acquire(r->go) && win_budget_left(t0))
		msleep(1);
	if (remove_cpu(r->cpu) == 0)
		smp_store_release(&r->removed, 1);
	return 0;
}

static atomic_t win_behind_ran __maybe_unused;
static struct rcu_head win_behind[NR_CPUS] __maybe_unused;

static void __maybe_unused win_behind_cb(struct rcu_head *rh)
{
	(void)rh;
	atomic_inc(&win_behind_ran);
}

/*
 * For a callback that holds until rcu_barrier() is done with its CPU:
 * once the barrier's *caller sleeps (unless *returned first), queues a
 * callback behind its marker on every online CPU but skip, and sets
 * *others_done once they have all run -- so have those markers.  A
 * correct barrier still sleeps then, waiting for skip alone; a broken one
 * has been woken.  Called from CPU 0, where it comes back.
 */
static inline void win_barrier_watch(struct task_struct *const *caller, const int *returned,
				     int skip, int *others_done)
{
	int cpu, n = 0;

	if (!WIN_WAIT(smp_load_acquire(returned) || win_task_waits(READ_ONCE(*caller))) ||
	    smp_load_acquire(returned))
		return;
	atomic_set(&win_behind_ran, 0);
	for_each_online_cpu(cpu) {
		if (cpu == skip || run_on(cpu))
			continue;
		call_rcu(&win_behind[cpu], win_behind_cb);
		n++;
	}
	run_on(0);
	WIN_WAIT(atomic_read(&win_behind_ran) == n);
	smp_store_release(others_done, 1);
}

/*
 * The CPUs a reader is held on: worker_cpus() (every other CPU), at most
 * three of them -- the first, a middle one and the last; none on one CPU.
 */
static inline int win_reader_cpus(int *out)
{
	int all[NR_CPUS], nall = worker_cpus(all, NR_CPUS), n = 0;

	if (nall == 1 && all[0] == smp_processor_id())
		return 0;
	for (int i = 0; i < nall; i++)
		if (nall <= 3 || i == 0 || i == nall / 2 || i == nall - 1)
			out[n++] = all[i];
	return n;
}

#endif
