/*
 * CPUs and per-CPU data.  Each CPU has a struct cpu; the arch keeps a
 * pointer to it in a register (x86-64: GS base) so this_cpu() is one load.
 * Logical CPU numbers are 0 .. nr_cpu_ids-1 (the possible CPUs: those the
 * firmware lists, at most NR_CPUS), the boot CPU is 0; the online ones are
 * those that came up.
 */
#ifndef KERNEL_SMP_H
#define KERNEL_SMP_H

#include "types.h"
#include "compiler.h"
#include "arch.h"
#include "atomic.h"

#include "param.h"	/* NR_CPUS */
#include "cpumask.h"

struct task_struct;

struct cpu {
	struct cpu *self;	/* first: arch_cpu_self() reads it */
	/*
	 * Entries from user mode (kernel/user/, the arch's entry code reads
	 * these at fixed offsets: kernel/cpu_offsets.h): the running user
	 * thread's kernel stack top, and a word where the entry code keeps
	 * the user's stack pointer while it switches stacks.
	 */
	uintptr_t user_entry_sp;
	uintptr_t user_scratch;
	int id;
	int locks_held;		/* spinlocks this CPU holds now */
	/*
	 * Spinlocks taken by task code (not interrupt handlers) on this CPU,
	 * ever: a code path that took none leaves it unchanged, which is how
	 * the checking build proves the capability lookup takes no lock
	 * (kernel/object/cspace.c).  Mutexes and rwlocks count: they take one.
	 */
	unsigned long task_locks_taken;
	int irq_depth;		/* > 0 inside an interrupt handler */
	u64 ticks;		/* timer interrupts taken */
	u64 ipis;		/* IPIs taken */
	u64 user_entries;	/* entries from user mode: system calls, interrupts, faults */
	void *stack_top;
	uintptr_t stack_guard;	/* the guard page below the boot/idle stack */
	const char *task_name;	/* who runs here, for reports */
	struct task_struct *curr_task;	/* `current` */
	bool in_nmi;
	void *arch;		/* arch-private per-CPU state */
	/* PREEMPT=1 only (kernel/preempt.h): */
	int preempt_count;	/* > 0: the tick may not preempt (spinlocks, preempt_disable()) */
	bool preempt_tick;	/* a tick asked for a preemption at interrupt return */
	u64 preemptions;	/* tasks the tick preempted here */
};

extern struct cpu cpus[NR_CPUS];
extern int nr_cpu_ids;		/* possible CPUs, online or not (Linux's meaning) */

static inline struct cpu *this_cpu(void)
{
	return (struct cpu *)arch_cpu_self();
}

static inline int smp_processor_id(void)
{
	return this_cpu()->id;
}

static inline bool cpu_online(int cpu)
{
	return cpumask_test_cpu(cpu, cpu_online_mask);
}

static inline int num_online_cpus(void)
{
	return cpumask_weight(cpu_online_mask);
}

/* The next online CPU after cpu (-1: the first), or NR_CPUS if none. */
static inline int cpu_next_online(int cpu)
{
	return cpumask_next(cpu, cpu_online_mask);
}

#define for_each_online_cpu(cpu)	for_each_cpu((cpu), cpu_online_mask)
/*
 * Marks cpu online (a release: see smp.c) or offline.  A CPU marks itself
 * online as the last step of its bring-up.
 */
void set_cpu_online(int cpu, bool online);
/* Every CPU the firmware lists (up to NR_CPUS), whether it came up or not. */
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)

static inline bool in_interrupt(void)
{
	return this_cpu()->irq_depth > 0;
}

/*
 * Per-CPU variables with Linux's names: one slot per CPU, each on cache
 * lines of its own.  A slot is written by its CPU only, and that is the
 * point of one (a system call's count, a lookup's): were two CPUs' slots
 * on one line, each write would take the line from the other CPU, a
 * shared write in all but name.  So each CPU's slot is a row of
 * PER_CPU_STRIDE(type) elements, a whole number of lines, of which the
 * first is the variable; a type whose size neither divides a line nor
 * is a multiple of one gets an impossible stride, a compile error ("size
 * of array is too large"): give it __aligned(SMP_CACHE_BYTES).
 */
#define SMP_CACHE_BYTES			64
#define PER_CPU_STRIDE(type)						\
	(SMP_CACHE_BYTES % sizeof(type) == 0 ? SMP_CACHE_BYTES / sizeof(type) :	\
	 sizeof(type) % SMP_CACHE_BYTES == 0 ? 1UL : (size_t)-1)
#define DEFINE_PER_CPU(type, name)					\
	__typeof__(type) name[NR_CPUS][PER_CPU_STRIDE(type)] __aligned(SMP_CACHE_BYTES)
#define DECLARE_PER_CPU(type, name)					\
	extern __typeof__(type) name[NR_CPUS][PER_CPU_STRIDE(type)] __aligned(SMP_CACHE_BYTES)
#define per_cpu(name, cpu)		((name)[cpu][0])
#define per_cpu_ptr(ptr, cpu)		(&(*(ptr))[cpu][0])
#define this_cpu_ptr(ptr)		per_cpu_ptr(ptr, smp_processor_id())
#define this_cpu_read(name)		READ_ONCE(per_cpu(name, smp_processor_id()))
#define this_cpu_write(name, v)		WRITE_ONCE(per_cpu(name, smp_processor_id()), (v))
/* One more in a count only this CPU writes (not atomic: from code not preempted across it). */
#define this_cpu_inc(name)						\
	do {								\
		__typeof__(&per_cpu(name, 0)) __p = this_cpu_ptr(&(name));	\
		WRITE_ONCE(*__p, *__p + 1);				\
	} while (0)

/*
 * Runs func(info) on every online CPU, this one too (with interrupts off
 * there, as on the others; this CPU's runs before the call returns).
 * With wait, returns once all have finished; without, once every other
 * CPU has taken the call (func may still be running there, so info must
 * outlive it).  Must be called with interrupts on and outside interrupt
 * handlers.
 */
void on_each_cpu(void (*func)(void *info), void *info, bool wait);
/* Same, on one CPU; nothing runs if cpu is offline (-ENXIO). */
int smp_call_function_single(int cpu, void (*func)(void *info), void *info, bool wait);
/* Same, on the online CPUs of mask (this one too if it is in mask). */
void on_each_cpu_mask(const struct cpumask *mask, void (*func)(void *info), void *info,
		      bool wait);

void smp_boot_cpus(void);
bool smp_start_cpu(int cpu);
/* Where every other CPU arrives, from the arch's entry for it (never returns). */
void ap_main(int cpu);
/* CPUs that arrived after the boot CPU had given up on them (they stay halted). */
extern atomic_t cpus_left_out;
void smp_handle_call_ipi(void);
bool smp_call_pending(int cpu);

#endif
