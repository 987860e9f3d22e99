/*
 * User space: programs in address spaces of their own, their threads,
 * system calls, and the ways into and out of the kernel (docs/user.md).
 * This header is what the rest of the kernel, the arch and the tests
 * use; each object has its own header and file, one concept each:
 *
 *   mm.c, tlb.c        address spaces: regions, frames; switching; TLB shootdowns
 *   pgtable.c          the page-table walk both architectures share
 *   task.c             struct user_task: a program with its threads
 *   thread.c           struct user_thread: a thread; reaper.c frees the dead ones
 *   exec.c             user_spawn(): a task from a boot module (module.c), via elf.c
 *   uaccess.c          copy_from_user() & co: the only way to user memory
 *   entry.c            what every entry from and return to user mode does
 *   resched.c          where a long system call lets the CPU go
 *   fault.c            a fault in user mode kills its task, with a report
 *   syscall.c          THE SYSTEM-CALL TABLE (numbers: lib/syscall.h)
 *   sys_*.c            its handlers, one file per kind of object
 *   fastpath.c         IPC's fast path: a call and a reply-and-receive on one CPU
 *   membarrier.c       SYS_membarrier: a barrier on every CPU running the task
 *   console.c          a task's console output, line by line
 *   usertest.c         the programs of tests/user/ run as tests (make test)
 */
#ifndef KERNEL_USER_USER_H
#define KERNEL_USER_USER_H

#include "kernel.h"
#include "syscall.h"

struct trap_frame;
struct user_task;

/* At boot, after the scheduler: the boot modules, the reaper thread. */
void user_init(void);
/* make run: starts every boot module's program, and waits (bounded) for them to end. */
void user_run_boot_programs(void);

/*
 * Starts the program named by cmdline's first word (a boot module) with
 * cmdline as its argv, on behalf of parent (NULL: the kernel), with an
 * empty capability space and a quota of its own.  Returns the task with
 * a reference for the caller, or NULL and *err (-ENOENT: no such module,
 * -ENOEXEC: the ELF loader refused it, -E2BIG, -ENOMEM).  The kernel's
 * own way in, with the kernel's authority: a task starts a program only
 * through a capability to it (SYS_cap_spawn).
 */
struct user_task *user_spawn(const char *cmdline, struct user_task *parent, int *err);
/* The same, with setup(t, arg) run before its first thread starts (0, or -errno: no start). */
struct user_task *user_spawn_with(const char *cmdline, struct user_task *parent, int *err,
				  int (*setup)(struct user_task *t, void *arg), void *arg);
/*
 * The same as the kernel starts the root task (boot.c): with the boot
 * capabilities (lib/ipc.h's SYS_BOOT_SLOT_*: its quota, every boot
 * program).  The root task, each user test, and the programs kernel
 * tests start that start others.
 */
struct user_task *user_spawn_root(const char *cmdline, int *err);
/* The same, with setup(t, arg) run after the boot capabilities are in (as user_spawn_with()). */
struct user_task *user_spawn_root_with(const char *cmdline, int *err,
				       int (*setup)(struct user_task *t, void *arg), void *arg);

struct boot_module;
struct quota;
/* How user_spawn_program() starts a program: for whom, spending what, set up how. */
struct spawn_how {
	struct user_task *parent;	/* who may wait for it (NULL: the kernel) */
	struct quota *quota;		/* what it spends from (NULL: a quota of its own) */
	int (*setup)(struct user_task *t, void *arg);	/* before its first thread (NULL: none) */
	void *arg;
};
/* Boot module m with argv cmdline (its name first): as user_spawn(). */
struct user_task *user_spawn_program(const struct boot_module *m, const char *cmdline,
				     const struct spawn_how *how, int *err);

/*
 * Waits up to timeout_ns (0: for ever) for t to end: 0 and its status, or
 * -ETIMEDOUT.  Drop the reference with user_task_put() after.
 */
int user_task_wait_timeout(struct user_task *t, u64 timeout_ns, struct sys_exit_status *st);
void user_task_put(struct user_task *t);
void user_task_kill(struct user_task *t, int reason);

/* The monitor's ps: every user task and its threads. */
void user_show_tasks(void);
/*
 * One line a program printed (at most SYS_CONSOLE_LINE_MAX bytes), whole,
 * made safe for the terminal and the KTAP runner; cut: a piece of a longer
 * line, which goes on in the next (it ends with SYS_CONSOLE_LINE_CUT).
 */
void console_print_program_line(const char *s, size_t n, bool cut);
/* Lines ended by '\n' in buf, each printed whole (a longer one in pieces); the rest as cut. */
long console_print_program_lines(const char *buf, size_t n);

/* Everything the user half holds, for the test runner's leak check. */
void user_settle(void);			/* let the reaper free what it was given */

/*
 * The arch's entry code: on every entry from user mode, and before every
 * return (irqs off).  The entry inline: a check and a count.
 */
static inline void enter_from_user_mode(void)
{
	if (unlikely(!current->user))
		panic("BUG: entry from user mode on CPU%d with kernel thread %s running",
		      smp_processor_id(), current->comm);
	this_cpu()->user_entries++;
}
void exit_to_user_mode(void);
/* A system call: its number and arguments in tf, its result written back there. */
void syscall_dispatch(struct trap_frame *tf);
/* System call nr's name ("ipc_recv"), or NULL for a number with no call. */
const char *syscall_name(unsigned long nr);
/*
 * In a loop whose length a program chose, every few steps, holding no
 * spinlock and no RCU read-side critical section: lets the CPU go if
 * another task waits, and reports a quiescent state (resched.c).  True
 * if the calling thread is being killed: it should stop, if it can.
 */
bool user_cond_resched(void);
/* For tests: called at every such point first (checking build). */
extern void (*user_resched_hook)(void);

/* A fault in user mode, as the arch decoded it: the task is killed (fault.c). */
enum user_fault_type {
	UFAULT_PAGE,		/* a page fault: addr, and what the access was */
	UFAULT_OTHER,		/* any other exception: name says which */
};
struct user_fault {
	enum user_fault_type type;
	const char *name;	/* "segfault", "invalid opcode", "divide error", ... */
	uintptr_t addr;		/* UFAULT_PAGE: the address */
	bool write, exec;	/* UFAULT_PAGE: the access (neither: a read) */
	bool present;		/* UFAULT_PAGE: a page was there (a protection fault) */
};
void user_fault(struct trap_frame *tf, const struct user_fault *f) __noreturn;

#endif
