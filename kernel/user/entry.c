/*
 * Into and out of the kernel from user mode: what every entry (a system
 * call, an interrupt, an exception) and every return has to do, whatever
 * the architecture (arch/<arch>/ calls these; docs/user.md follows one
 * system call through).
 *
 * The return is where the kernel's promises to the scheduler and to RCU
 * are kept:
 *   - a thread whose task is dying leaves instead of returning;
 *   - a thread that another task waits for gives up its CPU: the kernel
 *     is never preempted, but user mode is, here, at the return from the
 *     timer tick or from the IPI that announced the waiting task;
 *   - the CPU passes a quiescent state: nothing of the kernel's is held
 *     across the return, so every RCU read-side critical section this
 *     CPU was in has ended.  The tick makes this periodic for a thread
 *     that never enters the kernel on its own (docs/user.md, "RCU").
 */
#include "user/thread.h"

bool fatal_signal_pending(struct task_struct *t)
{
	return t->user && (user_task_dying(t->user->task) || READ_ONCE(t->user->killed));
}

void enter_from_user_mode(void)
{
	struct user_thread *ut = current->user;

	if (!ut)
		panic("BUG: entry from user mode on CPU%d with kernel thread %s running",
		      smp_processor_id(), current->comm);
	this_cpu()->user_entries++;
}

/* Interrupts off on entry and on return. */
void exit_to_user_mode(void)
{
	struct user_thread *ut = current->user;

	if (current->rcu_read_lock_nesting)
		panic("BUG: returning to user mode inside rcu_read_lock() (nesting %d)",
		      current->rcu_read_lock_nesting);
	for (;;) {
		if (user_task_dying(ut->task) || READ_ONCE(ut->killed)) {
			local_irq_enable();
			user_thread_exit(0);
		}
		/*
		 * The quiescent state may end a grace period and wake this
		 * CPU's rcuc or a waiter, and a wake-up on one's own CPU sends
		 * no IPI: look at need_resched() after it, as the idle loop does.
		 */
		rcu_user_return();
		if (!need_resched())
			break;
		local_irq_enable();
		schedule();
		local_irq_disable();
	}
	sched_note_user_return();	/* checking build: nothing left waiting for a tick */
	switch_mm_check_user_return();	/* checking build: [switch_mm_mb] since the last load */
}
