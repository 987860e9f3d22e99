/*
 * Asynchronous grace periods, driven by the context-switch hook, in the
 * style of classic RCU: one global grace-period number (rcu_seq), a mask
 * of the CPUs that still owe the running grace period a quiescent state,
 * and per-CPU callback lists split by the grace period they wait for.
 *
 *   call_rcu()            queues the callback on this CPU's `next` segment,
 *                         tagged with the grace period that must complete
 *                         (rcu_seq_snap), and makes sure one will start.
 *   context switch        rcu_note_context_switch(): this CPU passed a
 *                         quiescent state; the CPU that clears the last bit
 *                         ends the grace period and wakes the rcuc threads.
 *   idle                  an extended quiescent state: a grace period that
 *                         starts while a CPU sleeps does not wait for it.
 *   rcuc/N                a kernel thread per CPU moves finished segments
 *                         to `done` and invokes them, outside every lock.
 *
 * synchronize_rcu() does not use any of this: it is the article's run_on()
 * tour (kernel/rcu/sync.c).
 */
#include "kernel.h"
#include "irq.h"
#include "rcu.h"

struct rcu_segment {
	struct rcu_head *head, **tail;
	unsigned long gp;		/* the grace period it waits for */
};

struct rcu_data {
	struct rcu_segment done;	/* ready to invoke */
	struct rcu_segment wait;	/* waiting for wait.gp */
	struct rcu_segment next;	/* waiting for next.gp (later than wait.gp) */
	long ncbs;			/* callbacks queued here, all segments */
	bool idle;			/* in the idle extended quiescent state */
	bool irq_from_idle;		/* an interrupt took us out of idle */
	bool cb_work;			/* rcuc has work: set (release) before waking it */
	unsigned long gp_requested;	/* the last grace period call_rcu() asked for here */
	struct task_struct *cb_thread;
	unsigned long long cbs_invoked;
};

/*
 * gp_seq starts 300 grace periods below the wrap, as Linux's does, so
 * that every boot crosses it and a comparison that is not wrap-safe
 * fails early; the wait numbers of the polled API likewise (sync.c).
 */
struct rcu_state rcu_state = {
	.lock = __SPIN_LOCK_UNLOCKED(rcu_state.lock),
	.gp_seq = RCU_SEQ_INIT,
	.waits_started = ATOMIC_LONG_INIT(RCU_WAITS_INIT),
	.waits_done = RCU_WAITS_INIT,
};
static struct rcu_data rcu_data[NR_CPUS];
static void seg_init(struct rcu_segment *s)
{
	s->head = NULL;
	s->tail = &s->head;
}

static bool seg_empty(const struct rcu_segment *s)
{
	return s->head == NULL;
}

/* Appends all of src to dst (keeping dst's gp) and empties src. */
static void seg_splice(struct rcu_segment *dst, struct rcu_segment *src)
{
	if (seg_empty(src))
		return;
	*dst->tail = src->head;
	dst->tail = src->tail;
	seg_init(src);
}

/*
 * Two passes of advance_callbacks(): the first may finish wait and move
 * next up into it, the second may then find that next's grace period has
 * ended too.
 */
#define ADVANCE_PASSES	2

/* Moves finished segments forward; this CPU, interrupts off. */
static void advance_callbacks(struct rcu_data *rdp)
{
	/*
	 * [advance_cbs_acquire] pairs [gp_end_release]: a callback is moved
	 * to `done` only on seeing its grace period's end, and everything the
	 * grace period waited for (the readers' loads, ordered before each
	 * CPU's report) happens before the callback frees anything.
	 */
	unsigned long cur = smp_load_acquire(&rcu_state.gp_seq);

	for (int pass = 0; pass < ADVANCE_PASSES; pass++) {
		/* (fault injection seg_done_early: one less, the grace period's start) */
		if (!seg_empty(&rdp->wait) &&
		    rcu_seq_done(cur, rdp->wait.gp - rcu_injected(RCU_INJECT_SEG_DONE_EARLY)))
			seg_splice(&rdp->done, &rdp->wait);
		/* next joins wait when wait is empty or waits for the same grace period. */
		if (!seg_empty(&rdp->next) &&
		    (seg_empty(&rdp->wait) || rdp->wait.gp == rdp->next.gp)) {
			seg_splice(&rdp->wait, &rdp->next);
			rdp->wait.gp = rdp->next.gp;
		} else if (!seg_empty(&rdp->next) && rcu_injected(RCU_INJECT_SEG_MERGE)) {
			seg_splice(&rdp->wait, &rdp->next);	/* fault injection: wait's earlier gp */
		}
	}
}

static void wake_cb_thread(int cpu)
{
	struct rcu_data *rdp = &rcu_data[cpu];

	if (!rdp->cb_thread)
		return;
	/*
	 * [cb_work_release] pairs [cb_work_acquire]: the flag says "there is
	 * work" and gp_seq says what the work is; without the release, rcuc
	 * could see the flag, read the old gp_seq, find nothing ready and
	 * sleep with ready callbacks.  The store is ordered before the
	 * sleeper's state by the full barrier in wake_up_process().  (AArch64
	 * only; TCG on an x86-64 host cannot show it, so no test fails here.)
	 */
	smp_store_release(&rdp->cb_work, true);
	wake_up_process(rdp->cb_thread);
}

/* After a grace period ended: every CPU with callbacks may have work. */
static void wake_cb_threads(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (READ_ONCE(rcu_data[cpu].ncbs))
			wake_cb_thread(cpu);
}

static bool rcu_gp_start(void);

/* Ends the running grace period; rcu_state.lock held. */
static void rcu_gp_end(void)
{
	/*
	 * [gp_end_release] pairs [advance_cbs_acquire], [cs_qs_mb],
	 * [cpu_offline_mb]: every
	 * quiescent-state report (each after its CPU's readers, by
	 * [cs_qs_mb]) is ordered before the new number, so a callback that
	 * sees the grace period ended cannot free what a reader still reads.
	 */
	smp_store_release(&rcu_state.gp_seq, rcu_state.gp_seq + 1);
	rcu_wait_end(rcu_state.gp_wait);	/* the polled API's view (sync.c) */
	rcu_state.gps_completed++;
	trace_record(TR_GP_END, rcu_state.gp_seq, 0);
	if (rcu_state.gp_needed) {
		rcu_state.gp_needed = false;
		rcu_gp_start();
	}
}

/* Clears cpu's bit if it still owes grace period gp; rcu_state.lock held. */
static bool report_qs_locked(int cpu, unsigned long gp)
{
	unsigned long seq = rcu_state.gp_seq;

	if (seq != gp || !cpumask_test_cpu(cpu, &rcu_state.qs_mask))
		return false;
	__cpumask_clear_cpu(cpu, &rcu_state.qs_mask);	/* the lock orders it */
	if (!cpumask_empty(&rcu_state.qs_mask))
		return false;
	rcu_gp_end();
	return true;
}

/*
 * Starts a grace period; rcu_state.lock held.  Returns true if it ended
 * at once (every CPU idle).
 */
static bool rcu_gp_start(void)
{
	int cpu;

	/* Numbered for the polled API before it looks at any CPU (sync.c). */
	rcu_state.gp_wait = rcu_wait_begin();
	if (rcu_injected(RCU_INJECT_POLL_GP_EARLY))
		rcu_wait_end(rcu_state.gp_wait);	/* fault injection: "ended" as it starts */
	cpumask_copy(&rcu_state.qs_mask, cpu_online_mask);
	if (rcu_injected(RCU_INJECT_MASK_SKIP_CPU) && num_online_cpus() > 1)	/* fault injection: */
		__cpumask_clear_cpu(cpumask_last(cpu_online_mask), &rcu_state.qs_mask);	/* the last CPU */
	/*
	 * [gp_start_wmb] pairs [note_qs_rmb]: the mask is visible before the
	 * number, so a CPU that sees the new grace period also sees its bit
	 * set, instead of an old mask without it (and skipping its report).
	 */
	smp_wmb();
	WRITE_ONCE(rcu_state.gp_seq, rcu_state.gp_seq + 1);
	rcu_state.gp_start_ns = ktime_get_ns();
	trace_record(TR_GP_START, rcu_state.gp_seq, 0);
	/*
	 * [gp_start_mb] pairs [idle_enter_mb_after], [idle_enter_mb_before],
	 * [idle_exit_mb], [call_rcu_mb]: a full barrier between publishing
	 * the grace period and reading the idle flags.  rcu_idle_enter()
	 * writes its flag and then reads the grace period: either we see the
	 * CPU idle and report for it, or it sees the new grace period and
	 * reports itself; never neither.  A CPU we see idle finished its
	 * readers before its flag (by [idle_enter_mb_before]).  A CPU that
	 * leaves idle after we read its flag reads only what the updater
	 * removed before call_rcu() ([call_rcu_mb], then this barrier, then
	 * [idle_exit_mb]).
	 */
	smp_mb();
	for_each_online_cpu(cpu) {
		if (READ_ONCE(rcu_data[cpu].idle) &&
		    report_qs_locked(cpu, rcu_state.gp_seq))
			return true;
	}
	return false;
}

void rcu_request_gp(void)
{
	unsigned long flags;
	bool ended = false;

	spin_lock_irqsave(&rcu_state.lock, flags);
	rcu_state.gp_requests++;
	if (rcu_state.gp_seq & 1)
		rcu_state.gp_needed = true;
	else
		ended = rcu_gp_start();
	spin_unlock_irqrestore(&rcu_state.lock, flags);
	if (ended)
		wake_cb_threads();
}

/*
 * Every report takes the one global lock: the flat design's price, which
 * grows with the CPU count (docs/rcu.md, "One lock for every report").
 * So this counts whether the report found the lock taken and how long it
 * waited; make bench prints both (tests/bench/update.c).  The counters
 * are written under the lock: plain increments suffice.
 */
static unsigned long rcu_state_lock_counted(void)
{
	unsigned long flags;
	u64 t0 = ktime_get_ns();
	bool contended;

	local_irq_save(flags);
	contended = !spin_trylock(&rcu_state.lock);
	if (contended)
		spin_lock(&rcu_state.lock);
	rcu_state.qs_reports++;
	rcu_state.qs_contended += contended;
	rcu_state.qs_lock_wait_ns += ktime_get_ns() - t0;
	return flags;
}

static void rcu_report_qs(int cpu, unsigned long gp)
{
	unsigned long flags = rcu_state_lock_counted();
	bool ended;

	ended = report_qs_locked(cpu, gp);
	spin_unlock_irqrestore(&rcu_state.lock, flags);
	if (ended)
		wake_cb_threads();
}

/* Reports this CPU's quiescent state if the running grace period wants it. */
static void note_qs(void)
{
	int cpu = smp_processor_id();
	unsigned long gp = READ_ONCE(rcu_state.gp_seq);

	if (!(gp & 1))
		return;
	/* [note_qs_rmb] pairs [gp_start_wmb]: or an older mask could hide our bit and delay the grace period. */
	smp_rmb();
	if (cpumask_test_cpu(cpu, &rcu_state.qs_mask)) {
		trace_record(TR_QS, gp, 0);
		rcu_report_qs(cpu, gp);
	}
}

/*
 * The context-switch hook: this CPU is outside every read-side critical
 * section.  Cheap when no grace period waits for this CPU: a barrier and
 * two loads.
 */
void rcu_note_context_switch(void)
{
	/*
	 * [cs_qs_mb] pairs [gp_end_release]: the loads of the readers this
	 * CPU ran before the switch are complete before our report, and so
	 * before the end of the grace period and every callback after it;
	 * without it a callback could free an element a reader here is still
	 * loading from.
	 */
	smp_mb();
	note_qs();
	rcu_exp_note_qs();
}

/*
 * Entering the idle extended quiescent state: from the idle loop, and
 * from rcu_irq_exit() when an interrupt taken on an idle CPU returns.
 */
void rcu_idle_enter(void)
{
	struct rcu_data *rdp = &rcu_data[smp_processor_id()];

	/*
	 * [idle_enter_mb_before] pairs [gp_start_mb]: entering idle releases
	 * everything before it.  Coming from rcu_irq_exit(), the handler's
	 * loads of RCU-protected data must be complete before `idle` is
	 * visible; otherwise (AArch64) another CPU's rcu_gp_start() sees us
	 * idle, reports for us, and a callback frees what the handler is
	 * still reading.  TCG cannot show it (nearly in-order on x86 hosts).
	 */
	smp_mb();
	WRITE_ONCE(rdp->idle, true);
	/*
	 * [idle_enter_mb_after] pairs [gp_start_mb], [exp_start_mb]: our
	 * flag is visible before we read gp_seq, as rcu_gp_start() publishes
	 * gp_seq before reading the flags: one of us sees the other, never
	 * neither (a grace period that waits for an idle CPU that never
	 * reports).  The same for an expedited grace period's start.
	 */
	smp_mb();
	note_qs();
	rcu_exp_note_qs();
}

void rcu_idle_exit(void)
{
	struct rcu_data *rdp = &rcu_data[smp_processor_id()];

	if (!rcu_injected(RCU_INJECT_IDLE_EXIT_FORGETS))	/* fault injection: stays "idle" */
		WRITE_ONCE(rdp->idle, false);
	/*
	 * [idle_exit_mb] pairs [gp_start_mb], [exp_start_mb]: leaving the extended quiescent
	 * state.  Our flag is visible before any RCU-protected load after it,
	 * so a grace period that starts from here on waits for us; and one
	 * that saw us idle ordered its updater's removal before its reading
	 * of our flag, so what we read now cannot be what it frees.
	 */
	smp_mb();
}

/* An interrupt on an idle CPU leaves idle before its handler may read RCU data. */
void rcu_irq_enter(void)
{
	struct rcu_data *rdp = &rcu_data[smp_processor_id()];

	if (rcu_injected(RCU_INJECT_IRQ_STAYS_IDLE))
		return;		/* fault injection: the handler runs in the idle state */
	if (this_cpu()->irq_depth == 1 && READ_ONCE(rdp->idle)) {
		rcu_idle_exit();
		rdp->irq_from_idle = true;
	}
}

void rcu_irq_exit(void)
{
	struct rcu_data *rdp = &rcu_data[smp_processor_id()];

	if (this_cpu()->irq_depth == 1 && rdp->irq_from_idle) {
		rdp->irq_from_idle = false;
		rcu_idle_enter();
	}
}

bool rcu_cpu_in_eqs(int cpu)
{
	return READ_ONCE(rcu_data[cpu].idle);
}

bool rcu_cpu_owes_qs(int cpu)
{
	/* A snapshot for statistics (the demos): no ordering needed. */
	return (READ_ONCE(rcu_state.gp_seq) & 1) && cpumask_test_cpu(cpu, &rcu_state.qs_mask);
}

static void invoke_callback(struct rcu_head *head)
{
	uintptr_t f = (uintptr_t)head->func;
	void *outer;

	rcu_debug_dequeue(head);
	trace_record(TR_CB_INVOKE, 0, (uintptr_t)head);
	if (f < KFREE_RCU_MAX_OFFSET) {
		kfree((char *)head - f);	/* kfree_rcu(): f is the offset */
		return;
	}
	outer = rcu_debug_callback_enter(head->func);	/* checking build: must not sleep */
	head->func(head);
	rcu_debug_callback_exit(outer);
}

/*
 * Before callbacks that wait for grace period snap join `next`: finished
 * segments move on, and a `next` that waits for an earlier grace period
 * moves up to `wait` (which is then empty: see the panic).  This CPU,
 * interrupts off.
 */
static void make_room_in_next(struct rcu_data *rdp, unsigned long snap, const char *who)
{
	advance_callbacks(rdp);
	if (!seg_empty(&rdp->next) && rdp->next.gp != snap) {
		if (!seg_empty(&rdp->wait))
			panic("BUG: %s: three grace periods pending on CPU%d "
			      "(wait %lu, next %lu, now %lu, gp_seq %lu)", who, smp_processor_id(),
			      rdp->wait.gp, rdp->next.gp, snap, READ_ONCE(rcu_state.gp_seq));
		seg_splice(&rdp->wait, &rdp->next);
		rdp->wait.gp = rdp->next.gp;
	}
}

void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	struct rcu_data *rdp;
	unsigned long flags, snap;
	bool need_gp, ready;

	rcu_debug_queue(head);
	trace_record(TR_CB_QUEUE, 0, (uintptr_t)head);
	head->func = func;
	head->next = NULL;
	if (rcu_injected(RCU_INJECT_NO_WAIT)) {
		invoke_callback(head);	/* fault injection: no grace period at all */
		return;
	}
	local_irq_save(flags);
	rdp = &rcu_data[smp_processor_id()];
	/*
	 * [call_rcu_mb] pairs [gp_start_mb]: the caller's removal is ordered
	 * before we read the grace-period number, so a grace period we see
	 * as not yet started will wait for every reader that could still see
	 * the element (and an idle CPU that wakes after it started reads the
	 * list without it).
	 */
	smp_mb();
	snap = rcu_seq_snap(READ_ONCE(rcu_state.gp_seq));
	make_room_in_next(rdp, snap, "call_rcu");
	*rdp->next.tail = head;
	rdp->next.tail = &head->next;
	rdp->next.gp = snap;
	WRITE_ONCE(rdp->ncbs, rdp->ncbs + 1);
	need_gp = !rcu_seq_done(READ_ONCE(rcu_state.gp_seq), snap) && rdp->gp_requested != snap;
	if (rcu_injected(RCU_INJECT_REQUEST_ONLY_ONCE))	/* fault injection: the first only */
		need_gp = need_gp && rdp->gp_requested == RCU_SEQ_INIT;
	ready = !seg_empty(&rdp->done);
	local_irq_restore(flags);
	/*
	 * Once per CPU and grace period: the request takes the global lock,
	 * and taking it at every call made 128 updaters on 64 CPUs queue on
	 * it for seconds (docs/rcu.md, "One lock for every report").  A
	 * callback that waits for the grace period this CPU has asked for
	 * already (the same snap) is covered by that request: the grace
	 * period ending at snap is started or marked needed, and it starts
	 * only after our read of gp_seq, so after our callback was queued.
	 * Written only once the request is made (an interrupt that queues a
	 * callback meanwhile asks again, which is harmless).
	 */
	if (need_gp) {
		rcu_request_gp();
		rdp->gp_requested = snap;
	}
	if (ready)
		wake_cb_thread(smp_processor_id());
}

/* Callbacks rcuc invokes between two cond_resched()s: long batches do not hog the CPU. */
#define RCU_CB_BATCH	16

/* rcuc/N: invokes this CPU's callbacks whose grace period has ended. */
static int rcu_cb_thread(void *arg)
{
	struct rcu_data *rdp = arg;

	for (;;) {
		struct rcu_segment batch;
		unsigned long flags;
		long n = 0;

		/* Blocked first, then check: a waker after the check finds us blocked. */
		current->state = TASK_BLOCKED;
		/*
		 * [rcuc_sleep_mb] pairs [wake_up_mb]: our state is visible
		 * before we read the flag, as the waker's flag is before it
		 * reads our state: either it sees us blocked and wakes us, or
		 * we see its flag; never neither (a lost wake-up).
		 */
		smp_mb();
		if (!READ_ONCE(rdp->cb_work)) {
			schedule();
			continue;
		}
		current->state = TASK_RUNNING;
		/*
		 * [cb_work_acquire] pairs [cb_work_release]: consume the flag
		 * with an exchange, so we read the latest waker's store (a plain
		 * clear could overwrite a newer one unseen) and, by the acquire,
		 * the gp_seq that waker saw, not an older one.
		 */
		if (!xchg_acquire(&rdp->cb_work, false))
			continue;

		local_irq_save(flags);
		advance_callbacks(rdp);
		seg_init(&batch);
		seg_splice(&batch, &rdp->done);
		local_irq_restore(flags);

		for (struct rcu_head *h = batch.head, *next; h; h = next) {
			next = h->next;
			invoke_callback(h);
			n++;
			if (current->rcu_read_lock_nesting)
				panic("BUG: RCU callback %p returned inside rcu_read_lock()",
				      (void *)h->func);
			if (n % RCU_CB_BATCH == 0)
				cond_resched();
		}
		local_irq_save(flags);
		WRITE_ONCE(rdp->ncbs, rdp->ncbs - n);
		rdp->cbs_invoked += n;
		/* Still waiting callbacks may be ready now (a grace period ended meanwhile). */
		if (rdp->ncbs && rcu_seq_done(READ_ONCE(rcu_state.gp_seq), rdp->wait.gp))
			WRITE_ONCE(rdp->cb_work, true);
		local_irq_restore(flags);
	}
	return 0;
}

void rcu_init(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		seg_init(&rcu_data[cpu].done);
		seg_init(&rcu_data[cpu].wait);
		seg_init(&rcu_data[cpu].next);
		rcu_data[cpu].gp_requested = RCU_SEQ_INIT;	/* one that ended before boot */
	}
	rcu_inject_announce();
}

/* One rcuc thread per online CPU, once the CPUs are up. */
void rcu_init_cpu_threads(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		rcu_online_cpu(cpu);
}

/* rcuc/N for a CPU that has none yet; it parks while its CPU is down. */
void rcu_online_cpu(int cpu)
{
	char name[TASK_COMM_LEN];

	if (rcu_data[cpu].cb_thread)
		return;
	snprintf(name, sizeof(name), "rcuc/%d", cpu);
	rcu_data[cpu].cb_thread = kthread_run_percpu(rcu_cb_thread, &rcu_data[cpu], cpu, name);
	if (!rcu_data[cpu].cb_thread)
		panic("rcu: cannot start %s", name);
}

/*
 * For the stall check (stall.c): how many callbacks cpu holds that wait
 * for a grace period while none runs and none is marked needed, and
 * which one they wait for.  Nobody asked for it (a request was lost), so
 * it never starts: they and every rcu_barrier() wait for ever, and no
 * CPU is stalled.  Read without the lock, the owner's writes racing: a
 * call_rcu() between its queueing and its request looks like this for an
 * instant, so the check reports only what lasts a stall timeout.
 */
long rcu_cbs_wait_unrequested(int cpu, unsigned long *gp)
{
	struct rcu_data *rdp = &rcu_data[cpu];
	unsigned long seq = READ_ONCE(rcu_state.gp_seq);

	if ((seq & 1) || READ_ONCE(rcu_state.gp_needed) || !READ_ONCE(rdp->ncbs))
		return 0;
	if (READ_ONCE(rdp->wait.head) && !rcu_seq_done(seq, READ_ONCE(rdp->wait.gp)))
		*gp = READ_ONCE(rdp->wait.gp);
	else if (READ_ONCE(rdp->next.head) && !rcu_seq_done(seq, READ_ONCE(rdp->next.gp)))
		*gp = READ_ONCE(rdp->next.gp);
	else
		return 0;
	return READ_ONCE(rdp->ncbs);
}

void rcu_get_stats(struct rcu_stats *s)
{
	int cpu;

	s->gp_seq = READ_ONCE(rcu_state.gp_seq);
	cpumask_copy(&s->qs_mask, &rcu_state.qs_mask);
	s->gps_completed = READ_ONCE(rcu_state.gps_completed);
	s->qs_reports = READ_ONCE(rcu_state.qs_reports);
	s->qs_contended = READ_ONCE(rcu_state.qs_contended);
	s->qs_lock_wait_ns = READ_ONCE(rcu_state.qs_lock_wait_ns);
	s->gp_requests = READ_ONCE(rcu_state.gp_requests);
	s->tours_started = atomic_long_read(&rcu_state.tours_started);
	s->tours_completed = atomic_long_read(&rcu_state.tours_completed);
	s->stall_reports = READ_ONCE(rcu_stall_reports);
	rcu_exp_get_stats(s);
	s->cbs_queued = 0;
	s->cbs_invoked = 0;
	for_each_possible_cpu(cpu) {	/* a CPU that went down invoked callbacks too */
		s->cbs_queued += READ_ONCE(rcu_data[cpu].ncbs);
		s->cbs_invoked += READ_ONCE(rcu_data[cpu].cbs_invoked);
	}
}

/*
 * CPU hotplug.  A CPU's online bit changes only here, under rcu_state.lock,
 * so rcu_gp_start() (which builds its mask under that lock) either sees
 * the CPU and waits for it, or does not and has nothing to wait for.
 */

/* The arriving CPU, interrupts off, before it runs anything. */
void rcu_cpu_starting(int cpu)
{
	struct rcu_data *rdp = &rcu_data[cpu];
	unsigned long flags;

	spin_lock_irqsave(&rcu_state.lock, flags);
	/*
	 * Not idle: a grace period that starts from now on waits for us (an
	 * offline CPU counts as idle, rcu_report_dead()).  A grace period
	 * that started before this lock did not include us, and the lock
	 * orders everything its updater removed before our first reader.
	 */
	if (!rcu_injected(RCU_INJECT_ONLINE_STARTS_IDLE))	/* fault injection: still "idle" */
		WRITE_ONCE(rdp->idle, false);
	rdp->irq_from_idle = false;
	set_cpu_online(cpu, true);
	spin_unlock_irqrestore(&rcu_state.lock, flags);
	/*
	 * [cpu_up_mb] pairs [wait_begin_mb]: our online bit is visible
	 * before any reader here loads a pointer.  A synchronize_rcu() tour
	 * that began earlier (wait_begin_mb after its updater's removal) and
	 * read our bit as clear skipped us: then our readers see the removal.
	 */
	smp_mb();
}

/* The leaving CPU, interrupts off for good, after its last context switch. */
void rcu_report_dead(int cpu)
{
	struct rcu_data *rdp = &rcu_data[cpu];
	unsigned long flags;
	bool ended = false;

	/*
	 * [cpu_offline_mb] pairs [schedule_mb], [gp_end_release], [migrate_mb]: every
	 * reader this CPU ran (in a task before its last switch, or in an
	 * interrupt handler since) is complete before our offline bit and our
	 * report are visible.  A tour that sees us offline and skips us, or a
	 * grace period that ends on our report, is followed by a full barrier
	 * (the tour's next hop) or orders its end after our report: the
	 * updater's kfree() comes after our readers.
	 */
	smp_mb();
	spin_lock_irqsave(&rcu_state.lock, flags);
	/*
	 * Offline first: if our report ends the grace period and another is
	 * needed, rcu_gp_start() starts it at once, and it must not wait for
	 * us (it would wait forever).
	 */
	WRITE_ONCE(rdp->idle, true);	/* an offline CPU is quiescent, like an idle one */
	set_cpu_online(cpu, false);
	/* Our quiescent state, for a grace period that started after our last switch. */
	if (!rcu_injected(RCU_INJECT_OFFLINE_NO_QS))	/* fault injection: no report */
		ended = report_qs_locked(cpu, rcu_state.gp_seq);
	spin_unlock_irqrestore(&rcu_state.lock, flags);
	if (ended)
		wake_cb_threads();	/* (on the CPUs that stay) */
}

/*
 * On a CPU that stays, once `cpu` is stopped: its callbacks come here, in
 * order.  Those that were ready stay ready (they join our `done`); the
 * others join our `next` and wait for a grace period that starts after
 * now, which ends after the one each was waiting for.  Nothing else
 * touches the dead CPU's lists: its rcuc is parked, and nothing runs there.
 */
void rcu_migrate_callbacks(int cpu)
{
	struct rcu_data *src = &rcu_data[cpu], *dst;
	unsigned long flags, snap;
	bool need_gp, ready;
	int me;

	if (rcu_injected(RCU_INJECT_OFFLINE_CBS_LEFT))
		return;		/* fault injection: left behind on the dead CPU */
	local_irq_save(flags);
	me = smp_processor_id();
	dst = &rcu_data[me];
	if (!src->ncbs) {
		local_irq_restore(flags);
		return;
	}
	/*
	 * [migrate_mb] pairs [cpu_offline_mb]: we saw the CPU offline
	 * (take_cpu_down()); its last stores to its callback lists, and the
	 * grace-period number it last read, are visible to us now, so the
	 * number we read is no older than the ones its callbacks wait for.
	 */
	smp_mb();
	snap = rcu_seq_snap(READ_ONCE(rcu_state.gp_seq));
	make_room_in_next(dst, snap, "rcu_migrate_callbacks");
	seg_splice(&dst->done, &src->done);
	if (rcu_injected(RCU_INJECT_OFFLINE_CBS_READY)) {
		seg_splice(&dst->done, &src->wait);	/* fault injection: ready at once */
		seg_splice(&dst->done, &src->next);
	}
	if (!seg_empty(&src->wait) || !seg_empty(&src->next)) {
		seg_splice(&dst->next, &src->wait);
		seg_splice(&dst->next, &src->next);
		dst->next.gp = snap;
	}
	WRITE_ONCE(dst->ncbs, dst->ncbs + src->ncbs);
	WRITE_ONCE(src->ncbs, 0);
	need_gp = !seg_empty(&dst->next) && !rcu_seq_done(READ_ONCE(rcu_state.gp_seq), snap);
	ready = !seg_empty(&dst->done);
	local_irq_restore(flags);
	if (need_gp)
		rcu_request_gp();
	if (ready)
		wake_cb_thread(me);
}
