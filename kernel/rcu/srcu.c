/*
 * SRCU grace periods and callbacks, the classic way (the read side is
 * inline in srcu.h).
 *
 * A grace period of a domain, with ->completed even when it starts and
 * rank r = ->completed & 1 the one new readers use:
 *
 *	flip	->completed++: new readers take rank r^1
 *	wait	until rank r's locks equal its unlocks (summed over all CPUs)
 *	flip	->completed++: new readers take rank r again
 *	wait	until rank r^1's locks equal its unlocks
 *
 * Why a rank whose sums are equal holds no reader the grace period must
 * wait for, whatever the flips did: srcu_readers_gone() sums the unlocks,
 * then (srcu_check_mb) the locks.  A reader whose unlock it counts made
 * its lock first (srcu_unlock_mb), so that lock is counted too: the lock
 * sum can only equal the unlock sum when every reader it counted has
 * left.  A reader whose lock it did not count stored that lock and then
 * (srcu_lock_mb) began loading; the grace period stored the updater's
 * removal before (call_srcu_mb) loading the lock counts: store buffering,
 * so that reader sees the removal and cannot hold what is about to be
 * freed.  That also covers the reader that read ->completed before a flip
 * and added to its counter after it: it is either counted or harmless.
 *
 * So the flips are for progress, and that is why there are two.  A rank
 * that new readers keep entering might never be seen empty; once flipped
 * away it receives only the stragglers above (at most one per CPU, and
 * one per interrupt nested there: nothing switches between reading the
 * index and counting, not even under PREEMPT=1, where srcu_read_lock()
 * keeps preemption off for those two steps), and it empties.  A
 * reader may hold either rank when the grace period starts (one that
 * entered during the previous grace period's first wait holds r^1), so
 * each rank is flipped away and waited for once.  No classic RCU grace
 * period is used: the barrier pairs above close the window between
 * reading the index and counting, and a synchronize_rcu() here would add
 * a tour of every CPU to each grace period for nothing.  (Nor would it
 * deadlock: a sleeping SRCU reader has switched, so classic RCU never
 * waits for one.)
 *
 * Who runs the grace periods: one kernel thread, srcu_gp on CPU 0, for
 * every domain.  call_srcu() queues the callback on its domain and puts
 * the domain on the thread's list; synchronize_srcu() and srcu_barrier()
 * queue a callback that completes their completion.  The thread makes
 * each listed domain go as far as it can without waiting (srcu_advance()),
 * and when some domain still has readers it sleeps a tick and looks
 * again.  It never waits for one domain's readers before looking at the
 * next, so a grace period of one domain never waits for another's.
 */
#include "kernel.h"
#include "rcu.h"

enum { SRCU_GP_IDLE, SRCU_GP_FIRST_RANK, SRCU_GP_SECOND_RANK };

static LIST_HEAD(gp_list);		/* domains with callbacks */
static DEFINE_SPINLOCK(gp_list_lock);	/* gp_list and every ->on_list */
static struct task_struct *gp_thread;
static bool gp_work;			/* a domain was listed: look again */

/* ---- Fault injection: srcu.inject=NAME (the names are in srcu.h) ---- */

static const struct rcu_injection_desc srcu_injection_descs[NR_SRCU_INJECTIONS] = {
	SRCU_INJECTIONS(__INJECTION_DESC)
};
static bool srcu_injections_on[NR_SRCU_INJECTIONS];

static bool set_inject(const struct kparam *p, const char *val)
{
	(void)p;
	return rcu_inject_table_set(srcu_injection_descs, srcu_injections_on,
				    NR_SRCU_INJECTIONS, val);
}

KPARAM_CALL("srcu.inject", set_inject, "one of:" SRCU_INJECTIONS(__INJECTION_HELP));

bool srcu_injected(enum srcu_injection which)
{
	return srcu_injections_on[which];
}

/* ---- Domains ---- */

static void srcu_check_magic(const struct srcu_struct *ssp, const char *what)
{
	if (unlikely(READ_ONCE(ssp->magic) != SRCU_MAGIC))
		panic("BUG: %s() on srcu_struct %p, which is not initialised "
		      "(DEFINE_SRCU() or init_srcu_struct() first; or it was cleaned up)",
		      what, (const void *)ssp);
}

int __init_srcu_struct(struct srcu_struct *ssp, const char *name)
{
	memset(ssp, 0, sizeof(*ssp));
	spin_lock_init(&ssp->lock);
	ssp->lock.name = "srcu_struct";
	ssp->next_tail = &ssp->next_head;
	ssp->wait_tail = &ssp->wait_head;
	INIT_LIST_HEAD(&ssp->gp_node);
	ssp->name = name[0] == '&' ? name + 1 : name;	/* init_srcu_struct(&x): "x" */
	ssp->magic = SRCU_MAGIC;
	return 0;
}

/* Readers inside ssp now, both ranks (for cleanup_srcu_struct()). */
static long srcu_readers_active(struct srcu_struct *ssp)
{
	long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		for (int idx = 0; idx < 2; idx++)
			n += READ_ONCE(ssp->sda[cpu].lock_count[idx]) -
			     READ_ONCE(ssp->sda[cpu].unlock_count[idx]);
	return n;
}

/* Is ssp on the grace-period thread's list (which may still be looking at it)? */
static bool srcu_listed(struct srcu_struct *ssp)
{
	unsigned long flags;
	bool on;

	spin_lock_irqsave(&gp_list_lock, flags);
	on = ssp->on_list;
	spin_unlock_irqrestore(&gp_list_lock, flags);
	return on;
}

void cleanup_srcu_struct(struct srcu_struct *ssp)
{
	long readers, cbs;

	srcu_check_magic(ssp, "cleanup_srcu_struct");
	might_sleep_check("cleanup_srcu_struct");
	readers = srcu_readers_active(ssp);
	cbs = READ_ONCE(ssp->ncbs);
	/* As Linux: warn and keep the domain (leak it) rather than free it under its users. */
	if (WARN(readers, "cleanup_srcu_struct(&%s) with %ld readers still inside it; "
		 "the srcu_struct is left as it is", ssp->name, readers))
		return;
	if (WARN(cbs, "cleanup_srcu_struct(&%s) with %ld callbacks pending (srcu_barrier() "
		 "first); the srcu_struct is left as it is", ssp->name, cbs))
		return;
	/* The thread retires a domain after its last callback returned: wait for that. */
	while (!srcu_injected(SRCU_INJECT_CLEANUP_NO_WAIT) && srcu_listed(ssp))
		msleep(SRCU_POLL_MS);
	WRITE_ONCE(ssp->magic, 0);
}

unsigned long srcu_batches_completed(struct srcu_struct *ssp)
{
	return READ_ONCE(ssp->gps_completed);
}

/* ---- Grace periods (gp_thread only) ---- */

/*
 * Are the readers of rank idx gone?  Summed over every possible CPU: a
 * reader may unlock on another CPU than the one it locked on.
 */
static bool srcu_readers_gone(struct srcu_struct *ssp, int idx)
{
	unsigned long locks = 0, unlocks = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		unlocks += READ_ONCE(ssp->sda[cpu].unlock_count[idx]);
	/*
	 * [srcu_check_mb] pairs [srcu_lock_mb], [srcu_unlock_mb], [call_srcu_mb]:
	 * unlocks before locks, so every unlock counted has its lock counted
	 * (message passing with srcu_unlock_mb) and equal sums mean no
	 * counted reader is left; the lock loads come after the removal, so
	 * a reader they miss sees it (store buffering with srcu_lock_mb).
	 * Also the grace period's last barrier: the readers' accesses are
	 * done before the callbacks, and the frees, that come after it.
	 */
	smp_mb();
	for_each_possible_cpu(cpu)
		locks += READ_ONCE(ssp->sda[cpu].lock_count[idx]);
	return locks == unlocks;
}

/*
 * New readers take the other rank from now on.  No barrier: the flip only
 * lets the old rank empty (progress); what makes the wait safe is
 * srcu_check_mb, whichever rank a reader took.
 */
static void srcu_flip(struct srcu_struct *ssp)
{
	if (srcu_injected(SRCU_INJECT_NO_FLIP))
		return;		/* fault injection: readers all stay in one rank */
	WRITE_ONCE(ssp->completed, ssp->completed + 1);
}

/* The rank new readers do not use: the one a grace period waits for. */
static int srcu_old_rank(struct srcu_struct *ssp)
{
	return (ssp->completed & 1) ^ 1;
}

/* Moves the queued callbacks to the grace period about to start; false if none. */
static bool srcu_gp_begin(struct srcu_struct *ssp)
{
	unsigned long flags;
	bool any;

	spin_lock_irqsave(&ssp->lock, flags);
	if (ssp->next_head) {
		ssp->wait_head = ssp->next_head;
		ssp->wait_tail = ssp->next_tail;
		ssp->next_head = NULL;
		ssp->next_tail = &ssp->next_head;
	}
	any = ssp->wait_head != NULL;
	spin_unlock_irqrestore(&ssp->lock, flags);
	return any;
}

/* The grace period ended: invoke its callbacks, in the order they were queued. */
static void srcu_gp_end(struct srcu_struct *ssp)
{
	struct rcu_head *h, *next;
	unsigned long flags;
	long n = 0;

	spin_lock_irqsave(&ssp->lock, flags);
	h = ssp->wait_head;
	ssp->wait_head = NULL;
	ssp->wait_tail = &ssp->wait_head;
	for (next = h; next; next = next->next)
		n++;
	ssp->ncbs -= n;		/* not pending any more: cleanup may proceed once we let go */
	WRITE_ONCE(ssp->gps_completed, ssp->gps_completed + 1);
	spin_unlock_irqrestore(&ssp->lock, flags);

	for (n = 0; h; h = next) {
		rcu_callback_t func = h->func;	/* h may be freed by it */
		void *outer;

		next = h->next;
		rcu_debug_dequeue(h);
		/* Checking build: a callback that would sleep stalls every domain's grace periods. */
		outer = rcu_debug_callback_enter(func);
		func(h);
		rcu_debug_callback_exit(outer);
		if (current->rcu_read_lock_nesting || current->srcu_nesting)
			panic("BUG: SRCU callback %p of &%s returned inside a read-side "
			      "critical section", (void *)func, ssp->name);
		if (++n % 16 == 0)
			cond_resched();
	}
}

/*
 * One step of ssp's grace-period machine: as far as it can go without
 * waiting.  Returns true while a grace period waits for readers.
 */
static bool srcu_advance(struct srcu_struct *ssp)
{
	for (;;) {
		switch (ssp->gp_state) {
		case SRCU_GP_IDLE:
			if (!srcu_gp_begin(ssp))
				return false;
			srcu_flip(ssp);
			ssp->gp_state = SRCU_GP_FIRST_RANK;
			__attribute__((fallthrough));
		case SRCU_GP_FIRST_RANK:
			if (!srcu_readers_gone(ssp, srcu_old_rank(ssp)))
				return true;
			srcu_flip(ssp);
			ssp->gp_state = SRCU_GP_SECOND_RANK;
			__attribute__((fallthrough));
		case SRCU_GP_SECOND_RANK:
			if (!srcu_readers_gone(ssp, srcu_old_rank(ssp)))
				return true;
			ssp->gp_state = SRCU_GP_IDLE;
			srcu_gp_end(ssp);
			break;	/* and start the next one if callbacks were queued meanwhile */
		}
	}
}

void (*srcu_retire_hook)(struct srcu_struct *ssp);

/* Takes ssp off the list if it has nothing left; we never touch it again then. */
static void srcu_retire(struct srcu_struct *ssp)
{
	void (*hook)(struct srcu_struct *) = CONFIG_RCU_CHECKING ? READ_ONCE(srcu_retire_hook) : NULL;
	unsigned long flags;

	if (hook)
		hook(ssp);	/* (a test holds us here, still inside the domain) */

	spin_lock_irqsave(&gp_list_lock, flags);
	spin_lock(&ssp->lock);
	if (!ssp->ncbs && ssp->gp_state == SRCU_GP_IDLE) {
		list_del_init(&ssp->gp_node);
		ssp->on_list = false;
	}
	spin_unlock(&ssp->lock);
	spin_unlock_irqrestore(&gp_list_lock, flags);
}

/* Advances every listed domain once; true if some domain still waits for readers. */
static bool srcu_pass(void)
{
	struct srcu_struct *ssp;
	unsigned long flags;
	bool waiting = false;
	int n = 0;

	spin_lock_irqsave(&gp_list_lock, flags);
	list_for_each_entry(ssp, &gp_list, gp_node)
		n++;
	spin_unlock_irqrestore(&gp_list_lock, flags);
	while (n--) {
		/* The first one, rotated to the back: the list may change while we work. */
		spin_lock_irqsave(&gp_list_lock, flags);
		ssp = list_first_entry_or_null(&gp_list, struct srcu_struct, gp_node);
		if (ssp)
			list_move_tail(&ssp->gp_node, &gp_list);
		spin_unlock_irqrestore(&gp_list_lock, flags);
		if (!ssp)
			break;
		if (srcu_advance(ssp))
			waiting = true;
		else
			srcu_retire(ssp);
	}
	return waiting;
}

static int srcu_gp_kthread(void *arg)
{
	(void)arg;
	for (;;) {
		/* Blocked first, then check: a waker after the check finds us blocked. */
		current->state = TASK_BLOCKED;
		/* [srcu_sleep_mb] pairs [srcu_wake_mb]: we see gp_work, or the waker sees us blocked. */
		smp_mb();
		if (!READ_ONCE(gp_work)) {
			schedule();
			continue;
		}
		current->state = TASK_RUNNING;
		WRITE_ONCE(gp_work, false);
		if (srcu_pass()) {
			msleep(SRCU_POLL_MS);	/* readers remain: look again in a tick */
			WRITE_ONCE(gp_work, true);
		}
	}
	return 0;
}

/* Is t the thread that runs SRCU's grace periods and callbacks?  (For misuse reports.) */
bool srcu_gp_thread_is(const struct task_struct *t)
{
	return t && t == READ_ONCE(gp_thread);
}

static void srcu_wake_gp_thread(void)
{
	struct task_struct *t = READ_ONCE(gp_thread);

	WRITE_ONCE(gp_work, true);
	/* [srcu_wake_mb] pairs [srcu_sleep_mb]: the thread sees gp_work, or we see it blocked. */
	smp_mb();
	if (t)
		wake_up_process(t);
}

void srcu_init(void)
{
	struct task_struct *t;

	rcu_inject_table_announce("srcu", srcu_injection_descs, srcu_injections_on,
				  NR_SRCU_INJECTIONS);
	/* CPU 0: the boot CPU, which never goes away. */
	t = kthread_run_on_cpu(srcu_gp_kthread, NULL, 0, "srcu_gp");
	if (!t)
		panic("srcu: cannot start the grace-period thread srcu_gp");
	WRITE_ONCE(gp_thread, t);
	srcu_wake_gp_thread();	/* callbacks queued before it existed */
}

/* ---- The update-side API ---- */

void call_srcu(struct srcu_struct *ssp, struct rcu_head *head, rcu_callback_t func)
{
	unsigned long flags;

	srcu_check_magic(ssp, "call_srcu");
	rcu_debug_queue(head, "call_srcu");
	head->func = func;
	head->next = NULL;
	/*
	 * [call_srcu_mb] pairs [srcu_lock_mb], [srcu_check_mb]: the caller's removal is
	 * ordered before everything the grace period for this callback does
	 * after it, its loads of the lock counts included: a reader it does
	 * not count sees the removal.
	 */
	smp_mb();
	spin_lock_irqsave(&ssp->lock, flags);
	*ssp->next_tail = head;
	ssp->next_tail = &head->next;
	ssp->ncbs++;
	spin_unlock_irqrestore(&ssp->lock, flags);

	spin_lock_irqsave(&gp_list_lock, flags);
	if (!ssp->on_list) {
		list_add_tail(&ssp->gp_node, &gp_list);
		ssp->on_list = true;
	}
	spin_unlock_irqrestore(&gp_list_lock, flags);
	srcu_wake_gp_thread();
}

/* Checks for the callers that wait for a grace period of ssp. */
static void srcu_check_may_wait(struct srcu_struct *ssp, const char *what)
{
	srcu_check_magic(ssp, what);
	might_sleep_check(what);
	if (current == READ_ONCE(gp_thread))
		panic("BUG: %s(&%s) from an SRCU callback: the grace-period thread "
		      "would wait for itself", what, ssp->name);
	if (CONFIG_RCU_CHECKING && srcu_read_lock_held(ssp))
		panic("BUG: %s(&%s) inside srcu_read_lock(&%s): the grace period "
		      "would wait for its own caller (deadlock)", what, ssp->name, ssp->name);
}

struct srcu_waiter {
	struct rcu_head head;
	struct completion done;
};

static void srcu_wakeme(struct rcu_head *head)
{
	complete(&container_of(head, struct srcu_waiter, head)->done);
}

/* Queues a callback behind every one queued so far and waits until it has run. */
static void srcu_wait_for_marker(struct srcu_struct *ssp)
{
	struct srcu_waiter w;

	init_completion(&w.done);
	call_srcu(ssp, &w.head, srcu_wakeme);
	wait_for_completion(&w.done);
}

/*
 * Waits for every reader of ssp that began before the call.  A full grace
 * period: the marker's callback runs only after one that began after it
 * was queued.
 */
void synchronize_srcu(struct srcu_struct *ssp)
{
	srcu_check_may_wait(ssp, "synchronize_srcu");
	srcu_wait_for_marker(ssp);
}

/*
 * Waits until every callback queued on ssp so far has returned.  The
 * callbacks run in the order they were queued, so the marker runs last.
 */
void srcu_barrier(struct srcu_struct *ssp)
{
	srcu_check_may_wait(ssp, "srcu_barrier");
	if (srcu_injected(SRCU_INJECT_BARRIER_SKIPS_IDLE) && !READ_ONCE(ssp->ncbs))
		return;		/* fault injection: srcu_gp_end() uncounts a callback before running it */
	srcu_wait_for_marker(ssp);
}

/* ---- The checking build's per-task record ---- */

#if CONFIG_RCU_CHECKING
bool srcu_read_lock_held(const struct srcu_struct *ssp)
{
	const struct task_struct *t = current;

	for (int i = 0; i < t->srcu_nesting; i++)
		if (t->srcu_held[i].ssp == ssp)
			return true;
	return false;
}
#endif

void srcu_check_lock(struct srcu_struct *ssp, int idx)
{
	struct task_struct *t = current;
	unsigned long flags;

	srcu_check_magic(ssp, "srcu_read_lock");
	if (t->srcu_nesting >= SRCU_MAX_NESTING)
		panic("BUG: srcu_read_lock(&%s) nested more than %d deep in task %s",
		      ssp->name, SRCU_MAX_NESTING, t->comm);
	local_irq_save(flags);	/* an interrupt handler's reader uses the same record */
	t->srcu_held[t->srcu_nesting++] = (struct srcu_held){ .ssp = ssp, .idx = idx };
	local_irq_restore(flags);
}

/* The unlock matches nothing this task holds: say why. */
static void __noreturn srcu_bad_unlock(struct srcu_struct *ssp, int idx)
{
	struct task_struct *t = current;

	for (int i = t->srcu_nesting - 1; i >= 0; i--)
		if (t->srcu_held[i].ssp == ssp)
			panic("BUG: srcu_read_unlock(&%s, %d) in task %s, but "
			      "srcu_read_lock(&%s) returned %d", ssp->name, idx, t->comm,
			      ssp->name, t->srcu_held[i].idx);
	for (int i = t->srcu_nesting - 1; i >= 0; i--)
		if (t->srcu_held[i].idx == idx)
			panic("BUG: srcu_read_unlock(&%s, %d) in task %s with an index from "
			      "another domain: %d came from srcu_read_lock(&%s)", ssp->name, idx,
			      t->comm, idx, t->srcu_held[i].ssp->name);
	panic("BUG: srcu_read_unlock(&%s, %d) without a matching srcu_read_lock() in task %s",
	      ssp->name, idx, t->comm);
}

void srcu_check_unlock(struct srcu_struct *ssp, int idx)
{
	struct task_struct *t = current;
	unsigned long flags;
	int i;

	srcu_check_magic(ssp, "srcu_read_unlock");
	local_irq_save(flags);
	for (i = t->srcu_nesting - 1; i >= 0; i--)
		if (t->srcu_held[i].ssp == ssp && t->srcu_held[i].idx == idx)
			break;
	if (i < 0) {
		local_irq_restore(flags);
		srcu_bad_unlock(ssp, idx);
	}
	/* Domains may be released in any order: close the gap. */
	for (t->srcu_nesting--; i < t->srcu_nesting; i++)
		t->srcu_held[i] = t->srcu_held[i + 1];
	local_irq_restore(flags);
}

void srcu_check_task_exit(struct task_struct *t)
{
	if (t->srcu_nesting)
		panic("BUG: kthread %s returned inside srcu_read_lock(&%s)", t->comm,
		      t->srcu_held[t->srcu_nesting - 1].ssp->name);
}
