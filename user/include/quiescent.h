/*
 * What a user program may ask of the Quiescent kernel beyond newlib: the
 * system calls (lib/syscall.h lists them all) as C functions, threads,
 * and other tasks.  Each returns what the kernel returned: a value, or a
 * negative error (-SYS_EFAULT...); the wrappers do not touch errno.
 */
#ifndef QUIESCENT_H
#define QUIESCENT_H

#include <stddef.h>
#include <stdint.h>
#include "syscall.h"
#include "user_layout.h"
#include "tls.h"		/* user/arch/ARCH: arch_thread_pointer() */

/* The raw call: any number, any arguments (the fuzzer uses it). */
long q_syscall(long nr, long a0, long a1, long a2, long a3, long a4, long a5);

static inline long q_yield(void) { return q_syscall(SYS_yield, 0, 0, 0, 0, 0, 0); }
static inline long q_sleep_ns(uint64_t ns) { return q_syscall(SYS_sleep, (long)ns, 0, 0, 0, 0, 0); }
static inline uint64_t q_clock_ns(void) { return q_syscall(SYS_clock, 0, 0, 0, 0, 0, 0); }
static inline int q_cpu(void) { return q_syscall(SYS_cpu, 0, 0, 0, 0, 0, 0); }
static inline int q_nr_cpus(void) { return q_syscall(SYS_nr_cpus, 0, 0, 0, 0, 0, 0); }
static inline int q_set_cpu(int cpu) { return q_syscall(SYS_set_cpu, cpu, 0, 0, 0, 0, 0); }
static inline int q_task_id(void) { return q_syscall(SYS_task_id, 0, 0, 0, 0, 0, 0); }
static inline int q_thread_id(void) { return q_syscall(SYS_thread_id, 0, 0, 0, 0, 0, 0); }
static inline long q_console_write(const void *buf, size_t len)
{
	return q_syscall(SYS_console_write, (long)buf, (long)len, 0, 0, 0, 0);
}
/* printf() straight to the kernel's console, never through stdio (user/lib/console.c). */
void q_console_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Zeroed pages at addr (0: the kernel picks): the address, or a negative error. */
static inline long q_map(void *addr, size_t len, int prot)
{
	return q_syscall(SYS_map, (long)addr, (long)len, prot, 0, 0, 0);
}
static inline long q_unmap(void *addr, size_t len)
{
	return q_syscall(SYS_unmap, (long)addr, (long)len, 0, 0, 0, 0);
}

/*
 * Threads, each with its own newlib state (errno, stdio buffers): fn(arg)
 * runs on cpu (SYS_CPU_ANY: the kernel picks); its return value is its
 * exit status.  q_thread_create returns the thread's id, or a negative
 * error; q_thread_join waits for it and frees what the runtime kept.
 */
int q_thread_create(int (*fn)(void *), void *arg, int cpu);
int q_thread_join(int tid, struct sys_exit_status *st);
void q_thread_exit(int status) __attribute__((noreturn));
/* The calling thread's thread pointer (its runtime block: SYS_set_tls). */
void *q_thread_pointer(void);

/*
 * What every thread's runtime block starts with, for inline code that
 * must find its thread's state without a call (user/lib/runtime.h has the
 * rest of the block): the user-space RCU library's readers (urcu.h,
 * urcu-qsbr.h), one per flavor, NULL until the thread registers.
 */
struct urcu_reader;
#define Q_URCU_FLAVORS	2
struct q_thread_head {
	struct q_thread_head *self;	/* first: x86-64 finds the block in one %fs load */
	struct urcu_reader *urcu[Q_URCU_FLAVORS];
};

static inline struct q_thread_head *q_thread_head(void)
{
	return (struct q_thread_head *)arch_thread_pointer();
}

/*
 * A fatal error, in the kernel's words: prints "panic: ..." and ends the
 * task as abort() does.  For the lib/ headers programs share with the
 * kernel (lib/rculist.h), whose failures panic() there too.
 */
void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

/* SYS_membarrier (lib/syscall.h): its result, or a negative error. */
static inline long q_membarrier(int cmd, unsigned int flags)
{
	return q_syscall(SYS_membarrier, cmd, flags, 0, 0, 0, 0);
}

/*
 * Another program: a boot module, its name first, then its arguments,
 * started through a program capability this task holds (q_program()
 * finds it by name; -SYS_ENOENT: we hold none of that name).  It gets no
 * capability and spends from our quota.  Its task id, for q_task_wait.
 */
int q_spawn(const char *cmdline, size_t len);
/*
 * The slot of a program capability we hold for the boot module `name`:
 * the boot slots first (lib/ipc.h's SYS_BOOT_SLOT_PROGRAMS ..: what the
 * kernel gives the tasks it starts), then every other slot (what a
 * parent passed).  -SYS_ENOENT if none.
 */
int q_program(const char *name);
/*
 * Deletes the boot capabilities the kernel started us with (lib/ipc.h):
 * a program that starts nothing keeps no authority it does not need.
 */
void q_drop_boot_caps(void);
/* A program capability's name, in buf: its length, or a negative error. */
static inline int q_program_name(int program, char *buf, size_t size)
{
	return q_syscall(SYS_program_name, program, (long)buf, (long)size, 0, 0, 0);
}
/* The raw spawn (lib/ipc.h's struct sys_spawn): its task id. */
static inline int q_cap_spawn(const struct sys_spawn *req)
{
	return q_syscall(SYS_cap_spawn, (long)req, 0, 0, 0, 0, 0);
}
static inline int q_task_wait(int id, struct sys_exit_status *st)
{
	return q_syscall(SYS_task_wait, id, (long)st, 0, 0, 0, 0);
}

#endif
