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
