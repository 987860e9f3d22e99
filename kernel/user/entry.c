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

/*
 * Interrupts off on entry and on return.  On every return, so the common
 * one -- nothing pending -- is a few loads: the kill inline, the grace
 * periods' look inline in rcu_user_return() (the report out of line), and
 * need_resched(); the checking build's looks cost production nothing.
 */
void exit_to_user_mode(void)
{
	struct task_struct *t = current;
	struct user_thread *ut = t->user;

	if (t->rcu_read_lock_nesting)
		panic("BUG: returning to user mode inside rcu_read_lock() (nesting %d)",
		      t->rcu_read_lock_nesting);
	for (;;) {
		if (unlikely(user_thread_dying(ut))) {
			local_irq_enable();
			user_thread_exit(0);
		}
		/*
		 * The quiescent state may end a grace period and wake this
		 * CPU's rcuc or a waiter, and a wake-up on one's own CPU sends
		 * no IPI: look at need_resched() after it, as the idle loop does.
		 */
		rcu_user_return();
		if (likely(!need_resched()))
			break;
		local_irq_enable();
		schedule();
		local_irq_disable();
	}
	if (CONFIG_RCU_CHECKING) {
		sched_note_user_return();	/* nothing left waiting for a tick */
		switch_mm_check_user_return();	/* [switch_mm_mb] since the last load */
	}
}
