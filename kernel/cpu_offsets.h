/*
 * Offsets in struct cpu (smp.h) that assembly reads through the per-CPU
 * register (x86-64 %gs, AArch64 TPIDR_EL1).  Plain numbers, so .S files
 * can include this; kernel/smp.c checks them against the struct.
 */
#ifndef KERNEL_CPU_OFFSETS_H
#define KERNEL_CPU_OFFSETS_H

#define CPU_USER_ENTRY_SP	8	/* struct cpu.user_entry_sp */
#define CPU_USER_SCRATCH	16	/* struct cpu.user_scratch */

#endif
