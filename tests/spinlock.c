/* Spinlocks: mutual exclusion with every CPU hammering one counter. */
#include "ktest.h"

/*
 * 8000 lock rounds in all, shared by the CPUs: a contended ticket lock is
 * slow under TCG when vCPUs outnumber host cores (a waiter whose vCPU is
 * descheduled stalls the queue), so more CPUs get fewer rounds each.
 */
#define TOTAL_ROUNDS 8000

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
