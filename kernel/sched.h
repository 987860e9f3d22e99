/*
 * Kernel threads and a non-preemptive scheduler.  A task runs until it
 * blocks or yields: the timer tick never switches tasks.  Each CPU has its
 * own run queue, served round-robin, and an idle task that halts the CPU
 * until an interrupt (an IPI when work is queued for it).
 *
 * Every context switch calls rcu_note_context_switch(): with readers that
 * never block and no preemption, a CPU that switches is outside any RCU
 * read-side critical section -- the fact classic RCU is built on.
 */
#ifndef KERNEL_SCHED_H
#define KERNEL_SCHED_H

#include "types.h"
#include "list.h"
#include "smp.h"
#include "atomic.h"
#include "completion.h"

#define TASK_COMM_LEN	16

enum task_state {
	TASK_RUNNING,			/* running, or on a run queue */
	TASK_BLOCKED,			/* waiting for wake_up_process() */
	TASK_DEAD,			/* its function returned; kthread_stop() reaps it */
};

/* Checking build: one SRCU read-side critical section a task is in (rcu/srcu.h). */
struct srcu_struct;
struct srcu_held {
	struct srcu_struct *ssp;
	int idx;			/* what srcu_read_lock(ssp) returned */
};

struct task_struct {
	void *sp;			/* saved stack pointer while switched out */
	enum task_state state;
	int cpu;			/* the CPU it runs on or is queued on */
	int pid;
	char comm[TASK_COMM_LEN];
	struct list_head run_node;	/* on a run queue */
	struct list_head sleep_node;	/* on a CPU's msleep list */
	struct list_head tasks;		/* on the list of all tasks */
	u64 wake_at_ns;			/* msleep */
	u64 enqueued_ns;		/* when it last joined a run queue */
	u64 waiting_since_ns;		/* in wait_for_completion() since; 0: not */
	u64 hung_reported_ns;		/* last hung-task report about it */
	int migrate_to;			/* run_on() target, or -1 */
	bool run_on_hop;		/* in run_on(), waiting to run on its target */
	bool per_cpu;			/* parks while its CPU is down (rcuc/N) */
	bool park_wakeup;		/* woken while parked: runs when its CPU is back */
	int rcu_read_lock_nesting;	/* checking build: read-side depth */
	void *rcu_callback;		/* checking build: the RCU callback running, or NULL */
	int srcu_nesting;		/* checking build: entries in srcu_held */
	struct srcu_held srcu_held[SRCU_MAX_NESTING];
	u64 switches;			/* times it was switched in */
	/*
	 * Checking build: the points where it passed, or may have passed, a
	 * quiescent state -- might_sleep_check() (every sleep, mutex_lock()
	 * and cond_resched() included), its switches, its returns to user
	 * mode.  An object a system call looked up without a reference is
	 * valid until this moves (object/cspace.h, cap_ref_obj()).
	 */
	unsigned long rcu_qs_count;
	int cpus_read_depth;		/* cpus_read_lock() held, nested this deep */
	int mutexes_held;		/* mutexes it holds now (quota_reclaim() checks) */

	/* Kernel threads. */
	int (*threadfn)(void *data);
	void *data;
	int exit_code;
	bool should_stop;
	struct completion exited;

	/* User threads (kernel/user/thread.h); both NULL for kernel threads. */
	struct mm_struct *mm;		/* the address space it runs in */
	struct user_thread *user;	/* its user half */

	void *stack;			/* guard page + THREAD_PAGES; NULL: boot stack */
};

/* The task running on this CPU. */
static inline struct task_struct *get_current(void)
{
	return this_cpu()->curr_task;
}
#define current get_current()

void sched_init(void);			/* boot CPU, before other CPUs start */
void sched_init_cpu(int cpu);		/* each CPU, on itself */
void cpu_idle_loop(void) __noreturn;

void schedule(void);
/* IPC's direct switch to next, blocked on this CPU (kernel/sched.c says when it may). */
void schedule_to(struct task_struct *next);
/* The same from IPC's fast path, interrupts off: false if it must take the general way. */
bool schedule_to_fast(struct task_struct *next);
void cond_resched(void);
/* Should the running task yield at its next chance (a task was queued here, a slice ended)? */
bool need_resched(void);
bool wake_up_process(struct task_struct *t);
/* Runs the caller on cpu; 0, or -ENODEV if cpu is (or went) offline (kernel/run_on.c). */
int run_on(int cpu);
/*
 * Linux's schedule_timeout() with a deadline: current, already marked
 * TASK_BLOCKED, sleeps until woken or until the tick finds deadline_ns passed.
 */
void schedule_until(u64 deadline_ns);
void msleep(unsigned int ms);

/* Kernel threads with Linux's names (kernel/kthread.c). */
struct task_struct *kthread_run_on_cpu(int (*fn)(void *data), void *data,
				       unsigned int cpu, const char *name);
struct task_struct *kthread_run_percpu(int (*fn)(void *data), void *data,
				       unsigned int cpu, const char *name);
struct task_struct *kthread_create_on_cpu(int (*fn)(void *data), void *data,
					  unsigned int cpu, const char *name);
bool kthread_should_stop(void);
int kthread_stop(struct task_struct *t);
void kthread_reap(struct task_struct *t);
void do_task_dead(void) __noreturn;

/* Reports tasks stuck in wait_for_completion() (kernel/hung_task.c). */
void hung_task_check(void);
/* Would hung_task_check(), its clock read at now, report t? */
bool hung_task_overdue(const struct task_struct *t, u64 now);
extern unsigned long hung_task_reports;

/* Kernel stacks with a guard page below (returns the guard page). */
void *kernel_stack_alloc(size_t pages);
void kernel_stack_free(void *base, size_t pages);
bool stack_guard_hit(uintptr_t addr);

/* Checks for callers that may switch: not in a reader, no lock, not in an interrupt. */
void might_sleep_check(const char *what);

/* Checking build: t passed, or may have passed, a quiescent state (task_struct.rcu_qs_count). */
static inline void rcu_note_task_qs(struct task_struct *t)
{
	if (CONFIG_RCU_CHECKING)
		t->rcu_qs_count++;
}

/* For reports and tools: the run queue of a CPU. */
int sched_nr_running(int cpu);
struct task_struct *sched_curr(int cpu);
u64 sched_nr_switches(int cpu);
u64 sched_nr_direct_switches(int cpu);
u64 sched_last_switch_ns(int cpu);
void sched_show_cpu(int cpu);
bool sched_cpu_idle(int cpu);
/* Checking build: idle halts with a task queued that no IPI announced (0 when right). */
unsigned long sched_idle_halts_with_work(void);
/* Checking build: returns to user mode with such a task queued (0 when right). */
unsigned long sched_user_returns_with_work(void);
/* Counts one if this CPU returns to user mode so (exit_to_user_mode(), interrupts off). */
void sched_note_user_return(void);
/* The task waiting longest in a CPU's run queue, as stall reports see it. */
struct sched_waiter {
	char comm[TASK_COMM_LEN];
	int pid;
	u64 since_ns;			/* queued, or the CPU's last switch if later */
	bool run_on_hop;		/* queued there by run_on() */
};
bool sched_oldest_waiter(int cpu, struct sched_waiter *w);
/* cpu's running task's pid and name, copied under its queue's lock; false if that is busy. */
bool sched_curr_copy(int cpu, int *pid, char comm[TASK_COMM_LEN]);
/*
 * The address space of the task running on cpu, and its pid, read under
 * that CPU's run-queue lock (the task cannot be freed while it runs
 * there): a checking build's witness, never the fast path's way.
 */
struct mm_struct *sched_curr_mm(int cpu, int *pid);
void sched_tick(void);
/* CPU hotplug (kernel/hotplug.c). */
void sched_cpu_set_dying(int cpu);
void sched_cpu_offline(int cpu);
bool sched_cpu_dying_now(int cpu);
void sched_cpu_unpark(int cpu);

/*
 * User threads (kernel/user/): the scheduler's hook, called as next is
 * switched in (its address space, its kernel stack for entries from user
 * mode).  "Should this thread give up waiting" (its task was killed or
 * exits: wait_for_completion_killable()), fatal_signal_pending(), is
 * inline in user/thread.h: it reads the user thread's fields, and every
 * IPC asks it several times.
 */
void user_context_switch(struct task_struct *next);

/* Calls for_each task under the task-list lock (it must not block). */
void for_each_task(void (*fn)(struct task_struct *t, void *arg), void *arg);

#endif
