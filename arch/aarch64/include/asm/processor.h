/*
 * AArch64 inline pieces of the arch interface: interrupt masking (DAIF),
 * waiting for interrupts, the per-CPU self pointer (TPIDR_EL1).
 */
#ifndef ASM_PROCESSOR_H
#define ASM_PROCESSOR_H

#include "types.h"

#define DAIF_I		(1UL << 7)	/* IRQ masked */

/* The architecture's name, as folders and make's ARCH spell it (tests/user/ARCH/). */
#define ARCH_NAME		"aarch64"

/* The ELF machine user programs are built for (kernel/user/elf.c). */
#define ARCH_ELF_MACHINE	183	/* EM_AARCH64 */

/*
 * Device interrupt lines (kernel/arch.h): GIC INTIDs, of which SPIs are
 * 32 and up.  QEMU virt's distributor has 256 SPIs (INTIDs up to 287);
 * the GIC allows up to 1019, a bigger machine would raise this.
 */
#define ARCH_NR_IRQS	288

/* 0: arch_send_nmi() is an ordinary interrupt (GICv3 without pseudo-NMIs): masked CPUs wait for it. */
#define ARCH_HAS_NMI	0
/* The FP registers a called function preserves: d8-d15, FPCR (arch_fp_callee_saved_call). */
#define ARCH_FP_CALLEE_SAVED_WORDS 9

/*
 * IRQ and FIQ are masked and unmasked together (daifset/daifclr #3); the
 * GIC signals our group-1 interrupts as IRQs, nothing uses FIQ.  Writes to
 * PSTATE.DAIF by MSR take effect in program order: no isb needed.
 */
static inline unsigned long arch_irq_save(void)
{
	unsigned long flags;

	__asm__ __volatile__("mrs %0, daif\n\tmsr daifset, #3" : "=r"(flags) : : "memory");
	return flags;
}

static inline void arch_irq_restore(unsigned long flags)
{
	__asm__ __volatile__("msr daif, %0" : : "r"(flags) : "memory");
}

static inline void arch_irq_enable(void)  { __asm__ __volatile__("msr daifclr, #3" ::: "memory"); }
static inline void arch_irq_disable(void) { __asm__ __volatile__("msr daifset, #3" ::: "memory"); }

static inline bool arch_irqs_disabled(void)
{
	unsigned long flags;

	__asm__ __volatile__("mrs %0, daif" : "=r"(flags) : : "memory");
	return flags & DAIF_I;
}

/*
 * Waits for an interrupt, then takes it with interrupts enabled; called
 * with interrupts off.  AArch64 has no "sti; hlt" shadow, but `wfi` wakes
 * on a pending interrupt even while PSTATE.I masks it.  So we wait masked
 * and unmask afterwards: an IPI that arrived between the caller's idle
 * check and the wfi is pending, wfi returns at once, and the interrupt is
 * taken right after the daifclr.  Nothing can be lost in between.
 */
/*
 * [hw_sleep] pairs [wfi_dsb]: the hardware side: a CPU in wfi executes
 * nothing, so only what it made visible before sleeping reaches the others.
 */
static inline void arch_wait_for_interrupt(void)
{
	/*
	 * [wfi_dsb] pairs [hw_sleep]: our earlier stores (the idle flag, a
	 * lock's release) complete before the CPU sleeps, as in Linux's
	 * cpu_do_idle(); a store left in the write buffer of a sleeping CPU
	 * could keep another CPU waiting for it until the next interrupt.
	 */
	__asm__ __volatile__("dsb sy\n\twfi\n\tmsr daifclr, #3" ::: "memory");
}

/*
 * Waits with interrupts as they are.  With interrupts masked only a
 * pending interrupt wakes wfi, so callers loop around it (as on x86).
 */
static inline void arch_cpu_halt(void)
{
	__asm__ __volatile__("wfi" ::: "memory");
}

/*
 * TPIDR_EL1 holds each CPU's struct cpu (arch/aarch64/setup.c).  volatile:
 * a task may move to another CPU across any call that schedules, so the
 * compiler must not reuse an earlier read.
 */
static inline void *arch_cpu_self(void)
{
	void *p;

	__asm__ __volatile__("mrs %0, tpidr_el1" : "=r"(p));
	return p;
}

static inline uintptr_t arch_current_fp(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}

#endif
