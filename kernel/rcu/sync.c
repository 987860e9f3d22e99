/*
 * synchronize_rcu(), as the article writes it, and what is built on it:
 * the tour accounting, the polled grace-period API and rcu_barrier().
 */
#include "kernel.h"
#include "rcu.h"
#include "cpu.h"

/*
 * Wait numbers, for the polled API.  Every grace-period wait, a
 * synchronize_rcu() tour or an asynchronous grace period (gp.c), takes
 * the next number before it looks at any CPU, and when it ends raises
 * waits_done to its number.  A wait numbered above a cookie began after
 * the cookie was taken, so once it ends every reader the cookie's taker
 * could have overlapped has ended.  Full-width and wrap-safe: cookies
 * compare with (long)(a - b), and the count starts 300 below the wrap
 * (RCU_WAITS_INIT), so a boot with about 300 waits crosses it.
 */
unsigned long rcu_wait_begin(void)
{
	/*
	 * [wait_begin_mb] pairs [get_state_mb], [cpu_up_mb]: fully ordered, so the wait
	 * looks at the CPUs only after taking its number: a cookie that read
	 * the number before ours overlapped only readers our wait covers.
	 */
	return atomic_long_inc_return(&rcu_state.waits_started);
}

void rcu_wait_end(unsigned long wait)
{
	unsigned long old = READ_ONCE(rcu_state.waits_done);

	/*
	 * [wait_end_release] pairs [poll_acquire]: the wait's readers ended
	 * before the new highest number is visible, so a poller that sees
	 * it may free.  A loop, not a store: tours end in any order.
	 */
	while ((long)(wait - old) > 0 &&
	       !try_cmpxchg_release(&rcu_state.waits_done, &old, wait))
		;
}

/*
 * Test seam (tests/arith_wrap.c): skips n wait numbers, which no wait
 * takes, so that a test can put cookies where it wants them.  Safe at any
 * time: a cookie taken before the skip is completed by the next wait that
 * ends, numbered above it and begun after it, as without the skip; one
 * taken after waits for a wait numbered above the skip.  Only waits
 * further apart than 2^63 would compare the wrong way round: a caller
 * that goes further ends a wait in between (synchronize_rcu()).
 */
void rcu_poll_skip_waits(unsigned long n)
{
	atomic_long_add((long)n, &rcu_state.waits_started);
}

/*
 * A tour's bookkeeping, for the polled API (its wait number), for reports
 * (tours_started/completed) and for make trace (sync_begin/sync_end).
 */
static unsigned long tour_begin(void)
{
	unsigned long tour = rcu_wait_begin();

	atomic_long_inc(&rcu_state.tours_started);
	trace_record(TR_SYNC_BEGIN, tour, 0);
	return tour;
}

static void tour_end(unsigned long tour)
{
	/* (fault injection poll_tour_early: also the next number, taken after we began) */
	rcu_wait_end(tour + rcu_injected(RCU_INJECT_POLL_TOUR_EARLY));
	atomic_long_inc(&rcu_state.tours_completed);
	trace_record(TR_SYNC_END, tour, 0);
}

/*
 * Fault injection tour_skip_cpu: a tour that misses one CPU; else false.
 * (inline: lab 1's starter, without the loop, leaves it unused.)
 */
static inline bool tour_skips(int cpu, int home)
{
	return rcu_injected(RCU_INJECT_TOUR_SKIP_CPU) && cpu == rcu_inject_victim(home);
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
 *
 * CPU hotplug (kernel/hotplug.c): the loop stays the article's, and the
 * tour tolerates a CPU leaving or arriving.
 *  - A CPU going down stays online, and its run queue keeps taking tasks,
 *    until every reader it may still run has ended: after its last
 *    context switch it runs, interrupts off, the dying hook and a pending
 *    cross-CPU call (either may read), then clears its online bit after
 *    [cpu_offline_mb] (rcu_report_dead()), and only then sends on the
 *    tasks queued meanwhile (sched_cpu_offline()).  So a hop that finds it
 *    online waits in its queue for all that, and run_on() returns -ENODEV
 *    on another CPU, after the hand-over's release and acquire; a hop
 *    that finds it offline returns -ENODEV at once: every reader it ran
 *    ended before its bit changed.  We ignore -ENODEV: that CPU owes us
 *    nothing more.
 *  - Either way no switch of ours need follow on this CPU (home may have
 *    gone down too, and run_on(home) returns at once): [tour_end_mb]
 *    orders the caller's kfree() after those readers.
 *  - A CPU that arrives after we passed its number starts with no reader:
 *    it sets its bit and then [cpu_up_mb] before its first reader, and we
 *    took our number ([wait_begin_mb]) after the caller's removal and
 *    before reading its bit, so its readers see the removal.
 */
void synchronize_rcu(void)
{
	int cpu, home = smp_processor_id();
	unsigned long tour;

	might_sleep_check("synchronize_rcu");
	if (rcu_injected(RCU_INJECT_NO_WAIT))
		return;		/* fault injection: a grace period that waits for nothing */
	if (current->per_cpu) {
		synchronize_rcu_by_callback();	/* it may not leave its CPU: no tour */
		return;
	}
	tour = tour_begin();

	/* The article's synchronize_rcu(): run on every online CPU in turn. */
	for_each_online_cpu(cpu)
		if (!tour_skips(cpu, home))
			run_on(cpu);
	run_on(home);		/* and back to the CPU we started on */
	/*
	 * [tour_end_mb] pairs [cpu_offline_mb]: a CPU we found offline, or
	 * that sent our hop on as it went, ran its last readers before its
	 * full barrier and its offline bit or hand-over; this one orders them
	 * before the caller's kfree() even when no switch of ours followed.
	 */
	smp_mb();
	tour_end(tour);
}

/*
 * synchronize_rcu() for a per-CPU thread (rcuc/N's kind), which must not
 * leave its CPU and so cannot tour: it waits for an asynchronous grace
 * period instead (gp.c).  A callback queued now runs only after a grace
 * period that started after the call, which waited for every CPU's
 * quiescent state: the same readers the tour waits for.  The callback's
 * complete() and our wait order its end before the caller's kfree().
 */
struct rcu_synchronize {
	struct rcu_head head;
	struct completion done;
};

static void wakeme_after_rcu(struct rcu_head *head)
{
	complete(&container_of(head, struct rcu_synchronize, head)->done);
}

void synchronize_rcu_by_callback(void)
{
	struct rcu_synchronize rs;

	init_completion(&rs.done);
	call_rcu(&rs.head, wakeme_after_rcu);
	wait_for_completion(&rs.done);
}

/*
 * Polled grace periods.  A cookie is the last wait number handed out: a
 * synchronize_rcu() tour or an asynchronous grace period numbered above
 * it began after the cookie, and once either has ended, so has every
 * reader the cookie's taker could have overlapped.
 */
unsigned long get_state_synchronize_rcu(void)
{
	/*
	 * [get_state_mb] pairs [wait_begin_mb]: the caller's removal is
	 * ordered before we read the count, so a wait numbered above our
	 * cookie starts looking at the CPUs only after the removal: no
	 * reader it lets pass can still reach the removed element.
	 */
	smp_mb();
	return atomic_long_read(&rcu_state.waits_started);
}

bool poll_state_synchronize_rcu(unsigned long cookie)
{
	/*
	 * [poll_acquire] pairs [wait_end_release]: seeing a wait above the
	 * cookie ended, we also see the end of every reader it waited for:
	 * the caller's kfree() and every access after it come after them.
	 */
	unsigned long done = smp_load_acquire(&rcu_state.waits_done);

	return (long)(done - cookie) > 0;
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
	/*
	 * [barrier_cb_dec] pairs [barrier_cb_dec], [barrier_own_dec]: fully
	 * ordered, so whichever decrement reaches zero sees every callback
	 * that ran before a marker (and their frees) done before it wakes
	 * rcu_barrier()'s caller, who may then free what they used.
	 */
	if (atomic_dec_and_test(&barrier_pending))
		complete(&barrier_done);
}

/*
 * Fault injection barrier_skips_ready: "a CPU where no callback waits for
 * a grace period has nothing for us" -- but its ready callbacks, and a
 * batch its rcuc is running, have not run yet.  (Racy reads: a fault.)
 */
static bool barrier_inject_skips(int cpu)
{
	struct rcu_data *rdp = &rcu_data[cpu];
	unsigned long cur = READ_ONCE(rcu_state.gp_seq);

	if (!rcu_injected(RCU_INJECT_BARRIER_SKIPS_READY))
		return false;
	return !(READ_ONCE(rdp->wait.head) && !rcu_seq_done(cur, READ_ONCE(rdp->wait.gp))) &&
	       !(READ_ONCE(rdp->next.head) && !rcu_seq_done(cur, READ_ONCE(rdp->next.gp)));
}

void rcu_barrier(void)
{
	int cpu, home = smp_processor_id();

	might_sleep_check("rcu_barrier");
	if (current->per_cpu)
		panic("BUG: rcu_barrier() from per-CPU thread %s: it queues a marker on every "
		      "CPU by moving there (run_on()), and %s may not leave CPU%d; call it "
		      "from a thread that may move", current->comm, current->comm, home);
	/*
	 * No CPU comes or goes while we queue and wait: a CPU that went down
	 * before we reached it would move its callbacks (some queued before
	 * our call) to a CPU we already passed, behind a marker that may
	 * already have run.
	 */
	if (!rcu_injected(RCU_INJECT_BARRIER_NO_HOTPLUG_LOCK))	/* fault injection: none */
		cpus_read_lock();
	mutex_lock(&barrier_mutex);
	init_completion(&barrier_done);
	atomic_set(&barrier_pending, 1);	/* our own, dropped below */
	for_each_online_cpu(cpu) {
		if (rcu_injected(RCU_INJECT_BARRIER_SKIP_CPU) && cpu == rcu_inject_victim(home))
			continue;	/* fault injection: no marker there */
		if (barrier_inject_skips(cpu))
			continue;	/* fault injection: nothing waits there */
		run_on(cpu);
		atomic_inc(&barrier_pending);
		call_rcu(&barrier_heads[cpu], barrier_callback);
	}
	run_on(home);
	/* [barrier_own_dec] pairs [barrier_cb_dec]: our own count: if it is the last, we see every marker's work. */
	if (atomic_dec_and_test(&barrier_pending))
		complete(&barrier_done);
	wait_for_completion(&barrier_done);
	mutex_unlock(&barrier_mutex);
	if (!rcu_injected(RCU_INJECT_BARRIER_NO_HOTPLUG_LOCK))
		cpus_read_unlock();
}
