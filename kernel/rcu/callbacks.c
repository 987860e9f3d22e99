/*
 * call_rcu()'s callbacks: per-CPU lists split by the grace period they
 * wait for (gp.c runs the grace periods), and the rcuc threads that
 * invoke them.
 *
 *   call_rcu()            queues the callback on this CPU's `next` segment,
 *                         tagged with the grace period that must complete
 *                         (rcu_seq_snap), and makes sure one will start.
 *   rcuc/N                a kernel thread per CPU moves finished segments
 *                         to `done` and invokes them, outside every lock;
 *                         gp.c wakes them when a grace period ends.
 *   CPU hotplug           a dead CPU's callbacks move to one that stays.
 */
#include "kernel.h"
#include "irq.h"
#include "rcu.h"

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

/*
 * Tells cpu's rcuc there is work, and wakes it.  The flag is set even
 * when rcuc does not exist yet (callbacks queued before
 * rcu_init_cpu_threads(), or on a CPU first brought up by add_cpu()):
 * the thread looks at it before it first sleeps, so the work waits only
 * until the thread starts, not for some later grace period.
 */
void wake_cb_thread(int cpu)
{
	struct rcu_data *rdp = &rcu_data[cpu];
	struct task_struct *t;

	/*
	 * [cb_work_release] pairs [cb_work_acquire]: the flag says "there is
	 * work" and gp_seq says what the work is; without the release, rcuc
	 * could see the flag, read the old gp_seq, find nothing ready and
	 * sleep with ready callbacks.  The store is ordered before the
	 * sleeper's state by the full barrier in wake_up_process().  (AArch64
	 * only; TCG on an x86-64 host cannot show it, so no test fails here.)
	 */
	smp_store_release(&rdp->cb_work, true);
	t = READ_ONCE(rdp->cb_thread);
	if (t)
		wake_up_process(t);
}

/* After a grace period ended (gp.c): every CPU with callbacks may have work. */
void wake_cb_threads(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (READ_ONCE(rcu_data[cpu].ncbs))
			wake_cb_thread(cpu);
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
			      "(wait %ld, next %ld, now %ld, gp_seq %ld)", who, smp_processor_id(),
			      (long)rdp->wait.gp, (long)rdp->next.gp, (long)snap,
			      (long)READ_ONCE(rcu_state.gp_seq));
		seg_splice(&rdp->wait, &rdp->next);
		rdp->wait.gp = rdp->next.gp;
	}
}

void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	struct rcu_data *rdp;
	unsigned long flags, snap;
	bool need_gp, ready;

	rcu_debug_queue(head, "call_rcu");
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
			rcu_callback_t func = h->func;	/* h may be freed by it */

			next = h->next;
			invoke_callback(h);
			n++;
			if (current->rcu_read_lock_nesting || current->srcu_nesting)
				panic("BUG: RCU callback %p returned inside %s()", (void *)func,
				      current->rcu_read_lock_nesting ? "rcu_read_lock" :
				      "srcu_read_lock");
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
		/*
		 * Let the CPU's other tasks run between two passes: if
		 * advance_callbacks() ever disagrees with the check above (lab
		 * call_rcu: a comparison that is not wrap-safe), we would pass
		 * again and again and starve them.
		 */
		cond_resched();
	}
	return 0;
}

/* Empty lists on every CPU, and no grace period asked for yet. */
void rcu_init_callbacks(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		seg_init(&rcu_data[cpu].done);
		seg_init(&rcu_data[cpu].wait);
		seg_init(&rcu_data[cpu].next);
		rcu_data[cpu].gp_requested = RCU_SEQ_INIT;	/* one that ended before boot */
	}
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
	/*
	 * [migrate_mb] pairs [cpu_offline_mb]: we saw the CPU offline
	 * (take_cpu_down()); its last stores to its callback lists and their
	 * count, and the grace-period number it last read, are visible to us
	 * now, so the number we read is no older than the ones its callbacks
	 * wait for.  Before any look at its lists, the count included: a
	 * count read ahead of the barrier could be from before its last
	 * call_rcu(), and its callback would stay behind for ever.
	 */
	smp_mb();
	local_irq_save(flags);
	me = smp_processor_id();
	dst = &rcu_data[me];
	if (!src->ncbs) {
		local_irq_restore(flags);
		return;
	}
	snap = rcu_seq_snap(READ_ONCE(rcu_state.gp_seq));
	make_room_in_next(dst, snap, "rcu_migrate_callbacks");
	seg_splice(&dst->done, &src->done);
	if (rcu_injected(RCU_INJECT_OFFLINE_CBS_READY)) {
		seg_splice(&dst->done, &src->wait);	/* fault injection: ready at once */
		seg_splice(&dst->done, &src->next);
	}
	if (rcu_injected(RCU_INJECT_OFFLINE_CBS_MERGE)) {
		seg_splice(&dst->wait, &src->wait);	/* fault injection: segment by segment, */
		seg_splice(&dst->next, &src->next);	/* keeping our (maybe stale) numbers */
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
