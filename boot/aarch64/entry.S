/*
 * The first instructions on AArch64 (QEMU virt).  QEMU's -kernel loader
 * starts the ELF at _start on CPU 0, at EL1 (EL2 with virtualization=on),
 * MMU off, x0 = 0.  We drop to EL1 if needed, enable FP/SIMD (newlib's
 * string routines use the q registers), turn the MMU on with an identity
 * map of the devices and the kernel image, zero .bss, set up the stacks,
 * unmask SErrors and call kmain() with the device tree's address.  The
 * other CPUs arrive at secondary_entry through PSCI CPU_ON.
 */
#define CPACR_FPEN_ALL		(3 << 20)	/* no FP/SIMD traps at EL1/EL0 */

/* MAIR_EL1: attribute 0 device-nGnRnE, attribute 1 normal write-back. */
#define MAIR_VALUE		0xff00
#define ATTR_DEVICE		(0 << 2)
#define ATTR_NORMAL		(1 << 2)

/* Block descriptors (level 1: 1 GiB, level 2: 2 MiB), EL1 read/write, access flag set. */
#define PTE_BLOCK		0x1
#define PTE_TABLE		0x3		/* valid, next-level table */
#define PTE_INNER_SHAREABLE	(3 << 8)
#define PTE_AF			(1 << 10)
#define PTE_PXN			(1 << 53)
#define PTE_UXN			(1 << 54)
#define BLOCK_NORMAL		(PTE_BLOCK | ATTR_NORMAL | PTE_INNER_SHAREABLE | PTE_AF)
#define BLOCK_DEVICE		(PTE_BLOCK | ATTR_DEVICE | PTE_AF | PTE_PXN | PTE_UXN)

/*
 * TCR_EL1: 4 GiB of address space through TTBR0 (T0SZ = 32, so the walk
 * starts at level 1 with four entries), 4 KiB granule, table walks
 * inner-shareable and write-back cacheable; TTBR1 walks off (EPD1);
 * 32-bit physical addresses (IPS = 0).
 */
#define TCR_T0SZ		32
#define TCR_IRGN0_WBWA		(1 << 8)
#define TCR_ORGN0_WBWA		(1 << 10)
#define TCR_SH0_INNER		(3 << 12)
#define TCR_EPD1		(1 << 23)
#define TCR_TG1_4K		(2 << 30)
#define TCR_VALUE		(TCR_T0SZ | TCR_IRGN0_WBWA | TCR_ORGN0_WBWA | \
				 TCR_SH0_INNER | TCR_EPD1 | TCR_TG1_4K)

/* SCTLR_EL1: MMU and caches on (SCTLR_MMU_ON) or everything off. */
#include "sctlr.h"

/* Leaving EL2: EL1 is AArch64, its timers, GIC and FP are not trapped. */
#define HCR_RW			(1 << 31)
#define CNTHCTL_EL1PCTEN_EL1PCEN 3
#define ICC_SRE_EL2_ENABLE_SRE	0xf		/* SRE, DFB, DIB, Enable (EL1 may use SRE) */
#define CPTR_EL2_RES1		0x33ff		/* TFP (bit 10) clear */
#define SPSR_EL1H_MASKED	0x3c5		/* EL1 on SP_EL1, DAIF masked */

/* QEMU leaves the device tree at the start of RAM for a kernel at RAM + 2 MiB. */
#define VIRT_DTB_ADDR		0x40000000
#define RAM_BASE		0x40000000
#define SZ_2M			0x200000

	.section .text.boot, "ax"
	.globl	_start
_start:
	mov	x21, x0				/* a DTB from a Linux-style loader, else 0 */
	bl	drop_to_el1
	bl	boot_map_image
	adrp	x0, boot_l1
	bl	cpu_setup

	/* .bss: the loader zero-fills it (QEMU does), but do not rely on it. */
	ldr	x9, =__bss_start
	ldr	x10, =__bss_end
1:	cmp	x9, x10
	b.hs	2f
	str	xzr, [x9], #8
	b	1b
2:
	/*
	 * Exceptions on SP_EL1 (this CPU's exception stack), everything
	 * else on SP_EL0 (arch/aarch64/stacks.c says why).
	 */
	ldr	x9, =boot_exception_stack_top
	ldr	x9, [x9]
	mov	sp, x9
	msr	spsel, #0
	ldr	x9, =boot_stack_top
	ldr	x9, [x9]
	mov	sp, x9
	/* Boot CPU's struct cpu before any C: a fault report needs this_cpu(). */
	ldr	x9, =cpus
	msr	tpidr_el1, x9
	msr	daifclr, #4			/* SErrors reported from here on */
	mov	x29, xzr			/* ends the backtrace */
	mov	x30, xzr
	mov	x0, x21
	cbnz	x0, 3f
	mov	x0, #VIRT_DTB_ADDR
3:	bl	kmain
4:	msr	daifset, #0xf
	wfi
	b	4b

/*
 * PSCI CPU_ON's entry for the other CPUs (arch/aarch64/smpboot.c), MMU
 * off, x0 = the logical CPU number.  The CPU starts on the kernel's page
 * tables (mmu.c), never on the boot map: it reads their address with its
 * MMU off, so straight from memory, where the boot CPU cleaned its
 * secondary_boot[] entry to.  Then, MMU on, the rest of the entry and the
 * same two stacks as the boot CPU.
 */
	.globl	secondary_entry
secondary_entry:
	mov	x19, x0
	bl	drop_to_el1
	ldr	x9, =secondary_boot
	add	x9, x9, x19, lsl #5		/* 32 bytes each, see smpboot.c */
	ldr	x0, [x9, #24]			/* ttbr0: the kernel's tables */
	bl	cpu_setup
	ldr	x9, =secondary_boot
	add	x9, x9, x19, lsl #5
	ldp	x10, x11, [x9]
	ldr	x12, [x9, #16]
	mov	sp, x12				/* SP_EL1: the exception stack */
	msr	spsel, #0
	mov	sp, x10				/* SP_EL0: the kernel stack */
	msr	tpidr_el1, x11
	msr	daifclr, #4			/* SErrors reported from here on */
	mov	x29, xzr
	mov	x30, xzr
	mov	x0, x19
	bl	ap_main
5:	msr	daifset, #0xf
	wfi
	b	5b

/*
 * If we run at EL2, set up EL1 and return there (to our caller, at EL1).
 * Uses x9 only.
 */
drop_to_el1:
	mrs	x9, CurrentEL
	cmp	x9, #(2 << 2)
	b.ne	1f
	mov	x9, #HCR_RW
	msr	hcr_el2, x9
	mrs	x9, cnthctl_el2
	orr	x9, x9, #CNTHCTL_EL1PCTEN_EL1PCEN
	msr	cnthctl_el2, x9
	msr	cntvoff_el2, xzr
	mrs	x9, S3_4_C12_C9_5		/* ICC_SRE_EL2 */
	orr	x9, x9, #ICC_SRE_EL2_ENABLE_SRE
	msr	S3_4_C12_C9_5, x9
	isb
	mov	x9, #CPTR_EL2_RES1
	msr	cptr_el2, x9
	msr	hstr_el2, xzr
	mrs	x9, midr_el1			/* what EL1 reads as MIDR/MPIDR */
	msr	vpidr_el2, x9
	mrs	x9, mpidr_el1
	msr	vmpidr_el2, x9
	ldr	x9, =SCTLR_MMU_OFF
	msr	sctlr_el1, x9
	mov	x9, #SPSR_EL1H_MASKED
	msr	spsr_el2, x9
	msr	elr_el2, x30
	eret
1:	ret

/*
 * Per CPU, at EL1 with the MMU off: interrupts masked, FP/SIMD on, the
 * exception vectors, then the MMU on with the page tables at x0.  Every
 * exception stays masked: SErrors are unmasked by the caller once SP_EL1
 * and TPIDR_EL1 are valid (an SError taken before would find no stack).
 * Uses x9.
 */
cpu_setup:
	msr	daifset, #0xf
	mov	x9, #CPACR_FPEN_ALL
	msr	cpacr_el1, x9
	ldr	x9, =vectors
	msr	vbar_el1, x9
	isb
	ldr	x9, =MAIR_VALUE
	msr	mair_el1, x9
	ldr	x9, =TCR_VALUE
	msr	tcr_el1, x9
	msr	ttbr0_el1, x0
	msr	ttbr1_el1, xzr
	isb
	tlbi	vmalle1
	dsb	nsh
	isb
	ldr	x9, =SCTLR_MMU_ON
	msr	sctlr_el1, x9
	isb
	ic	iallu
	dsb	nsh
	isb
	ret

/*
 * Invalidates the data cache lines of [x0, x0 + x1) (to the point of
 * coherency), for memory written or about to be written with the MMU
 * off: a stale line must neither hide it nor be written back over it.
 * Uses x9-x11.
 */
inval_dcache_range:
	mrs	x9, ctr_el0
	ubfx	x9, x9, #16, #4			/* DminLine: log2(words per line) */
	mov	x10, #4
	lsl	x10, x10, x9			/* bytes per line */
	sub	x9, x10, #1
	bic	x9, x0, x9
	add	x11, x0, x1
1:	dc	ivac, x9
	add	x9, x9, x10
	cmp	x9, x11
	b.lo	1b
	dsb	sy
	ret

/*
 * Fills the boot map's level-2 table for 1-2 GiB with the 2 MiB blocks
 * from the start of RAM (the device tree is there) to the end of the
 * image: memory QEMU's loader put there, so RAM.  (The last block, rounded
 * up, is RAM too unless RAM is smaller than the image rounded up to 2 MiB,
 * far below what the kernel runs with: make refuses MEM below 10M,
 * arch/aarch64/arch.mk's MIN_MEM_MB.)  The
 * rest of RAM is added by boot_map_ram() (mmu.c) once the device tree has
 * said where it ends.  Written with the MMU off, so straight to memory.
 * Uses x0-x13.
 */
boot_map_image:
	mov	x13, x30
	adrp	x0, boot_l2
	mov	x1, #4096
	bl	inval_dcache_range
	adrp	x9, boot_l2
	mov	x10, #RAM_BASE
	ldr	x11, =__kernel_end
	ldr	x12, =BLOCK_NORMAL
1:	orr	x0, x10, x12
	str	x0, [x9], #8
	add	x10, x10, #SZ_2M
	cmp	x10, x11
	b.lo	1b
	adrp	x0, boot_l2
	mov	x1, #4096
	bl	inval_dcache_range
	ret	x13

/*
 * mmu_switch_ttbr0(u64 tables): moves the boot CPU from the boot map to
 * the kernel's page tables (mmu_init()).  The two map the same addresses
 * with different block sizes and permissions, and the architecture
 * forbids changing live translations that way without break-before-make.
 * This code runs identity-mapped in both, so it takes the plainest break:
 * the MMU off, TTBR0 switched, every TLB entry of this CPU invalidated,
 * the MMU on again.  No memory is accessed in between (with the MMU off
 * data accesses are Device accesses).  The other CPUs are not started
 * yet, and interrupts are masked.  TCG keeps no stale translations to
 * show the difference: hardware does.
 */
	.section .text, "ax"
	.globl	mmu_switch_ttbr0
	.type	mmu_switch_ttbr0, %function
mmu_switch_ttbr0:
	dsb	ish				/* the tables are written */
	mrs	x1, sctlr_el1
	bic	x2, x1, #SCTLR_M
	msr	sctlr_el1, x2			/* break: no translation at all */
	isb
	msr	ttbr0_el1, x0
	isb
	tlbi	vmalle1				/* nothing of the boot map survives */
	dsb	nsh
	isb
	msr	sctlr_el1, x1			/* make: the kernel's tables */
	isb
	ret
	.size	mmu_switch_ttbr0, . - mmu_switch_ttbr0

	.section .text.boot, "ax"
	.ltorg

/*
 * The boot identity map, until mmu_init() (arch/aarch64/mmu.c) builds the
 * kernel's page tables with per-page protection.  0-1 GiB is the devices
 * (GIC, UART, flash, PCI windows): device-nGnRnE, never executable.  From
 * 1 GiB (QEMU's RAM starts there) only RAM is mapped, in 2 MiB blocks of
 * normal write-back cacheable, inner-shareable memory, which exclusive
 * loads and stores (spinlocks, atomics) and newlib's unaligned memcpy
 * need: the image's blocks by boot_map_image, the rest by boot_map_ram()
 * in C.  Where there is no RAM there is no mapping: normal memory invites
 * speculative accesses.  In .data: C adds to it (valid entries only
 * where there were none, which needs no break-before-make).
 */
	.section .data
	.balign	4096
	.globl	boot_l1, boot_l2
boot_l1:
	.quad	0x00000000 | BLOCK_DEVICE
	.quad	boot_l2 + PTE_TABLE		/* 1-2 GiB */
	.quad	0				/* 2-3 GiB, 3-4 GiB: boot_map_ram() */
	.quad	0
	.balign	4096
boot_l2:					/* 1-2 GiB, 2-3 GiB, 3-4 GiB */
	.fill	3 * 512, 8, 0

	.section .note.GNU-stack, "", %progbits
