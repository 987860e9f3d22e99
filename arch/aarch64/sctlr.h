/*
 * SCTLR_EL1, the system control register every CPU loads whole
 * (boot/aarch64/entry.S; arch_cpu_control_ok() checks it): the ARMv8.0
 * RES1 bits, WFI/WFE not trapped, then MMU (M), data cache (C), stack
 * alignment check (SA) and instruction cache (I).  No alignment check
 * (A): ordinary memory allows unaligned accesses.  Little-endian (EE and
 * E0E clear), no write-implies-execute-never (WXN clear).
 */
#ifndef ARCH_AARCH64_SCTLR_H
#define ARCH_AARCH64_SCTLR_H

#define SCTLR_RES1		0x30d00800
#define SCTLR_NTWI_NTWE		((1 << 16) | (1 << 18))
#define SCTLR_M			(1 << 0)
#define SCTLR_C			(1 << 2)
#define SCTLR_SA		(1 << 3)
#define SCTLR_I			(1 << 12)
#define SCTLR_MMU_ON		(SCTLR_RES1 | SCTLR_NTWI_NTWE | SCTLR_M | SCTLR_C | \
				 SCTLR_SA | SCTLR_I)
#define SCTLR_MMU_OFF		(SCTLR_RES1 | SCTLR_NTWI_NTWE)

#endif
