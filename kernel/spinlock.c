/*
 * Ticket spinlocks.  spin_lock() takes the next ticket with one atomic
 * add and waits until `owner` reaches it; spin_unlock() serves the next
 * ticket.  Fair: CPUs get the lock in the order they asked for it.
 */
#include "kernel.h"

static bool inject_broken;	/* spinlock.inject=broken: proves the tests can fail */
KPARAM_FLAG("spinlock.inject", "broken", inject_broken, "locks stop excluding: a fault to catch");

void spin_lock_init(spinlock_t *lock)
{
	*lock = (spinlock_t)__SPIN_LOCK_UNLOCKED(lock);
}

static void check_recursion(spinlock_t *lock)
{
	if (unlikely(READ_ONCE(lock->holder) == smp_processor_id()))
		panic("BUG: spinlock recursion on CPU%d: lock '%s' is already held by this CPU",
		      smp_processor_id(), lock->name ? lock->name : "?");
}

void spin_lock(spinlock_t *lock)
{
	unsigned int ticket;

	check_recursion(lock);
	/*
	 * Acquire: pairs with the release in spin_unlock(), so everything the
	 * previous holder did inside the lock is visible to us.
	 */
	ticket = __atomic_fetch_add(&lock->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE) != ticket) {
		if (unlikely(inject_broken))
			break;
		cpu_relax();
	}
	WRITE_ONCE(lock->holder, smp_processor_id());
	this_cpu()->locks_held++;
}

bool spin_trylock(spinlock_t *lock)
{
	unsigned int owner = __atomic_load_n(&lock->owner, __ATOMIC_RELAXED);

	/* Take the ticket only if it would be served at once (acquire as above). */
	if (!__atomic_compare_exchange_n(&lock->next, &owner, owner + 1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	WRITE_ONCE(lock->holder, smp_processor_id());
	this_cpu()->locks_held++;
	return true;
}

void spin_unlock(spinlock_t *lock)
{
	if (unlikely(READ_ONCE(lock->holder) != smp_processor_id()) && !inject_broken)
		panic("BUG: spin_unlock of lock '%s' not held by CPU%d (holder %d)",
		      lock->name ? lock->name : "?", smp_processor_id(),
		      READ_ONCE(lock->holder));
	this_cpu()->locks_held--;
	WRITE_ONCE(lock->holder, -1);
	/* Release: pairs with the acquire in spin_lock(); publishes our critical section. */
	__atomic_store_n(&lock->owner, lock->owner + 1, __ATOMIC_RELEASE);
}

bool spin_is_locked(spinlock_t *lock)
{
	return READ_ONCE(lock->owner) != READ_ONCE(lock->next);
}

bool lockdep_is_held(const spinlock_t *lock)
{
	return READ_ONCE(lock->holder) == smp_processor_id();
}
