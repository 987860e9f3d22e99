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
 */
#include "kernel.h"
#include "sched.h"
#include "cpu.h"
#include <errno.h>

struct rq {
	spinlock_t lock;
	struct list_head queue;		/* runnable tasks waiting for the CPU */
	int nr_queued;
	struct task_struct *curr;
	struct task_struct *idle;
	struct task_struct *prev;	/* switched away from; finish_task_switch() */
	struct list_head sleepers;	/* msleep() */
	u64 nr_switches;
	u64 last_switch_ns;
	bool unannounced;		/* queued by this CPU while idle: no IPI says so */
	bool dying;			/* remove_cpu(): its idle task takes it down */
	bool offline;			/* down: tasks go elsewhere, per-CPU threads park */
	unsigned long halts_with_work;	/* checking build: halted with `unannounced` set */
};

static struct rq runqueues[NR_CPUS];
static struct task_struct idle_tasks[NR_CPUS];
static LIST_HEAD(all_tasks);
static DEFINE_SPINLOCK(tasks_lock);
static atomic_t next_pid = ATOMIC_INIT(1);

static struct rq *this_rq(void)
{
	return &runqueues[smp_processor_id()];
}

static void add_to_task_list(struct task_struct *t)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	list_add_tail(&t->tasks, &all_tasks);
	spin_unlock_irqrestore(&tasks_lock, flags);
}

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
	arch_fpu_init(idle->fpu);
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

/*
 * Where a task goes when its CPU is going down or down: the next CPU that
 * is online and not going down (the boot CPU never goes, so there is one).
 */
static int fallback_cpu(int from)
{
	for (int i = 1; i <= NR_CPUS; i++) {
		int cpu = (from + i) % NR_CPUS;

		if (cpu_online(cpu) && !READ_ONCE(runqueues[cpu].dying))
			return cpu;
	}
	return 0;
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
static bool enqueue_locked(struct rq *rq, struct task_struct *t, int cpu)
{
	t->cpu = cpu;
	t->state = TASK_RUNNING;
	t->enqueued_ns = ktime_get_ns();
	list_add_tail(&t->run_node, &rq->queue);
	rq->nr_queued++;
	if (rq->curr != rq->idle)
		return false;	/* the running task will switch to it in time */
	/*
	 * An idle CPU may be halted: another CPU sends it an IPI to look at
	 * its queue again.  Its own idle loop (or an interrupt it took) gets
	 * none, so the loop must look again before halting (cpu_idle_loop()).
	 */
	if (cpu == smp_processor_id()) {
		rq->unannounced = true;
		return false;
	}
	return true;
}

/* Wakes cpu's idle loop: it looks at its queue again (cpu_idle_loop()). */
static void kick_cpu(int cpu)
{
	trace_record(TR_KICK, cpu, 0);
	arch_send_ipi(cpu, IPI_RESCHEDULE);
}

static void enqueue_on(struct task_struct *t, int cpu)
{
	struct rq *rq;
	unsigned long flags;
	bool kick;

	for (;;) {
		rq = &runqueues[cpu];
		spin_lock_irqsave(&rq->lock, flags);
		if (!rq->offline)
			break;
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
 * run_on()'s second half: prev asked to move to prev->migrate_to and is
 * now fully off this CPU (its registers saved, our lock released), so
 * the target may run it: queue it there.
 */
static void finish_run_on(struct task_struct *prev)
{
	int target = prev->migrate_to;

	prev->migrate_to = -1;
	/* Whatever runs on target now is what the hop will wait for. */
	trace_record(TR_HOP_QUEUE, target, prev->pid);
	enqueue_on(prev, target);	/* run_on(): now it may run there */
}

/*
 * Runs on the task switched to, with this CPU's run-queue lock still held
 * by the task switched away from: releases it, then deals with that task,
 * which is now fully off this CPU.
 */
static void finish_task_switch(void)
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

static void __schedule(void)
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
	 * [schedule_mb] pairs [schedule_mb], [cpu_offline_mb]: a full
	 * barrier, as Linux has after taking the run-queue lock
	 * (smp_mb__after_spinlock()).  Every
	 * access of the code that ran here before (an RCU reader's loads
	 * included) is ordered before whatever the next task does, on this
	 * CPU or -- through the lock hand-over in finish_task_switch() and
	 * enqueue_on() -- on the CPU a migrating task moves to.  A
	 * synchronize_rcu() tour passes through this barrier on every CPU it
	 * visits, each pairing with the one on the CPU it came from; without
	 * them the updater's kfree() could overtake a reader's loads on a
	 * CPU it visited.  Lock plus unlock alone is not a full barrier on
	 * AArch64.
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
	next = pick_next(rq);
	if (next == prev) {
		spin_unlock(&rq->lock);
		local_irq_restore(flags);
		return;
	}
	trace_record(TR_SWITCH, prev->pid, next->pid);
	rq->prev = prev;
	rq->curr = next;
	rq->nr_switches++;
	rq->last_switch_ns = ktime_get_ns();
	next->switches++;
	this_cpu()->curr_task = next;
	this_cpu()->task_name = next->comm;
	arch_fpu_save(prev->fpu);
	arch_fpu_restore(next->fpu);
	arch_switch_to(&prev->sp, next->sp);
	/* prev runs again here, perhaps on another CPU. */
	finish_task_switch();
	local_irq_restore(flags);
}

void schedule(void)
{
	might_sleep_check("schedule");
	__schedule();
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

int run_on(int cpu)
{
	might_sleep_check("run_on");
	if (!cpu_online(cpu))
		return -ENODEV;
	if (current == this_rq()->idle)
		panic("BUG: run_on(%d) from an idle task", cpu);
	if (current->per_cpu && cpu != smp_processor_id())
		panic("BUG: run_on(%d) from per-CPU thread %s: it belongs on CPU%d", cpu,
		      current->comm, smp_processor_id());
	if (cpu != smp_processor_id())
		current->migrate_to = cpu;
	__schedule();
	/*
	 * cpu went down while we were queued there (or ran there): its idle
	 * task sent us on after that CPU's last context switch
	 * (sched_cpu_dying()), so no reader it ran before is still running.
	 */
	if (smp_processor_id() != cpu)
		return -ENODEV;
	trace_record(TR_HOP, cpu, 0);
	return 0;
}

void msleep(unsigned int ms)
{
	u64 tick = NSEC_PER_SEC / HZ;
	u64 ticks = ((u64)ms * NSEC_PER_MSEC + tick - 1) / tick;
	struct task_struct *t = current;
	unsigned long flags;
	struct rq *rq;

	might_sleep_check("msleep");
	local_irq_save(flags);
	rq = this_rq();
	spin_lock(&rq->lock);
	t->wake_at_ns = ktime_get_ns() + ticks * tick;
	list_add_tail(&t->sleep_node, &rq->sleepers);
	t->state = TASK_BLOCKED;
	spin_unlock(&rq->lock);
	local_irq_restore(flags);
	__schedule();
}

/*
 * From the boot CPU's tick (it never goes down): the sleepers of CPUs that
 * are down have no tick of their own.  Each due sleeper is claimed under
 * its old queue's lock (running: a waker leaves it alone) and queued here;
 * a per-CPU thread stays parked until its CPU comes back.
 */
static void wake_offline_sleepers(u64 now)
{
	struct task_struct *t, *n;

	for (int cpu = 1; cpu < nr_cpu_ids; cpu++) {
		struct rq *rq = &runqueues[cpu];
		LIST_HEAD(due);

		if (!READ_ONCE(rq->offline))
			continue;
		spin_lock(&rq->lock);
		list_for_each_entry_safe(t, n, &rq->sleepers, sleep_node) {
			if (!rq->offline || t->wake_at_ns > now || t->state != TASK_BLOCKED)
				continue;
			list_del_init(&t->sleep_node);
			if (t->per_cpu) {
				t->park_wakeup = true;
				continue;
			}
			t->state = TASK_RUNNING;
			list_add_tail(&t->run_node, &due);
		}
		spin_unlock(&rq->lock);
		list_for_each_entry_safe(t, n, &due, run_node) {
			list_del(&t->run_node);
			enqueue_on(t, smp_processor_id());
		}
	}
}

/* From the timer tick: wakes this CPU's sleepers whose time has come. */
void sched_tick(void)
{
	struct rq *rq = this_rq();
	struct task_struct *t, *n;
	u64 now = ktime_get_ns();

	spin_lock(&rq->lock);
	list_for_each_entry_safe(t, n, &rq->sleepers, sleep_node) {
		if (t->wake_at_ns <= now && t->state == TASK_BLOCKED) {
			list_del_init(&t->sleep_node);
			if (rq->curr == t)
				t->state = TASK_RUNNING;
			else
				enqueue_locked(rq, t, rq->idle->cpu);
		}
	}
	spin_unlock(&rq->lock);
	if (smp_processor_id() == 0)
		wake_offline_sleepers(now);
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
 * remove_cpu() marked this CPU dying; its idle task takes it down.  From
 * then on a task that yields here moves to another CPU (__schedule()), and
 * only per-CPU threads are picked to run (pick_next()): we let them run
 * until they block, and send every other queued task on to a CPU that
 * stays (a run_on() to this CPU returns -ENODEV).  When the queue is
 * empty we mark it offline under its lock: from then on a task queued or
 * woken here goes to another CPU (enqueue_on(), wake_up_process()), and a
 * per-CPU thread parks.  The idle task runs only once the task before it
 * switched away, so every task we send on leaves after this CPU's last
 * context switch with a reader in it: a synchronize_rcu() tour sent on
 * has nothing more to wait for here.
 */
static void sched_cpu_dying(struct rq *rq)
{
	struct task_struct *t, *n;
	unsigned long flags;
	bool done;

	do {
		LIST_HEAD(leaving);

		spin_lock_irqsave(&rq->lock, flags);
		list_for_each_entry_safe(t, n, &rq->queue, run_node) {
			if (!t->per_cpu) {
				list_move_tail(&t->run_node, &leaving);
				rq->nr_queued--;
			}
		}
		done = !rq->nr_queued;
		if (done)
			rq->offline = true;
		spin_unlock_irqrestore(&rq->lock, flags);
		list_for_each_entry_safe(t, n, &leaving, run_node) {
			list_del(&t->run_node);
			enqueue_on(t, fallback_cpu(smp_processor_id()));
		}
		if (!done)
			schedule();	/* a per-CPU thread runs until it blocks */
	} while (!done);
}

/* remove_cpu(): the idle loop of cpu takes it down once it sees this. */
void sched_cpu_set_dying(int cpu)
{
	struct rq *rq = &runqueues[cpu];
	unsigned long flags;

	spin_lock_irqsave(&rq->lock, flags);
	rq->dying = true;
	spin_unlock_irqrestore(&rq->lock, flags);
	kick_cpu(cpu);	/* wake its idle loop */
}

bool sched_cpu_dying_now(int cpu)
{
	return READ_ONCE(runqueues[cpu].dying);
}

static void unpark_one(struct task_struct *t, void *arg)
{
	int cpu = *(int *)arg;

	if (t->per_cpu && t->cpu == cpu && READ_ONCE(t->park_wakeup)) {
		WRITE_ONCE(t->park_wakeup, false);
		wake_up_process(t);
	}
}

/* add_cpu(): cpu is up again; its per-CPU threads woken meanwhile run now. */
void sched_cpu_unpark(int cpu)
{
	for_each_task(unpark_one, &cpu);
}

/* The idle task: run what is queued, else halt until an interrupt. */
void cpu_idle_loop(void)
{
	struct rq *rq = this_rq();

	for (;;) {
		local_irq_disable();
		if (READ_ONCE(rq->dying)) {
			local_irq_enable();
			sched_cpu_dying(rq);
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
		trace_record(TR_HALT, 0, 0);
		/* sti;hlt: an IPI sent after the check above still wakes us. */
		arch_wait_for_interrupt();
		trace_record(TR_UNHALT, 0, 0);
		local_irq_disable();
		rcu_idle_exit();
		local_irq_enable();
	}
}

/* Kernel threads. */
static void __noreturn kthread_exit(int code)
{
	struct task_struct *t = current;

	if (t->rcu_read_lock_nesting)
		panic("BUG: kthread %s returned inside rcu_read_lock() (nesting %d)",
		      t->comm, t->rcu_read_lock_nesting);
	srcu_check_task_exit(t);
	t->exit_code = code;
	t->state = TASK_DEAD;
	__schedule();
	panic("BUG: dead task %s ran again", t->comm);
}

static void __noreturn task_entry(void)
{
	struct task_struct *t;

	finish_task_switch();
	local_irq_enable();
	t = current;
	kthread_exit(t->threadfn(t->data));
}

static struct task_struct *kthread_create(int (*fn)(void *data), void *data,
					  unsigned int cpu, const char *name, bool per_cpu)
{
	struct task_struct *t;

	if (!cpu_online(cpu))
		return NULL;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	t->stack = kernel_stack_alloc(THREAD_PAGES);
	if (!t->stack) {
		kfree(t);
		return NULL;
	}
	t->threadfn = fn;
	t->data = data;
	t->per_cpu = per_cpu;
	t->pid = atomic_inc_return_relaxed(&next_pid);	/* a name, orders nothing */
	t->migrate_to = -1;
	t->cpu = cpu;
	t->state = TASK_BLOCKED;
	strncpy(t->comm, name, sizeof(t->comm) - 1);
	INIT_LIST_HEAD(&t->sleep_node);
	init_completion(&t->exited);
	arch_fpu_init(t->fpu);
	t->sp = arch_task_stack_init((char *)t->stack + (THREAD_PAGES + 1) * PAGE_SIZE,
				     (void (*)(void))task_entry);
	add_to_task_list(t);
	enqueue_on(t, cpu);
	return t;
}

/* A thread that starts on cpu and moves elsewhere if cpu goes down. */
struct task_struct *kthread_run_on_cpu(int (*fn)(void *data), void *data,
				       unsigned int cpu, const char *name)
{
	return kthread_create(fn, data, cpu, name, false);
}

/* A per-CPU thread (rcuc/N): parks while cpu is down, runs again when it is back. */
struct task_struct *kthread_run_percpu(int (*fn)(void *data), void *data,
				       unsigned int cpu, const char *name)
{
	return kthread_create(fn, data, cpu, name, true);
}

/*
 * Kernel stacks: `pages` usable pages above one unmapped guard page, so
 * an overflow faults instead of silently overwriting whatever lies below.
 * Returns the guard page's address (the stack starts one page above).
 */
void *kernel_stack_alloc(size_t pages)
{
	void *base = page_alloc(pages + 1);

	if (base)
		arch_stack_guard(base, true);
	return base;
}

void kernel_stack_free(void *base, size_t pages)
{
	arch_stack_guard(base, false);
	page_free(base, pages + 1);
}

/* Is addr in the guard page of this CPU's current stack? */
bool stack_guard_hit(uintptr_t addr)
{
	struct task_struct *t = current;
	uintptr_t page = ALIGN_DOWN(addr, PAGE_SIZE);

	return (t && t->stack && page == (uintptr_t)t->stack) ||
	       page == this_cpu()->stack_guard;
}

bool kthread_should_stop(void)
{
	return READ_ONCE(current->should_stop);
}

int kthread_stop(struct task_struct *t)
{
	unsigned long flags;
	int ret;

	might_sleep_check("kthread_stop");
	WRITE_ONCE(t->should_stop, true);
	wake_up_process(t);
	wait_for_completion(&t->exited);
	ret = t->exit_code;
	spin_lock_irqsave(&tasks_lock, flags);
	list_del(&t->tasks);
	spin_unlock_irqrestore(&tasks_lock, flags);
	kernel_stack_free(t->stack, THREAD_PAGES);
	kfree(t);
	return ret;
}

/* Reports. */
int sched_nr_running(int cpu) { return READ_ONCE(runqueues[cpu].nr_queued); }
struct task_struct *sched_curr(int cpu) { return READ_ONCE(runqueues[cpu].curr); }
u64 sched_nr_switches(int cpu) { return READ_ONCE(runqueues[cpu].nr_switches); }
u64 sched_last_switch_ns(int cpu) { return READ_ONCE(runqueues[cpu].last_switch_ns); }
/* When the task waiting longest in cpu's queue was queued (0: none); for stall reports. */
u64 sched_oldest_waiter_ns(int cpu)
{
	struct rq *rq = &runqueues[cpu];
	u64 since = 0;

	if (!spin_trylock(&rq->lock))
		return 0;	/* busy: look again at the next check */
	if (!list_empty(&rq->queue))
		since = max(list_first_entry(&rq->queue, struct task_struct, run_node)->enqueued_ns,
			    rq->last_switch_ns);
	spin_unlock(&rq->lock);
	return since;
}

bool sched_cpu_idle(int cpu) { return READ_ONCE(runqueues[cpu].curr) == &idle_tasks[cpu]; }

/* Checking build: halts with a task queued that no IPI announced (note_halt()). */
unsigned long sched_idle_halts_with_work(void)
{
	unsigned long n = 0;
	int cpu;

	for_each_online_cpu(cpu)
		n += READ_ONCE(runqueues[cpu].halts_with_work);
	return n;
}

void for_each_task(void (*fn)(struct task_struct *t, void *arg), void *arg)
{
	unsigned long flags;
	struct task_struct *t;

	spin_lock_irqsave(&tasks_lock, flags);
	list_for_each_entry(t, &all_tasks, tasks)
		fn(t, arg);
	spin_unlock_irqrestore(&tasks_lock, flags);
}

void sched_show_cpu(int cpu)
{
	struct rq *rq = &runqueues[cpu];
	struct task_struct *t;
	unsigned long flags;

	char line[256];
	int n;

	spin_lock_irqsave(&rq->lock, flags);
	n = snprintf(line, sizeof(line), "CPU%d: current %s (pid %d), %llu switches, queue:",
		     cpu, rq->curr->comm, rq->curr->pid, (unsigned long long)rq->nr_switches);
	list_for_each_entry(t, &rq->queue, run_node)
		if (n < (int)sizeof(line))
			n += snprintf(line + n, sizeof(line) - n, " %s", t->comm);
	spin_unlock_irqrestore(&rq->lock, flags);
	printk("%s%s\n", line, rq->nr_queued ? "" : " (empty)");
}

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
