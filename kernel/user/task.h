/*
 * A user task: one program, in an address space of its own, with one or
 * more threads (kernel/user/task.c; its threads: thread.h).
 *
 * References (refs), and who drops each:
 *   - the task list, while the task is listed: dropped when it is taken
 *     off (user_task_unlist()): when it ended and its parent collected
 *     its status, or at once when it ended if no task will (spawned by
 *     the kernel, or its parent ended first);
 *   - each thread, from its creation until the reaper has freed its
 *     kernel half (reaper.c);
 *   - whoever else holds a pointer: the kernel code that spawned it (a
 *     test, the boot) until user_task_put(), a lookup in progress.
 * The last put frees it after an RCU grace period: user_task_find()
 * walks the list with no lock, inside rcu_read_lock(), and takes a
 * reference only if refs is not already zero (the pattern a capability
 * lookup will follow: docs/user.md).
 *
 * The address space belongs to the task alone (one reference); it goes
 * when the task's last thread exits, before anyone is told the task
 * ended, so memory is back when user_task_wait() returns.
 */
#ifndef KERNEL_USER_TASK_H
#define KERNEL_USER_TASK_H

#include "kernel.h"
#include "syscall.h"
#include "user/mm.h"
#include "user/module.h"
#include "user/user.h"

/* What killed a task (for reports and tests; docs/user.md lists the kinds). */
struct user_fault_info {
	const char *kind;		/* "segfault", "invalid opcode", ... */
	uintptr_t addr, ip, sp;
	int cpu;
};

#define CONSOLE_LINE_LEN	SYS_CONSOLE_LINE_MAX

struct user_task {
	atomic_t refs;
	int id;				/* its first thread's pid */
	char name[TASK_COMM_LEN];	/* the last part of argv[0] */
	char path[MODULE_NAME_LEN];	/* argv[0]: the module, and the ELF under build/ */
	struct mm_struct *mm;		/* NULL once it ended */
	spinlock_t lock;		/* threads, nr_live and the state below */
	struct list_head threads;	/* struct user_thread: live ones, dead ones not waited for */
	int nr_live;			/* threads that have not exited */
	int kill_reason;		/* SYS_KILLED_*, or 0: its threads leave at their next chance */
	bool exiting;			/* exit() ran: exit_status is set, the other threads leave */
	bool ended;			/* its last thread exited */
	struct sys_exit_status exit;
	/* Its capabilities and what it may spend on objects (kernel/object/task.c). */
	struct cspace *cspace;
	struct quota *quota;
	struct user_fault_info fault;	/* kill_reason SYS_KILLED_FAULT: which */
	struct completion done;		/* completed (for all waiters) when it ended */
	struct user_task *parent;	/* who may wait for it (tasks_lock); NULL: the kernel */
	bool waited;			/* its status was collected */
	bool listed;			/* on the task list (tasks_lock) */
	struct list_head node;		/* on the task list */
	struct list_head reap_node;	/* on the reaper's list of puts (reaper_put_task()) */
	struct rcu_head rcu;
	u64 start_ns;
	unsigned long syscalls_gone;	/* threads' off the list (lock); user_task_syscalls() */
	/* Its console output, cut in lines (console.c). */
	spinlock_t console_lock;
	char line[CONSOLE_LINE_LEN];
	size_t line_len;
	/* The address space's TLB counts when it ended (tests, ps). */
	unsigned long tlb_shootdowns, tlb_ipis;
	struct cpumask tlb_ipi_cpus;
};

/* quota: what it spends from (NULL: a quota of its own, as the kernel's tasks get). */
struct user_task *user_task_create(const char *path, struct user_task *parent,
				   struct quota *quota);
void user_task_get(struct user_task *t);
void user_task_put(struct user_task *t);
/* Puts t on the task list (its first thread is starting), or takes it off. */
void user_task_list(struct user_task *t);
void user_task_unlist(struct user_task *t);
/* parent collects its ended child's status (once): 0, or -ECHILD. */
int user_task_collect(struct user_task *child, struct user_task *parent,
		      struct sys_exit_status *st);
/* The listed task with this id, with a reference (NULL: none, or freed meanwhile). */
struct user_task *user_task_find(int id);
/* Calls fn for each listed task, under the list lock (fn must not block). */
void for_each_user_task(void (*fn)(struct user_task *t, void *arg), void *arg);

/* Every thread leaves at its next kernel entry; reason SYS_KILLED_*. */
void user_task_kill(struct user_task *t, int reason);
/* exit(status) from one of its threads: the first caller's status counts. */
void user_task_exit(struct user_task *t, int status);
/* Called by its last thread on the way out (thread.c): the task ends. */
void user_task_end(struct user_task *t);
/* Its spawn failed before its first thread ran (exec.c): it ends without running. */
void user_task_never_ran(struct user_task *t);
/*
 * The system calls t's threads made (ps, tests): each thread counts its
 * own (user_thread.syscalls), so a call writes no line its task's other
 * threads write; a thread's count joins t's when it leaves the list.
 * The _locked one with t->lock held.
 */
unsigned long user_task_syscalls(struct user_task *t);
unsigned long user_task_syscalls_locked(struct user_task *t);
/* Should a thread of t stop instead of returning to user mode?  (Inline: every IPC asks.) */
static inline bool user_task_dying(struct user_task *t)
{
	return READ_ONCE(t->kill_reason) || READ_ONCE(t->exiting);
}

/* Tasks alive now (listed or not), for the leak check. */
long user_tasks_live(void);

#endif
