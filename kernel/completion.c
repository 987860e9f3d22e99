/*
 * Completions and mutexes: the two ways a task blocks on another.  Both
 * queue the waiter, mark it TASK_BLOCKED under their lock and call
 * schedule() after dropping it; the waker changes the state under the
 * run-queue lock (wake_up_process()), so a wake-up that comes between
 * the unlock and the switch is never lost: schedule() then sees
 * TASK_RUNNING and keeps the task.
 */
#include "kernel.h"
#include "user/thread.h"
#include <errno.h>

struct waiter {
	struct list_head node;
	struct task_struct *task;
};

void init_completion(struct completion *c)
{
	spin_lock_init(&c->lock);
	c->lock.name = "completion";
	c->done = 0;
	INIT_LIST_HEAD(&c->waiters);
}

void reinit_completion(struct completion *c)
{
	WRITE_ONCE(c->done, 0);
}

static void wake_first(struct list_head *waiters)
{
	if (!list_empty(waiters))
		wake_up_process(list_first_entry(waiters, struct waiter, node)->task);
}

void complete(struct completion *c)
{
	unsigned long flags;
	struct waiter *w;

	spin_lock_irqsave(&c->lock, flags);
	if (c->done != UINT_MAX)
		c->done++;
	/* Wake them all: one already woken but not yet run must not hide the rest. */
	list_for_each_entry(w, &c->waiters, node)
		wake_up_process(w->task);
	spin_unlock_irqrestore(&c->lock, flags);
}

void complete_all(struct completion *c)
{
	unsigned long flags;
	struct waiter *w;

	spin_lock_irqsave(&c->lock, flags);
	c->done = UINT_MAX;
	list_for_each_entry(w, &c->waiters, node)
		wake_up_process(w->task);
	spin_unlock_irqrestore(&c->lock, flags);
}

bool try_wait_for_completion(struct completion *c)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&c->lock, flags);
	ok = c->done > 0;
	if (ok && c->done != UINT_MAX)
		c->done--;
	spin_unlock_irqrestore(&c->lock, flags);
	return ok;
}

/* How do_wait_for_completion() waits. */
#define WAIT_KILLABLE	1	/* or until the caller's task is killed (-EINTR): no hung task either */
#define WAIT_IDLE	2	/* a daemon waiting for work: no hung task however long */
#define WAIT_DEADLINE	4	/* or until deadline_ns (-ETIMEDOUT); it ends by itself: no hung task */

/*
 * Waits until c is done; WAIT_KILLABLE: or until the caller's task is killed
 * (-EINTR).  A user thread blocked here must leave when its task is
 * killed: the killer sets the reason, then wakes it (user_task_kill()).
 * The waiter marks itself blocked before it looks at the reason, with a
 * full barrier between, so a kill that comes between the look and the
 * sleep finds it blocked and wakes it.
 */
static int do_wait_for_completion(struct completion *c, int how, u64 deadline_ns)
{
	struct waiter w = { .task = current };
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&c->lock, flags);
	list_add_tail(&w.node, &c->waiters);
	/*
	 * The hung-task check names waits nothing may end but the complete()
	 * they wait for.  A killable one is a user thread's wait for a task
	 * or thread to end, which its program chose and which may rightly
	 * last for ever (a parent and its server); a kill ends it.  Linux's
	 * check skips TASK_KILLABLE alike.
	 */
	if (!(how & (WAIT_IDLE | WAIT_DEADLINE | WAIT_KILLABLE)))
		WRITE_ONCE(current->waiting_since_ns, ktime_get_ns());	/* hung-task check */
	while (!c->done) {
		if ((how & WAIT_DEADLINE) && ktime_get_ns() >= deadline_ns) {
			ret = -ETIMEDOUT;
			break;
		}
		current->state = TASK_BLOCKED;
		if (how & WAIT_KILLABLE) {
			/*
			 * [killable_mb] pairs [task_kill_mb], [task_exit_mb],
			 * [thread_kill_mb]: blocked before we read the kill;
			 * the killer stores it before its wake-up reads our
			 * state.  One of us sees the other.
			 */
			smp_mb();
			if (fatal_signal_pending(current)) {
				current->state = TASK_RUNNING;
				ret = -EINTR;
				break;
			}
		}
		spin_unlock_irqrestore(&c->lock, flags);
		if (how & WAIT_DEADLINE)
			schedule_until(deadline_ns);	/* complete() or the tick wakes us */
		else
			schedule();
		spin_lock_irqsave(&c->lock, flags);
	}
	if (!ret && c->done != UINT_MAX)
		c->done--;
	list_del(&w.node);
	WRITE_ONCE(current->waiting_since_ns, 0);
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

void wait_for_completion(struct completion *c)
{
	might_sleep_check("wait_for_completion");
	do_wait_for_completion(c, 0, 0);
}

void wait_for_completion_idle(struct completion *c)
{
	might_sleep_check("wait_for_completion_idle");
	do_wait_for_completion(c, WAIT_IDLE, 0);
}

int wait_for_completion_killable(struct completion *c)
{
	might_sleep_check("wait_for_completion_killable");
	return do_wait_for_completion(c, WAIT_KILLABLE, 0);
}

/*
 * As Linux's: timeout in jiffies; 0 if it ran out, else the jiffies left
 * (at least 1).  Woken by complete() at once, not at the next tick; only
 * running out waits for a tick (the one that finds the deadline passed).
 */
unsigned long wait_for_completion_timeout(struct completion *c, unsigned long timeout)
{
	u64 tick = NSEC_PER_SEC / HZ, deadline = ktime_get_ns() + (u64)timeout * tick, now;

	might_sleep_check("wait_for_completion_timeout");
	if (do_wait_for_completion(c, WAIT_DEADLINE, deadline))
		return 0;
	now = ktime_get_ns();
	return now >= deadline ? 1 : (deadline - now + tick - 1) / tick;	/* (rounded up: >= 1) */
}

bool completion_done(struct completion *c)
{
	return READ_ONCE(c->done) > 0;
}

void mutex_init(struct mutex *m)
{
	spin_lock_init(&m->wait_lock);
	m->wait_lock.name = "mutex";
	m->owner = NULL;
	INIT_LIST_HEAD(&m->waiters);
}

void mutex_lock(struct mutex *m)
{
	struct waiter w = { .task = current };
	unsigned long flags;

	might_sleep_check("mutex_lock");
	spin_lock_irqsave(&m->wait_lock, flags);
	if (m->owner == current)
		panic("BUG: mutex_lock: %s already holds this mutex (deadlock)", current->comm);
	list_add_tail(&w.node, &m->waiters);
	/* First come, first served: only the first waiter may take it. */
	while (m->owner || list_first_entry(&m->waiters, struct waiter, node) != &w) {
		current->state = TASK_BLOCKED;
		spin_unlock_irqrestore(&m->wait_lock, flags);
		schedule();
		spin_lock_irqsave(&m->wait_lock, flags);
	}
	list_del(&w.node);
	m->owner = current;
	current->mutexes_held++;
	spin_unlock_irqrestore(&m->wait_lock, flags);
}

bool mutex_trylock(struct mutex *m)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&m->wait_lock, flags);
	ok = !m->owner && list_empty(&m->waiters);
	if (ok) {
		m->owner = current;
		current->mutexes_held++;
	}
	spin_unlock_irqrestore(&m->wait_lock, flags);
	return ok;
}

void mutex_unlock(struct mutex *m)
{
	unsigned long flags;

	spin_lock_irqsave(&m->wait_lock, flags);
	if (m->owner != current)
		panic("BUG: mutex_unlock by %s, which does not hold the mutex", current->comm);
	m->owner = NULL;
	current->mutexes_held--;
	wake_first(&m->waiters);
	spin_unlock_irqrestore(&m->wait_lock, flags);
}

bool mutex_is_locked(struct mutex *m)
{
	return READ_ONCE(m->owner) != NULL;
}
