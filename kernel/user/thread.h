/*
 * A thread of a user task (kernel/user/thread.c).  Its kernel half is an
 * ordinary task_struct (kt): a kernel stack, a place in a run queue;
 * kt->user points here and kt->mm at the task's address space.  Entries
 * from user mode run on kt's stack, the thread's own: a thread blocked in
 * a system call keeps it while others run.
 *
 * References (refs): the thread itself while it runs (dropped by the
 * reaper once its kernel half is freed), and its task's thread list
 * (dropped when another thread collects its status, or when the task is
 * freed).  The thread holds a reference to its task until the reaper
 * drops it: a dead thread does not keep its task alive.
 */
#ifndef KERNEL_USER_THREAD_H
#define KERNEL_USER_THREAD_H

#include "user/task.h"

struct user_thread {
	atomic_t refs;
	int tid;			/* kt->pid */
	struct user_task *task;
	struct task_struct *kt;		/* NULL once the reaper freed it */
	struct list_head node;		/* on task->threads (task->lock) */
	uintptr_t stack;		/* its user stack (USER_STACK_PAGES) */
	struct quota *quota;		/* its task's, which it is charged to (a reference) */
	uintptr_t entry, arg, sp, tls;	/* where it starts, its thread pointer */
	bool exited;			/* it has left for good: exit holds how */
	bool waited;			/* its status was collected */
	struct sys_exit_status exit;
	struct completion done;		/* completed (for all) once exited */
	struct list_head reap_node;	/* on the reaper's list */
	/* Capabilities and IPC (kernel/object/thread.h): */
	struct thread_obj *obj;		/* its object, made at first use */
	bool killed;			/* killed alone, through a capability (user_thread_kill()) */
	struct trap_frame *syscall_frame;	/* the system call it is in: IPC writes messages there */
	unsigned long syscalls;		/* the system calls it made (only it writes) */
};

/* Should ut stop instead of returning to user mode (its task dies, or it alone was killed)? */
static inline bool user_thread_dying(struct user_thread *ut)
{
	return user_task_dying(ut->task) || READ_ONCE(ut->killed);
}

/* Should task t stop waiting (a user thread whose task dies, or it alone was killed)? */
static inline bool fatal_signal_pending(struct task_struct *t)
{
	return t->user && user_thread_dying(t->user);
}

/*
 * Starts a thread in t at entry(arg) with thread pointer tls, on cpu
 * (SYS_CPU_ANY: one the kernel picks), on a stack of its own (sp 0), or
 * at sp (the first thread: its stack holds argv).  Its tid, or -errno.
 */
int user_thread_create(struct user_task *t, uintptr_t entry, uintptr_t arg, uintptr_t sp,
		       uintptr_t tls, int cpu);
/* For tests: called once the new thread is on t's list, where a kill finds it (checking build). */
extern void (*user_thread_published_hook)(struct user_task *t);
/* The calling thread leaves user space for good: exit status or kill. */
void user_thread_exit(int status) __noreturn;
/* Waits for thread tid of the caller's task to exit; its status in *st. */
int user_thread_wait(int tid, struct sys_exit_status *st);
void user_thread_put(struct user_thread *ut);
/* Makes ut leave at its next chance, alone (SYS_obj_kill on a thread): 0, or -ESRCH if gone. */
int user_thread_kill(struct user_thread *ut);

/* The reaper freed ut's kernel half (kernel stack, task_struct): their charge goes back. */
void user_thread_reaped(struct user_thread *ut);

/* The reaper (reaper.c): frees a dead thread's kernel half once it is off its CPU. */
void reaper_init(void);
/*
 * An exiting thread announces itself (reaper_expect()) before anyone can
 * see it gone -- its waiters woken, its task ended -- and is added once
 * it is done with its task: reaper_busy() covers the time between, so a
 * settle after the task's end never misses its last kernel half.
 */
void reaper_expect(void);
void reaper_add(struct user_thread *ut);	/* after reaper_expect() */
/* user_task_put(t), by the reaper: for a caller that may not sleep (an RCU callback). */
void reaper_put_task(struct user_task *t);
void reaper_flush(void);	/* waits until what it was given is freed */
bool reaper_busy(void);		/* something given to it is not freed yet */

static inline struct user_thread *current_user_thread(void)
{
	return current->user;
}

#endif
