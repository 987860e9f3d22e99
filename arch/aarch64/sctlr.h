/*
 * SCTLR_EL1, the system control register every CPU loads whole
 * (boot/aarch64/entry.S; arch_cpu_control_ok() checks it): the ARMv8.0
 * RES1 bits, WFI/WFE not trapped, then MMU (M), data cache (C), stack
 * alignment checks at EL1 and EL0 (SA, SA0) and instruction cache (I).
 * No alignment check (A): ordinary memory allows unaligned accesses.
 * Little-endian (EE and E0E clear), no write-implies-execute-never (WXN
 * clear).  For user mode: EL0 may read CTR_EL0 (UCT: newlib's and GCC's
 * cache-line code) and zero cache lines with DC ZVA (DZE: newlib's
 * memset), and nothing else privileged: masking interrupts (UMA clear)
 * and cache maintenance (UCI clear) trap.
 *
 * SPAN: RES1 on ARMv8.0; on a CPU with PAN (ARMv8.1) it must be clear, so
 * that every exception to EL1 sets PSTATE.PAN: entry.S sets it only on a
 * CPU without PAN (ID_AA64MMFR1_EL1.PAN), and SCTLR_MMU_ON leaves it out.
 */
#ifndef ARCH_AARCH64_SCTLR_H
#define ARCH_AARCH64_SCTLR_H

#define SCTLR_RES1		0x30500800	/* bits 11, 20, 22, 28, 29 */
#define SCTLR_SPAN		(1 << 23)
#define SCTLR_NTWI_NTWE		((1 << 16) | (1 << 18))
#define SCTLR_M			(1 << 0)
#define SCTLR_C			(1 << 2)
#define SCTLR_SA		(1 << 3)
#define SCTLR_SA0		(1 << 4)
#define SCTLR_I			(1 << 12)
#define SCTLR_DZE		(1 << 14)
#define SCTLR_UCT		(1 << 15)
#define SCTLR_MMU_ON		(SCTLR_RES1 | SCTLR_NTWI_NTWE | SCTLR_M | SCTLR_C | \
				 SCTLR_SA | SCTLR_SA0 | SCTLR_I | SCTLR_DZE | SCTLR_UCT)
#define SCTLR_MMU_OFF		(SCTLR_RES1 | SCTLR_SPAN | SCTLR_NTWI_NTWE)

/* ID_AA64MMFR1_EL1.PAN, bits 23:20: 0 when the CPU has no PAN. */
#define MMFR1_PAN_SHIFT		20

#endif
