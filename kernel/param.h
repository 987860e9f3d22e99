/*
 * The kernel's tunables in one place, as xv6's param.h: each is a default
 * (a make variable or a boot word may change some), with why it is what it
 * is.  Architecture limits stay with their architecture (arch/).
 */
#ifndef KERNEL_PARAM_H
#define KERNEL_PARAM_H

/*
 * Most CPUs the kernel supports: per-CPU arrays have NR_CPUS slots and a
 * CPU mask (cpumask.h) has NR_CPUS bits, as many words as that takes, so
 * any number works; each CPU costs its arrays' slots and, once it is up,
 * its stacks.  The Makefile reads this default from here; `make
 * NR_CPUS=128` overrides it for C and make alike.
 */
#ifndef NR_CPUS
#define NR_CPUS			64
#endif
#if NR_CPUS < 1
#error "NR_CPUS must be 1 or more"
#endif

/* Timer ticks per second on every CPU: the resolution of msleep() and jiffies. */
#define HZ			100

/* Kernel stacks, in 4 KiB pages, each with an unmapped guard page below it. */
#define THREAD_PAGES		4	/* a kernel thread's stack: 16 KiB */
#define BOOT_STACK_PAGES	4	/* each other CPU's boot (then idle) stack */

/*
 * smp.start_timeout_ms=: how long another CPU may take to come up before
 * the kernel goes on without it (a CPU that arrives later stops, until add_cpu()).
 */
#define CPU_START_TIMEOUT_MS	5000

/*
 * rcu_cpu_stall_timeout=: seconds a CPU may keep a grace period waiting
 * before a stall warning.  21 is Linux's default; below 3 a warning would
 * fire on ordinary waits (the check runs once a second, and under TCG a
 * busy host delays a vCPU for tens of milliseconds at a time).
 */
#define RCU_STALL_TIMEOUT_S	21
#define RCU_STALL_TIMEOUT_MIN_S	3
#define RCU_STALL_TIMEOUT_MAX_S	300

/*
 * SRCU: the read-side sections of different srcu_structs one task may be
 * in at once (the checking build records each: kernel/rcu/srcu.c), and how
 * long the grace-period thread sleeps before it looks again at a rank that
 * still holds readers (one tick: a sleeping reader is slow anyway).
 */
#define SRCU_MAX_NESTING	8
#define SRCU_POLL_MS		1

/* hung_task_timeout_secs=: seconds in wait_for_completion() before a report (Linux's 120). */
#define HUNG_TASK_TIMEOUT_S	120

#endif
