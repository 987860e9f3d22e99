/* Sleeping locks with Linux's names: a waiter blocks instead of spinning. */
#ifndef KERNEL_MUTEX_H
#define KERNEL_MUTEX_H

#include "completion.h"

struct mutex {
	spinlock_t wait_lock;
	struct task_struct *owner;
	struct list_head waiters;
};

#define __MUTEX_INITIALIZER(m) \
	{ .wait_lock = __SPIN_LOCK_UNLOCKED(m.wait_lock), .owner = NULL, \
	  .waiters = LIST_HEAD_INIT((m).waiters) }
#define DEFINE_MUTEX(m)	struct mutex m = __MUTEX_INITIALIZER(m)

void mutex_init(struct mutex *m);
void mutex_lock(struct mutex *m);
bool mutex_trylock(struct mutex *m);
void mutex_unlock(struct mutex *m);
bool mutex_is_locked(struct mutex *m);

#endif
