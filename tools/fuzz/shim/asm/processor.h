/*
 * The host's stand-in for arch/<arch>/include/asm/processor.h, for the
 * kernel's parsers built as host programs (tools/fuzz/): one CPU, whose
 * interrupts are a flag, so that nothing here executes a privileged
 * instruction.
 */
#ifndef ASM_PROCESSOR_H
#define ASM_PROCESSOR_H

#include "types.h"

extern unsigned long host_irq_flags;	/* 1: "interrupts on" */
extern void *host_cpu_self;		/* the one struct cpu (shim.c) */

static inline unsigned long arch_irq_save(void)
{
	unsigned long flags = host_irq_flags;

	host_irq_flags = 0;
	return flags;
}

static inline void arch_irq_restore(unsigned long flags) { host_irq_flags = flags; }
static inline void arch_irq_enable(void) { host_irq_flags = 1; }
static inline void arch_irq_disable(void) { host_irq_flags = 0; }
static inline bool arch_irqs_disabled(void) { return !host_irq_flags; }
static inline void arch_wait_for_interrupt(void) { }
static inline void arch_cpu_halt(void) { }
static inline void *arch_cpu_self(void) { return host_cpu_self; }

static inline uintptr_t arch_current_fp(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}

#endif
