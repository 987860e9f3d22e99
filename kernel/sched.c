/*
 * The scheduler: per-CPU run queues, round-robin, no preemption.
 *
 * The switch protocol (as in xv6 and Linux): schedule() takes this CPU's
 * run-queue lock, switches, and the task switched *to* releases the lock
 * (finish_task_switch()).  So while a CPU holds its lock, the task it is
 * switching away from is not yet fully switched out, and nobody else can
 * pick that task up: a waker or a migration that needs the task's saved
 * registers waits for the lock.  A migrating task (run_on) is handed to
 * its target only in finish_task_switch(), once it is off this CPU, and no
 * code ever holds two run-queue locks at once.
 *
 * This file: the run queues, pick and switch, wake-ups and the idle loop.
 * run_on() is in run_on.c, msleep() in sleep.c, kernel threads in
 * kthread.c, CPU hotplug's part in sched_hotplug.c (rq.h lists them all).
 */
#include "rq.h"
#include "cpu.h"
#include "user/thread.h"

struct rq runqueues[NR_CPUS];
static struct task_struct idle_tasks[NR_CPUS];

/* Makes the code running on `cpu` now (boot stack) the CPU's idle task. */
static void init_idle(int cpu)
{
	struct task_struct *idle = &idle_tasks[cpu];
	struct rq *rq = &runqueues[cpu];
	bool again = idle->comm[0] != '\0';	/* a CPU coming back online */
	unsigned long flags;

	idle->state = TASK_RUNNING;
	idle->cpu = cpu;
	idle->pid = 0;
	idle->migrate_to = -1;
	snprintf(idle->comm, sizeof(idle->comm), "swapper/%d", cpu);
	init_completion(&idle->exited);
	spin_lock_irqsave(&rq->lock, flags);
	rq->idle = rq->curr = idle;
	rq->prev = NULL;
	rq->last_switch_ns = ktime_get_ns();
	rq->dying = rq->offline = false;	/* tasks may be queued here again */
	spin_unlock_irqrestore(&rq->lock, flags);
	cpus[cpu].curr_task = idle;
	cpus[cpu].task_name = idle->comm;
	if (!again)
		add_to_task_list(idle);
}

void sched_init(void)
{
	for (int cpu = 0; cpu < NR_CPUS; cpu++) {
		struct rq *rq = &runqueues[cpu];

		spin_lock_init(&rq->lock);
		rq->lock.name = "rq->lock";
		INIT_LIST_HEAD(&rq->queue);
		INIT_LIST_HEAD(&rq->sleepers);
	}
	init_idle(0);
}

void sched_init_cpu(int cpu)
{
	init_idle(cpu);
}

void might_sleep_check(const char *what)
{
	struct cpu *c = this_cpu();

	rcu_note_task_qs(current);
	if (unlikely(c->irq_depth))
		panic("BUG: %s() called from an interrupt handler", what);
	if (unlikely(current->rcu_callback))
		rcu_callback_might_sleep(what);
	if (unlikely(current->rcu_read_lock_nesting > 0))
		panic("BUG: Illegal context switch in RCU read-side critical section: "
		      "%s() inside rcu_read_lock() (nesting depth %d)",
		      what, current->rcu_read_lock_nesting);
	if (unlikely(c->locks_held))
		panic("BUG: scheduling while atomic: %s() with %d spinlock%s held",
		      what, c->locks_held, c->locks_held == 1 ? "" : "s");
	if (unlikely(arch_irqs_disabled()))
		panic("BUG: scheduling while atomic: %s() with interrupts disabled", what);
	if (unlikely(preempt_count()))
		panic("BUG: scheduling while atomic: %s() with preemption disabled", what);
}

/* Queues t on cpu's run queue; called with that queue's lock held. */
bool enqueue_locked(struct rq *rq, struct task_struct *t, int cpu)
{
	t->cpu = cpu;
	t->state = TASK_RUNNING;
	t->enqueued_ns = ktime_get_ns();
	list_add_tail(&t->run_node, &rq->queue);
	rq->nr_queued++;
	rq->need_resched = true;
	if (rq->curr != rq->idle && !rq->curr->user)
		return false;	/* the running task will switch to it in time */
	/*
	 * An idle CPU may be halted: another CPU sends it an IPI to look at
	 * its queue again.  Its own idle loop (or an interrupt it took) gets
	 * none, so the loop must look again before halting (cpu_idle_loop()).
	 * A user thread may spin in user mode: the IPI makes it switch at
	 * the interrupt's return (exit_to_user_mode()), instead of at the
	 * next tick.  On this CPU, its way back to user mode looks anyway.
	 */
	if (cpu == smp_processor_id()) {
		rq->unannounced = true;
		return false;
	}
	return true;
}

/* Wakes cpu's idle loop: it looks at its queue again (cpu_idle_loop()). */
void kick_cpu(int cpu)
{
	trace_record_sched(TR_KICK, cpu);
	arch_send_ipi(cpu, IPI_RESCHEDULE);
}

void enqueue_on(struct task_struct *t, int cpu)
{
	struct rq *rq;
	unsigned long flags;
	bool kick;

	for (;;) {
		rq = &runqueues[cpu];
		spin_lock_irqsave(&rq->lock, flags);
		if (!rq->offline && !(rq->dying && !t->per_cpu &&
				      rcu_injected(RCU_INJECT_DYING_REDIRECTS)))
			break;	/* (fault injection dying_redirects: a dying CPU counts as gone) */
		if (t->per_cpu) {
			/* Parked with its CPU: sched_cpu_unpark() wakes it. */
			t->cpu = cpu;
			t->state = TASK_BLOCKED;
			t->park_wakeup = true;
			spin_unlock_irqrestore(&rq->lock, flags);
			return;
		}
		spin_unlock_irqrestore(&rq->lock, flags);
		cpu = fallback_cpu(cpu);	/* it went down: somewhere else */
	}
	kick = enqueue_locked(rq, t, cpu);
	spin_unlock_irqrestore(&rq->lock, flags);
	if (kick)
		kick_cpu(cpu);
}

/*
 * Runs on the task switched to, with this CPU's run-queue lock still held
 * by the task switched away from: releases it, then deals with that task,
 * which is now fully off this CPU.
 */
void finish_task_switch(void)
{
	struct rq *rq = this_rq();
	struct task_struct *prev = rq->prev;

	rq->prev = NULL;
	spin_unlock(&rq->lock);
	if (!prev)
		return;
	if (prev->migrate_to >= 0)
		finish_run_on(prev);
	else if (prev->state == TASK_DEAD)
		complete(&prev->exited);	/* kthread_stop() may free it now */
}

static struct task_struct *pick_next(struct rq *rq)
{
	struct task_struct *next;

	rq->unannounced = false;	/* the queue is being served */
	if (rq->dying) {
		/* Going down: only per-CPU threads run; sched_cpu_dying() sends the rest on. */
		list_for_each_entry(next, &rq->queue, run_node) {
			if (next->per_cpu) {
				list_del(&next->run_node);
				rq->nr_queued--;
				return next;
			}
		}
		return rq->idle;
	}
	if (list_empty(&rq->queue))
		return rq->idle;
	next = list_first_entry(&rq->queue, struct task_struct, run_node);
	list_del(&next->run_node);
	rq->nr_queued--;
	return next;
}

/* A direct switch to next (IPC's), counted and traced; rq->lock held. */
static void note_direct_switch(struct rq *rq, struct task_struct *next)
{
	rq->nr_direct_switches++;
	trace_record(TR_DIRECT, next->pid, 0);
}

/*
 * The thread schedule_to() hands the CPU to, rq->lock held; NULL: none,
 * or it cannot take it -- a kill woke it meanwhile (it is queued, or
 * running already), or the CPU is going down (it is queued the ordinary
 * way, here, as wake_up_process() would).  ipc_complete_locked() chose a
 * thread blocked on this CPU, and a blocked task does not move: one
 * found elsewhere would sleep for ever, so it is a bug, named.
 */
static struct task_struct *take_handoff(struct rq *rq)
{
	struct task_struct *next = rq->handoff;

	if (!next)
		return NULL;
	rq->handoff = NULL;
	if (next->state != TASK_BLOCKED)
		return NULL;
	if (WARN_ON_ONCE(next->cpu != smp_processor_id() || rq->curr == next))
		return NULL;
	if (rq->dying) {
		enqueue_locked(rq, next, smp_processor_id());
		return NULL;
	}
	next->state = TASK_RUNNING;
	note_direct_switch(rq, next);
	return next;
}

/*
 * Switches from prev to next, rq->lock held, interrupts off: what every
 * switch does once it knows next.  Returns when prev runs again (perhaps
 * on another CPU), with the lock released (finish_task_switch()).
 */
static void context_switch(struct rq *rq, struct task_struct *prev, struct task_struct *next)
{
	trace_record(TR_SWITCH, prev->pid, next->pid);
	rq->prev = prev;
	rq->curr = next;
	rq->nr_switches++;
	rq->last_switch_ns = ktime_get_ns();	/* (the stall reports' "since") */
	next->switches++;
	this_cpu()->curr_task = next;
	this_cpu()->task_name = next->comm;
	user_context_switch(next);	/* its address space, its kernel stack for entries */
	arch_switch_to(&prev->sp, next->sp);
	/* prev runs again here, perhaps on another CPU. */
	finish_task_switch();
}

void __schedule(void)
{
	struct task_struct *prev = current, *next;
	unsigned long flags;
	struct rq *rq;

	/*
	 * The quiescent state: prev is outside every RCU read-side critical
	 * section (might_sleep_check() made sure).  Reported before taking
	 * the run-queue lock, because ending a grace period wakes tasks.
	 */
	rcu_note_context_switch();

	local_irq_save(flags);
	rq = this_rq();
	spin_lock(&rq->lock);
	/*
	 * [schedule_mb] pairs [schedule_mb], [cpu_offline_mb], [fast_switch_mb],
	 * [membarrier_end_mb]: a full barrier, as Linux has after taking the
	 * run-queue lock
	 * (smp_mb__after_spinlock()).  Every
	 * access of the code that ran here before (an RCU reader's loads
	 * included) is ordered before whatever the next task does, on this
	 * CPU or -- through the lock hand-over in finish_task_switch() and
	 * enqueue_on() -- on the CPU a migrating task moves to.  A
	 * synchronize_rcu() tour passes through this barrier on every CPU it
	 * visits, each pairing with the one on the CPU it came from; without
	 * them the updater's kfree() could overtake a reader's loads on a
	 * CPU it visited.  Lock plus unlock alone is not a full barrier on
	 * AArch64.  IPC's direct switch (schedule_to()) passes here too.
	 * So does membarrier() (kernel/user/membarrier.c): prev's accesses
	 * in its address space are visible before switch_mm() says this CPU
	 * runs another; the switch's other half, a full barrier after that
	 * store and before next runs, is [switch_mm_mb] (kernel/user/tlb.c):
	 * this one is on the wrong side of it.
	 */
	smp_mb();
	if (prev != rq->idle && prev->state == TASK_RUNNING && prev->migrate_to < 0) {
		if (rq->dying && !prev->per_cpu) {
			/* This CPU is going down: prev moves (finish_task_switch()). */
			prev->migrate_to = fallback_cpu(smp_processor_id());
		} else {
			list_add_tail(&prev->run_node, &rq->queue);	/* round-robin: to the back */
			rq->nr_queued++;
		}
	}
	next = take_handoff(rq);
	if (!next) {
		next = pick_next(rq);
		rq->need_resched = false;	/* (not after a handoff: the queue still waits) */
	}
	next->run_on_hop = false;	/* it runs: a hop that queued it has arrived */
	if (next == prev) {
		spin_unlock(&rq->lock);
		local_irq_restore(flags);
		return;
	}
	context_switch(rq, prev, next);
	local_irq_restore(flags);
}

/*
 * IPC's direct switch (the general wait, ipc_wait() in
 * kernel/object/thread.c, for the partner ipc.c made ready): next, a thread blocked on
 * this CPU whose IPC the caller just completed, runs now in place of the
 * caller, which blocks for the answer -- without a trip through the run
 * queue, as L4's and seL4's IPC fast paths hand the CPU to the receiver.
 * It is __schedule() with another choice of next, so it is a context
 * switch in every way RCU counts on: rcu_note_context_switch() reports
 * the quiescent state, [schedule_mb] orders what ran here before
 * whatever next does, and rq->curr changes, so run_on()'s argument (a
 * task that runs on a CPU came after every reader that CPU ran before)
 * holds for direct switches too.  The tasks waiting in the run queue are
 * not passed over for long: need_resched() stays set, so next gives up
 * the CPU at its return to user mode if any wait.  PREEMPT=1 never gets
 * here (ipc_complete_locked(): a preempted caller could let next run and
 * exit first).
 */
void schedule_to(struct task_struct *next)
{
	might_sleep_check("schedule_to");
	this_rq()->handoff = next;	/* (only this CPU's running task sets or takes it) */
	__schedule();
}

/*
 * IPC's fast path (kernel/user/fastpath.c): schedule_to(next) for a
 * caller that comes straight from its system call's entry, interrupts
 * still off, holding nothing, and has marked itself TASK_BLOCKED: it
 * made next -- blocked on this CPU -- ready, and waits for its answer.
 * The same switch, everything it keeps kept (the quiescent state and
 * [schedule_mb] in one barrier, the direct switch counted and traced,
 * rq->curr and the switch's time, next's address space and kernel stack
 * for entries, run_on()'s hop), and what the fast path cannot meet left
 * out: might_sleep_check() (nothing is held, by construction), the run
 * queue (next is the one), the interrupt flag (it stays off until the
 * return to user mode).  When the switch owes more than that it changes
 * nothing and returns false, and the caller takes the general way
 * (ipc_wait(), which calls schedule_to()):
 *   - a grace period, or an expedited one, waits for this CPU's quiescent
 *     state: the report takes rcu_state.lock and may wake tasks, which
 *     it must not do under the run-queue lock;
 *   - this CPU is going down (rq->dying): its tasks move elsewhere;
 *   - next is no longer blocked (a kill woke it and queued it), or the
 *     caller is killed: its wait must end with -EINTR.
 * A caller woken meanwhile (a partner on another CPU completed it) does
 * not block: it goes to the back of the run queue, as in __schedule().
 * True once the caller runs again, interrupts still off.
 */
bool schedule_to_fast(struct task_struct *next)
{
	struct task_struct *prev = current;
	struct rq *rq = this_rq();

	spin_lock(&rq->lock);
	/*
	 * [fast_switch_mb] pairs [schedule_mb], [cpu_offline_mb],
	 * [membarrier_end_mb], [task_kill_mb], [task_exit_mb],
	 * [thread_kill_mb]: as [schedule_mb], what ran here before (an RCU reader's loads
	 * included) is ordered before whatever next does, here or -- through
	 * the run-queue locks -- on a CPU a task moves to; a tour's run_on()
	 * argument holds across this switch too.  It also stands where
	 * [cs_qs_mb] stands in rcu_note_context_switch(), before the look at
	 * whether a grace period waits for this CPU; when one does, this
	 * switch reports nothing and the general way reports, after its own
	 * [cs_qs_mb].  And it stands where [ipc_sleep_mb] stands in
	 * ipc_wait(): prev marked itself blocked (ipc_mark_blocked()) before
	 * we read its kill, which the killer stores before its wake-up reads
	 * prev's state -- a kill is seen here or prev is woken
	 * (tools/model/armv8/fast_kill.wmm).
	 */
	smp_mb();
	if (unlikely(rcu_qs_wanted() || rq->dying || next->state != TASK_BLOCKED ||
		     fatal_signal_pending(prev))) {
		spin_unlock(&rq->lock);
		return false;
	}
	if (prev->state == TASK_RUNNING) {	/* woken already: it does not block */
		list_add_tail(&prev->run_node, &rq->queue);
		rq->nr_queued++;
	}
	rcu_note_task_qs(prev);
	next->state = TASK_RUNNING;
	next->run_on_hop = false;
	note_direct_switch(rq, next);
	context_switch(rq, prev, next);
	return true;
}

void schedule(void)
{
	might_sleep_check("schedule");
	__schedule();
}

/*
 * Should the running task give up the CPU at its next chance?  Set when a
 * task joins this CPU's queue or the tick ends a slice with others
 * waiting, cleared when the CPU picks its next task.  Only the return to
 * user mode asks (kernel/user/entry.c): the kernel is not preempted.
 * (Not "is anyone queued": two threads that asked that on their way back
 * to user mode would hand the CPU to each other for ever.)
 */
bool need_resched(void)
{
	struct rq *rq = this_rq();	/* (once: each this_rq() reads the CPU's pointer again) */

	return READ_ONCE(rq->need_resched) || READ_ONCE(rq->dying);
}

void cond_resched(void)
{
	might_sleep_check("cond_resched");
	/* (on a CPU going down, yielding is how a task moves off it) */
	if (READ_ONCE(this_rq()->nr_queued) || READ_ONCE(this_rq()->dying))
		__schedule();
	else
		rcu_note_context_switch();	/* always a quiescent state */
}

bool wake_up_process(struct task_struct *t)
{
	unsigned long flags;
	struct rq *rq;
	bool kick = false;
	int cpu;

	/* A blocked task does not move, so t->cpu is stable once we hold its lock. */
	for (;;) {
		cpu = READ_ONCE(t->cpu);
		rq = &runqueues[cpu];
		spin_lock_irqsave(&rq->lock, flags);
		/*
		 * [wake_up_mb] pairs [rcuc_sleep_mb]: the waker's condition
		 * store (made before calling us) is visible before we read the
		 * task's state, as a sleeper sets its state before reading the
		 * condition: one of us sees the other, never neither (a
		 * wake-up lost while the task sleeps on work that is there).
		 * Taking a lock is only an acquire: Linux's
		 * smp_mb__after_spinlock() makes it a full barrier.  (A
		 * store-then-load reordering TCG on an x86-64 host cannot show
		 * for an AArch64 guest: no test fails without it.)
		 */
		smp_mb__after_spinlock();
		if (READ_ONCE(t->cpu) == cpu)
			break;
		spin_unlock_irqrestore(&rq->lock, flags);
	}
	if (t->state != TASK_BLOCKED) {
		spin_unlock_irqrestore(&rq->lock, flags);
		return false;
	}
	if (!list_empty(&t->sleep_node))
		list_del_init(&t->sleep_node);
	if (rq->offline) {
		/*
		 * t's CPU is down.  A per-CPU thread stays parked and runs
		 * again when its CPU comes back (sched_cpu_unpark()); any
		 * other task is claimed (running: another waker leaves it
		 * alone) and goes to a CPU that is up.
		 */
		if (t->per_cpu)
			t->park_wakeup = true;
		else
			t->state = TASK_RUNNING;
		spin_unlock_irqrestore(&rq->lock, flags);
		if (!t->per_cpu)
			enqueue_on(t, fallback_cpu(cpu));
		return true;
	}
	if (rq->curr == t)
		t->state = TASK_RUNNING;	/* not switched out yet: schedule() keeps it */
	else
		kick = enqueue_locked(rq, t, cpu);
	spin_unlock_irqrestore(&rq->lock, flags);
	if (kick)
		kick_cpu(cpu);
	return true;
}

/*
 * Checking build: just before halting, counts the halts with a task that
 * this CPU queued for itself while idle and that no IPI will announce:
 * it would wait for the next interrupt (a tick, 10 ms).
 */
static void note_halt(struct rq *rq)
{
	if (CONFIG_RCU_CHECKING && rq->unannounced)
		WRITE_ONCE(rq->halts_with_work, rq->halts_with_work + 1);
}

/*
 * Checking build: on the way back to user mode, interrupts off, counts the
 * returns that leave a task this CPU queued for itself, which no IPI
 * announces: it would wait for the next interrupt (exit_to_user_mode()).
 */
void sched_note_user_return(void)
{
	struct rq *rq = this_rq();

	if (CONFIG_RCU_CHECKING && rq->unannounced)
		WRITE_ONCE(rq->user_returns_with_work, rq->user_returns_with_work + 1);
}

/* The idle task: run what is queued, else halt until an interrupt. */
void cpu_idle_loop(void)
{
	struct rq *rq = this_rq();

	for (;;) {
		local_irq_disable();
		if (READ_ONCE(rq->dying)) {
			local_irq_enable();
			sched_cpu_dying(rq);	/* returns with interrupts off */
			cpu_die();	/* kernel/hotplug.c: does not return */
		}
		if (READ_ONCE(rq->nr_queued)) {
			local_irq_enable();
			schedule();
			continue;
		}
		rcu_idle_enter();
		/*
		 * rcu_idle_enter() may have ended a grace period and woken this
		 * CPU's rcuc, and an enqueue on one's own CPU sends no IPI: look
		 * again, interrupts still off, before halting (Linux's idle loop
		 * checks need_resched with interrupts off for the same reason).
		 */
		if (READ_ONCE(rq->nr_queued)) {
			rcu_idle_exit();
			local_irq_enable();
			continue;
		}
		note_halt(rq);
		trace_record_sched(TR_HALT, 0);
		/* sti;hlt: an IPI sent after the check above still wakes us. */
		arch_wait_for_interrupt();
		trace_record_sched(TR_UNHALT, 0);
		local_irq_disable();
		rcu_idle_exit();
		local_irq_enable();
	}
}

bool sched_cpu_idle(int cpu) { return READ_ONCE(runqueues[cpu].curr) == &idle_tasks[cpu]; }

/*
 * PREEMPT=1 (kernel/preempt.h), at the return of an interrupt that
 * interrupted task code.  Not a task that is blocking: it set its state
 * and is about to call schedule() (the sleeper's half of a wake-up), and
 * switching it out now would put it to sleep before it saw its condition.
 */
bool __preempt_wanted(void)
{
	struct cpu *c = this_cpu();
	struct task_struct *t = c->curr_task;
	bool tick = c->preempt_tick;

	c->preempt_tick = false;
	return tick && t && c->preempt_count == 0 && c->irq_depth == 0 &&
	       t != this_rq()->idle && t->state == TASK_RUNNING && t->migrate_to < 0 &&
	       READ_ONCE(this_rq()->nr_queued) > 0;
}

void preempt_schedule_irq(void)
{
	this_cpu()->preemptions++;
	__schedule();	/* round-robin: t goes to the back of this CPU's queue */
}
