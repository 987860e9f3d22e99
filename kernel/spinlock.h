/*
 * Fair ticket spinlocks with Linux's names.  A CPU takes a ticket and waits
 * until the lock serves it; CPUs are served in arrival order.
 */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include "types.h"
#include "compiler.h"
#include "arch.h"

typedef struct spinlock {
	unsigned int next;	/* next ticket to hand out */
	unsigned int owner;	/* ticket being served */
	int holder;		/* CPU holding it, or -1: catches recursion */
	int holder_irq_depth;	/* its interrupt nesting then: 0 in a task */
	const char *name;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(lockname) \
	{ .next = 0, .owner = 0, .holder = -1, .holder_irq_depth = 0, .name = #lockname }
#define DEFINE_SPINLOCK(x)	spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

void spin_lock_init(spinlock_t *lock);
void spin_lock(spinlock_t *lock);
bool spin_trylock(spinlock_t *lock);
void spin_unlock(spinlock_t *lock);
bool spin_is_locked(spinlock_t *lock);
bool spin_is_contended(spinlock_t *lock);

#define spin_lock_irqsave(lock, flags)					\
	do { (flags) = arch_irq_save(); spin_lock(lock); } while (0)
#define spin_unlock_irqrestore(lock, flags)				\
	do { spin_unlock(lock); arch_irq_restore(flags); } while (0)
#define spin_lock_irq(lock)	do { arch_irq_disable(); spin_lock(lock); } while (0)
#define spin_unlock_irq(lock)	do { spin_unlock(lock); arch_irq_enable(); } while (0)

#define local_irq_save(flags)		do { (flags) = arch_irq_save(); } while (0)
#define local_irq_restore(flags)	arch_irq_restore(flags)
#define local_irq_disable()		arch_irq_disable()
#define local_irq_enable()		arch_irq_enable()
#define irqs_disabled()			arch_irqs_disabled()

/*
 * True when the code calling it holds the lock (for rcu_dereference_check()
 * conditions): this CPU, at the same interrupt depth.  An interrupt handler
 * does not hold the lock of the task it interrupted.
 */
bool lockdep_is_held(const spinlock_t *lock);

#endif
