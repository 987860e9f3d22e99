/*
 * Ticket spinlocks.  spin_lock() takes the next ticket with one atomic
 * add and waits until `owner` reaches it; spin_unlock() serves the next
 * ticket.  Fair: CPUs get the lock in the order they asked for it.
 */
#include "kernel.h"

/*
 * spinlock.inject=broken proves the spinlock tests can fail: a CPU that
 * waits for a lock with interrupts on stops waiting.  Only those: the
 * scheduler, sleep and completion locks are taken with interrupts off,
 * and breaking them too crashed the kernel before the test could judge
 * (about one boot in 40), which shows nothing about the test.
 */
static bool inject_broken;
KPARAM_FLAG("spinlock.inject", "broken", inject_broken,
	    "locks taken with interrupts on stop excluding: a fault to catch");

void spin_lock_init(spinlock_t *lock)
{
	*lock = (spinlock_t)__SPIN_LOCK_UNLOCKED(lock);
}

static void check_recursion(spinlock_t *lock, const struct cpu *c)
{
	if (unlikely(READ_ONCE(lock->holder) == c->id))
		panic("BUG: spinlock recursion on CPU%d: lock '%s' is already held by this CPU",
		      c->id, lock->name ? lock->name : "?");
}

/*
 * We hold lock now: for recursion checks, might_sleep_check(), the no-lock
 * proof (smp.h).  c is this CPU, read once by the caller: its lock or
 * preempt_disable() keeps us here (an IPC round trip takes eight locks).
 */
static void note_acquired(spinlock_t *lock, struct cpu *c)
{
	int depth = c->irq_depth;

	lock->holder_irq_depth = depth;
	WRITE_ONCE(lock->holder, c->id);
	c->locks_held++;
	if (!depth)
		c->task_locks_taken++;
}

void spin_lock(spinlock_t *lock)
{
	unsigned int ticket;
	struct cpu *c;

	preempt_disable();	/* PREEMPT=1: no preemption holding or waiting for a ticket */
	c = this_cpu();
	check_recursion(lock, c);
	ticket = __atomic_fetch_add(&lock->next, 1, __ATOMIC_RELAXED);
	/*
	 * [lock_acquire] pairs [unlock_release]: the load that sees our
	 * ticket served reads the previous holder's unlock, so everything it
	 * did inside the lock is visible to our critical section.
	 */
	while (__atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE) != ticket) {
		if (unlikely(inject_broken) && !arch_irqs_disabled())
			break;
		cpu_relax();
	}
	note_acquired(lock, c);
}

bool spin_trylock(spinlock_t *lock)
{
	unsigned int owner;

	preempt_disable();
	/*
	 * [trylock_acquire] pairs [unlock_release]: the acquire belongs on
	 * the load that sees the last unlock's store to `owner`; an acquire
	 * on `next`, which only lockers write, would synchronise with no
	 * unlock, and the critical section could read what the previous
	 * holder wrote before it was visible here (AArch64; TCG cannot show it).
	 */
	owner = __atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE);

	/*
	 * Take the ticket only if it would be served at once: `next` still
	 * equal to the `owner` we saw means nobody holds or waits for the
	 * lock, so that unlock was the last one.  Relaxed: the acquire above
	 * already orders the critical section, and the compare-and-swap
	 * alone decides which of two trylockers gets the ticket.
	 */
	if (!__atomic_compare_exchange_n(&lock->next, &owner, owner + 1, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		preempt_enable();
		return false;
	}
	note_acquired(lock, this_cpu());
	return true;
}

void spin_unlock(spinlock_t *lock)
{
	struct cpu *c = this_cpu();

	if (unlikely(READ_ONCE(lock->holder) != c->id) && !inject_broken)
		panic("BUG: spin_unlock of lock '%s' not held by CPU%d (holder %d)",
		      lock->name ? lock->name : "?", c->id, READ_ONCE(lock->holder));
	c->locks_held--;
	WRITE_ONCE(lock->holder, -1);
	/*
	 * [unlock_release] pairs [lock_acquire], [trylock_acquire]: our
	 * critical section's accesses are visible before the next ticket is
	 * served, so the next holder cannot read stale data or have its
	 * stores overwritten by ours.
	 */
	__atomic_store_n(&lock->owner, lock->owner + 1, __ATOMIC_RELEASE);
	preempt_enable();
}

bool spin_is_locked(spinlock_t *lock)
{
	return READ_ONCE(lock->owner) != READ_ONCE(lock->next);
}

/* Linux's name: a CPU has taken a ticket behind the holder's and waits. */
bool spin_is_contended(spinlock_t *lock)
{
	return READ_ONCE(lock->next) - READ_ONCE(lock->owner) >= 2;
}

bool lockdep_is_held(const spinlock_t *lock)
{
	return READ_ONCE(lock->holder) == smp_processor_id() &&
	       READ_ONCE(lock->holder_irq_depth) == this_cpu()->irq_depth;
}
