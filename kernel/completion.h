/* Completions with Linux's names: one side waits until the other says done. */
#ifndef KERNEL_COMPLETION_H
#define KERNEL_COMPLETION_H

#include "list.h"
#include "spinlock.h"

struct completion {
	spinlock_t lock;
	unsigned int done;		/* complete() calls not yet consumed */
	struct list_head waiters;
};

#define COMPLETION_INITIALIZER(c) \
	{ .lock = __SPIN_LOCK_UNLOCKED(c.lock), .done = 0, .waiters = LIST_HEAD_INIT((c).waiters) }
#define DECLARE_COMPLETION(c)	struct completion c = COMPLETION_INITIALIZER(c)

void init_completion(struct completion *c);
void reinit_completion(struct completion *c);
void complete(struct completion *c);
void complete_all(struct completion *c);
void wait_for_completion(struct completion *c);
/* The same, or -EINTR once fatal_signal_pending(current) (a user thread's task dies). */
int wait_for_completion_killable(struct completion *c);
/* Or until timeout jiffies pass: 0 then, else the jiffies left (Linux's). */
unsigned long wait_for_completion_timeout(struct completion *c, unsigned long timeout);
/* Waits as a daemon waits for work: the hung-task check never reports it. */
void wait_for_completion_idle(struct completion *c);
bool try_wait_for_completion(struct completion *c);
bool completion_done(struct completion *c);

#endif
