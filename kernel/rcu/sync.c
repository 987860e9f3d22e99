/*
 * synchronize_rcu(), as the article writes it, and what is built on it:
 * the tour accounting, the polled grace-period API and rcu_barrier().
 */
#include "kernel.h"
#include "rcu.h"

/*
 * Tour accounting, for the polled API and the stall warnings: tours are
 * numbered as they start, and the highest number that has ended is kept.
 */
unsigned int rcu_tour_begin(void)
{
	/* Fully ordered: the caller's removal comes before the tour starts. */
	unsigned int tour = atomic_inc_return(&rcu_state.tours_started);

	trace_record(TR_SYNC_BEGIN, tour, 0);
	return tour;
}

void rcu_tour_end(unsigned int tour)
{
	unsigned int old = READ_ONCE(rcu_state.tours_max_done);

	/* The highest tour number that has ended (release: after the tour's readers). */
	while ((int)(tour - old) > 0 &&
	       !__atomic_compare_exchange_n(&rcu_state.tours_max_done, &old, tour, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	__atomic_fetch_add(&rcu_state.tours_completed, 1, __ATOMIC_RELAXED);
	trace_record(TR_SYNC_END, tour, 0);
}

/*
 * Wait for every RCU read-side critical section that began before this
 * call to end.
 *
 * Readers never block and nothing preempts them, so a CPU that performs a
 * context switch has finished every reader it was running.  run_on(cpu)
 * does not return until this task has run on `cpu` after a context switch
 * there: the task that was running there yielded or blocked (or the CPU
 * was idle).  Visiting every online CPU therefore waits for every
 * pre-existing reader.  Readers that begin after we left a CPU may still
 * run when we return: they cannot reach what was removed before the call.
 *
 * Memory ordering, per hop: the target CPU executes smp_mb() in
 * __schedule() after its reader ended and before it switches to us, and
 * we then run on that CPU, so the reader's loads are ordered before
 * everything we do afterwards -- the kfree() included, wherever it runs
 * (each later hop passes through the same barrier on its CPU).
 */
void synchronize_rcu(void)
{
	int cpu, home = smp_processor_id();
	unsigned int tour;

	might_sleep_check("synchronize_rcu");
	if (rcu_injected(RCU_INJECT_NO_WAIT))
		return;		/* fault injection: a grace period that waits for nothing */
	tour = rcu_tour_begin();

	for_each_online_cpu(cpu)
		if (!rcu_injected(RCU_INJECT_TOUR_SKIP_CPU) || cpu != rcu_inject_victim(home))
			run_on(cpu);

	run_on(home);
	rcu_tour_end(tour);
}

/*
 * Polled grace periods.  A cookie holds two snapshots: (high half) the
 * grace-period number the asynchronous machinery must reach, as Linux's
 * rcu_seq_snap(), and (low half) how many synchronize_rcu() tours had
 * started.  Either suffices: an asynchronous grace period that started
 * after the cookie, or a tour that started after it, has waited for every
 * reader the cookie's taker could have overlapped.  Each half keeps the
 * low 32 bits of its counter, compared modulo 2^32 as rcu_seq_done() does.
 */
#define COOKIE_GP_SHIFT		32		/* the grace-period half */
#define COOKIE_HALF_MASK	0xffffffffUL	/* what each half keeps */
unsigned long get_state_synchronize_rcu(void)
{
	unsigned long snap;
	unsigned int tours;

	/* The caller's removal happens before we read the counters (pairs with rcu_gp_start()). */
	smp_mb();
	snap = rcu_seq_snap(READ_ONCE(rcu_state.gp_seq));
	tours = atomic_read(&rcu_state.tours_started);
	return ((snap & COOKIE_HALF_MASK) << COOKIE_GP_SHIFT) | tours;
}

bool poll_state_synchronize_rcu(unsigned long cookie)
{
	unsigned int snap = cookie >> COOKIE_GP_SHIFT, tours = (unsigned int)cookie;
	unsigned int seq = (unsigned int)smp_load_acquire(&rcu_state.gp_seq);
	unsigned int tours_done = smp_load_acquire(&rcu_state.tours_max_done);
	/* (fault injections: the grace period's start; a tour that began before) */
	bool done = (int)(seq - snap + rcu_injected(RCU_INJECT_POLL_GP_EARLY)) >= 0 ||
		    (int)(tours_done - tours + rcu_injected(RCU_INJECT_POLL_TOUR_EARLY)) > 0;

	if (done)
		smp_mb();	/* the caller's kfree() comes after the readers ended */
	return done;
}

unsigned long start_poll_synchronize_rcu(void)
{
	unsigned long cookie = get_state_synchronize_rcu();

	rcu_request_gp();
	return cookie;
}

void cond_synchronize_rcu(unsigned long cookie)
{
	might_sleep_check("cond_synchronize_rcu");
	if (!poll_state_synchronize_rcu(cookie))
		synchronize_rcu();
}

/*
 * rcu_barrier(): wait until every callback queued so far has run.  One
 * marker callback per CPU, queued on that CPU (run_on() takes us there)
 * behind the callbacks already waiting; callbacks run in order, so when
 * every marker has run, so has everything queued before it.
 */
static DEFINE_MUTEX(barrier_mutex);
static atomic_t barrier_pending;
static struct completion barrier_done;
static struct rcu_head barrier_heads[NR_CPUS];

static void barrier_callback(struct rcu_head *head)
{
	(void)head;
	if (atomic_dec_and_test(&barrier_pending))
		complete(&barrier_done);
}

void rcu_barrier(void)
{
	int cpu, home = smp_processor_id();

	might_sleep_check("rcu_barrier");
	mutex_lock(&barrier_mutex);
	init_completion(&barrier_done);
	atomic_set(&barrier_pending, 1);	/* our own, dropped below */
	for_each_online_cpu(cpu) {
		if (rcu_injected(RCU_INJECT_BARRIER_SKIP_CPU) && cpu == rcu_inject_victim(home))
			continue;	/* fault injection: no marker there */
		run_on(cpu);
		atomic_inc(&barrier_pending);
		call_rcu(&barrier_heads[cpu], barrier_callback);
	}
	run_on(home);
	if (atomic_dec_and_test(&barrier_pending))
		complete(&barrier_done);
	wait_for_completion(&barrier_done);
	mutex_unlock(&barrier_mutex);
}
