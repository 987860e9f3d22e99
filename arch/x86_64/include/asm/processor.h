/* x86-64 inline pieces of the arch interface: interrupt flag, per-CPU self pointer. */
#ifndef ASM_PROCESSOR_H
#define ASM_PROCESSOR_H

#include "types.h"

#define X86_RFLAGS_IF	(1UL << 9)

/* The architecture's name, as folders and make's ARCH spell it (tests/user/ARCH/). */
#define ARCH_NAME		"x86_64"

/* The ELF machine user programs are built for (kernel/user/elf.c). */
#define ARCH_ELF_MACHINE	62	/* EM_X86_64 */

/* 1: an NMI reaches a CPU whatever its interrupt flag: even inside printk. */
#define ARCH_HAS_NMI	1
/* The FP registers a called function preserves: MXCSR, x87 control word (arch_fp_callee_saved_call). */
#define ARCH_FP_CALLEE_SAVED_WORDS 2

/* Device interrupt lines (kernel/arch.h): the ISA IRQs, 0-15. */
#define ARCH_NR_IRQS	16

/* Integer division by zero raises an exception (#DE) on x86-64. */
#define ARCH_INTEGER_DIVIDE_TRAPS 1

static inline unsigned long arch_irq_save(void)
{
	unsigned long flags;

	__asm__ __volatile__("pushfq; popq %0; cli" : "=r"(flags) : : "memory");
	return flags;
}

static inline void arch_irq_restore(unsigned long flags)
{
	if (flags & X86_RFLAGS_IF)
		__asm__ __volatile__("sti" ::: "memory");
}

static inline void arch_irq_enable(void)  { __asm__ __volatile__("sti" ::: "memory"); }
static inline void arch_irq_disable(void) { __asm__ __volatile__("cli" ::: "memory"); }

static inline bool arch_irqs_disabled(void)
{
	unsigned long flags;

	__asm__ __volatile__("pushfq; popq %0" : "=r"(flags));
	return !(flags & X86_RFLAGS_IF);
}

/*
 * Enables interrupts and halts until one arrives.  "sti" takes effect
 * after the next instruction, so no interrupt can slip in between the two
 * and leave us asleep with work pending.
 */
static inline void arch_wait_for_interrupt(void)
{
	__asm__ __volatile__("sti; hlt" ::: "memory");
}

/* Halts with interrupts as they are (off: only an NMI or reset wakes it). */
static inline void arch_cpu_halt(void)
{
	__asm__ __volatile__("hlt" ::: "memory");
}

/* GS base holds each CPU's struct cpu; its first word points to itself. */
static inline void *arch_cpu_self(void)
{
	void *p;

	__asm__ __volatile__("movq %%gs:0, %0" : "=r"(p));
	return p;
}

static inline uintptr_t arch_current_fp(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}

#endif
