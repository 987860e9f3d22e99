/*
 * The reaper: a kernel thread that frees what a dead user thread cannot
 * free itself.  A thread exits on its own kernel stack, so its stack and
 * task_struct can go only once it is off its CPU for good: the kernel
 * thread `reaper` waits for that (kt->exited, completed by the switch
 * away from the dead thread: finish_task_switch()), then frees them and
 * drops the reference the thread held on itself (its user thread's own
 * reference on its task goes with the user thread: user_thread_put()).
 * It also drops task references for callers that may not sleep
 * (reaper_put_task()).
 */
#include "user/thread.h"
#include "object/object.h"

static LIST_HEAD(dead);
static LIST_HEAD(task_puts);		/* tasks whose reference it drops (reaper_put_task()) */
static DEFINE_SPINLOCK(dead_lock);
static struct task_struct *reaper;
static struct completion reaper_work;
static atomic_long_t pending;		/* added and not yet freed (reaper_flush()) */

void reaper_expect(void)
{
	atomic_long_inc(&pending);
}

void reaper_add(struct user_thread *ut)
{
	unsigned long flags;

	spin_lock_irqsave(&dead_lock, flags);
	list_add_tail(&ut->reap_node, &dead);
	spin_unlock_irqrestore(&dead_lock, flags);
	complete(&reaper_work);
}

/*
 * A task's last reference may be the one a task capability's object
 * held, dropped when that object is freed: in an RCU callback, which
 * must not sleep -- and the last put of a task that never ran frees its
 * address space (mm_put() takes a mutex) and its capability space.  The
 * reaper drops it instead.
 */
void reaper_put_task(struct user_task *t)
{
	unsigned long flags;

	atomic_long_inc(&pending);
	spin_lock_irqsave(&dead_lock, flags);
	list_add_tail(&t->reap_node, &task_puts);
	spin_unlock_irqrestore(&dead_lock, flags);
	complete(&reaper_work);
}

/* The first entry of list, taken off it under dead_lock; NULL if it is empty. */
static struct list_head *pop_first(struct list_head *list)
{
	struct list_head *first = NULL;
	unsigned long flags;

	spin_lock_irqsave(&dead_lock, flags);
	if (!list_empty(list)) {
		first = list->next;
		list_del(first);
	}
	spin_unlock_irqrestore(&dead_lock, flags);
	return first;
}

static struct user_task *next_put(void)
{
	struct list_head *n = pop_first(&task_puts);

	return n ? list_entry(n, struct user_task, reap_node) : NULL;
}

static struct user_thread *next_dead(void)
{
	struct list_head *n = pop_first(&dead);

	return n ? list_entry(n, struct user_thread, reap_node) : NULL;
}

/*
 * Frees ut's kernel half once it is off its CPU.  ut->kt is cleared under
 * its task's lock first: whoever reads it there (ps, a kill) finds NULL,
 * never a task_struct being freed.
 */
static void reap(struct user_thread *ut)
{
	struct user_task *t = ut->task;
	struct task_struct *kt;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	kt = ut->kt;
	ut->kt = NULL;
	spin_unlock_irqrestore(&t->lock, flags);
	kthread_reap(kt);	/* waits until it is off its CPU */
	user_thread_reaped(ut);	/* (its quota gets the kernel half back) */
	if (cap_injected(CAP_INJECT_NO_REF))
		user_task_put(t);	/* the injection: ut->task without its reference from now */
	user_thread_put(ut);
}

static int reaper_fn(void *arg)
{
	(void)arg;
	for (;;) {
		struct user_thread *ut;
		struct user_task *t;

		wait_for_completion_idle(&reaper_work);	/* no work is no hang */
		while ((ut = next_dead())) {
			reap(ut);
			atomic_long_dec(&pending);
		}
		while ((t = next_put())) {
			user_task_put(t);
			atomic_long_dec(&pending);
		}
	}
	return 0;
}

void reaper_init(void)
{
	init_completion(&reaper_work);
	reaper = kthread_run_on_cpu(reaper_fn, NULL, 0, "reaper");
	if (!reaper)
		panic("user: cannot start the reaper thread");
}

/* Waits until everything given to the reaper so far is freed (the leak check). */
bool reaper_busy(void)
{
	return atomic_long_read(&pending) != 0;
}

void reaper_flush(void)
{
	while (atomic_long_read(&pending))
		msleep(1);
}
