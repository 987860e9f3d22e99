/* Spinlocks: mutual exclusion with every CPU hammering one counter. */
#include "ktest.h"
#include "irq.h"	/* irq_work: code in an interrupt handler */

/*
 * 4000 lock rounds in all, shared by the CPUs: a contended ticket lock is
 * slow under TCG when vCPUs outnumber host cores (a waiter whose vCPU is
 * descheduled stalls the queue), so more CPUs get fewer rounds each.
 */
#define TOTAL_ROUNDS 4000

static DEFINE_SPINLOCK(counter_lock);
static unsigned long counter;
static atomic_t finished, arrived;

/*
 * Load, a pause, then store: without the lock two CPUs interleave here
 * and one's increment is lost.
 */
static void hammer(void *info)
{
	int rounds = TOTAL_ROUNDS / num_online_cpus();

	(void)info;
	/* Start together, so the CPUs really contend. */
	atomic_inc(&arrived);
	while (atomic_read(&arrived) < num_online_cpus())
		cpu_relax();
	for (int i = 0; i < rounds; i++) {
		unsigned long v;

		spin_lock(&counter_lock);
		v = READ_ONCE(counter);
		for (int k = 0; k < 100; k++)
			barrier();
		WRITE_ONCE(counter, v + 1);
		spin_unlock(&counter_lock);
	}
	atomic_inc(&finished);
}

KTEST(spinlock_counts_every_cpu)
{
	counter = 0;
	atomic_set(&finished, 0);
	atomic_set(&arrived, 0);
	on_each_cpu(hammer, NULL, true);
	KEXPECT_EQ(atomic_read(&finished), num_online_cpus());
	KEXPECT_EQ(counter, (unsigned long)(TOTAL_ROUNDS / num_online_cpus()) * num_online_cpus());
}

KTEST(spinlock_trylock_fails_while_held)
{
	static DEFINE_SPINLOCK(l);

	KEXPECT(spin_trylock(&l));
	KEXPECT(spin_is_locked(&l));
	KEXPECT(lockdep_is_held(&l));
	spin_unlock(&l);
	KEXPECT(!spin_is_locked(&l));
	KEXPECT(!lockdep_is_held(&l));
	spin_lock(&l);
	KEXPECT(!spin_trylock(&l) || (spin_unlock(&l), false));
	spin_unlock(&l);
}

KTEST(spinlock_irqsave_restores_interrupt_state)
{
	static DEFINE_SPINLOCK(l);
	unsigned long flags;

	KASSERT(!irqs_disabled());
	spin_lock_irqsave(&l, flags);
	KEXPECT(irqs_disabled());
	spin_unlock_irqrestore(&l, flags);
	KEXPECT(!irqs_disabled());
}

/*
 * Exclusion shown by events, not by luck.  The counter test above needs
 * two CPUs inside the loop at the same moment, which a loaded host may
 * never schedule.  Here CPU A holds the lock and does not let go until a
 * worker on another CPU has taken its ticket and then answered
 * PINGS_WHILE_WAITING function-call IPIs: each answer proves the worker's
 * vCPU ran after it asked for the lock, and a lock that excludes nothing
 * lets the worker in within a few instructions of its ticket.
 */
#define EXCLUSION_ROUNDS	5
#define PINGS_WHILE_WAITING	20

static DEFINE_SPINLOCK(exclusion_lock);
static atomic_t worker_go, worker_inside;

static int take_exclusion_lock(void *unused)
{
	(void)unused;
	while (!atomic_read(&worker_go))
		msleep(1);
	spin_lock(&exclusion_lock);
	atomic_set(&worker_inside, 1);
	spin_unlock(&exclusion_lock);
	while (!kthread_should_stop())
		msleep(1);
	return 0;
}

static void ping(void *info)
{
	(void)info;
}

KTEST(spinlock_excludes_a_waiting_cpu)
{
	struct workers w;
	int cpu;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs a second CPU to wait for the lock");
	worker_cpus(&cpu, 1);
	for (int round = 0; round < EXCLUSION_ROUNDS; round++) {
		bool entered_while_held;
		u64 deadline;

		atomic_set(&worker_go, 0);
		atomic_set(&worker_inside, 0);
		KASSERT(workers_start_on(&w, &cpu, 1, take_exclusion_lock, NULL, 0, "excl"));
		spin_lock(&exclusion_lock);
		KEXPECT(!spin_is_contended(&exclusion_lock));	/* only our ticket is out */
		deadline = ktime_get_ns() + ktest_budget_ns(10, 1);
		atomic_set(&worker_go, 1);
		while (!spin_is_contended(&exclusion_lock) && !atomic_read(&worker_inside) &&
		       ktime_get_ns() < deadline)
			cpu_relax();
		/* The worker's ticket is seen, unless a broken lock let it in. */
		KEXPECT(spin_is_contended(&exclusion_lock) || atomic_read(&worker_inside));
		for (int i = 0; i < PINGS_WHILE_WAITING && !atomic_read(&worker_inside); i++)
			smp_call_function_single(cpu, ping, NULL, true);
		entered_while_held = atomic_read(&worker_inside);
		spin_unlock(&exclusion_lock);
		/*
		 * Judged before the worker is stopped: a spin_lock() that let
		 * it in may fail other locks too, and stopping a thread needs
		 * them.  A failed test leaves the worker msleep()ing (the
		 * runner reports its task as a leaked object) rather than
		 * risk a hang after the verdict: a hang there cost 150 s.
		 */
		KASSERT(!entered_while_held);
		workers_stop(&w);
		KEXPECT_EQ(atomic_read(&worker_inside), 1);
	}
}

/*
 * lockdep_is_held() answers for the code that asks: an interrupt handler
 * on the CPU whose task holds the lock does not hold it (it would pass an
 * rcu_dereference_check() it should fail).
 */
static DEFINE_SPINLOCK(held_by_task);
static int handler_saw_held = -1;

static void ask_in_handler(struct irq_work *work)
{
	(void)work;
	WRITE_ONCE(handler_saw_held, lockdep_is_held(&held_by_task));
}

KTEST(spinlock_lockdep_is_held_is_per_context)
{
	static struct irq_work w = { .func = ask_in_handler, .lazy = true };
	u64 end = ktime_get_ns() + ktest_budget_ns(10, 1);

	handler_saw_held = -1;
	spin_lock(&held_by_task);	/* interrupts stay on: the tick comes */
	KEXPECT(lockdep_is_held(&held_by_task));
	KASSERT(irq_work_queue_on(&w, smp_processor_id()));
	while (READ_ONCE(handler_saw_held) < 0 && ktime_get_ns() < end)
		cpu_relax();
	spin_unlock(&held_by_task);
	KEXPECT_EQ(READ_ONCE(handler_saw_held), 0);
	KEXPECT(!lockdep_is_held(&held_by_task));
}
