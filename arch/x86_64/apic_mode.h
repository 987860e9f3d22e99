/*
 * The local APIC's mode, as IA32_APIC_BASE holds it: xAPIC (memory-mapped
 * registers, the mode this kernel drives), x2APIC (registers as MSRs; the
 * memory-mapped page is off) or disabled.  Firmware may hand a CPU over in
 * x2APIC mode (INIT keeps the mode).  Not every change is allowed: x2APIC
 * to xAPIC faults, and must pass through disabled.  Pure, so the host
 * checks the sequence (tools/tests/test_apic_mode.py): QEMU 7.2's TCG has
 * no x2APIC, so no boot can show a handover.
 */
#ifndef ARCH_X86_64_APIC_MODE_H
#define ARCH_X86_64_APIC_MODE_H

#include "types.h"

#define APIC_BASE_BSP		(1ULL << 8)	/* read-only: the boot CPU */
#define APIC_BASE_EXTD		(1ULL << 10)	/* x2APIC mode */
#define APIC_BASE_EN		(1ULL << 11)	/* enabled */
#define APIC_BASE_ADDR		0x000ffffffffff000ULL

/*
 * The IA32_APIC_BASE values to write, in order, to go from msr to xAPIC
 * mode with the same base address; returns how many (0: already there).
 */
int apic_to_xapic(u64 msr, u64 writes[2]);

#endif
