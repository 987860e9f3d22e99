/*
 * The known loop for AArch64 (tools/tests/test_profile.py): a bare-metal
 * program at EL1 on QEMU virt, booted by -kernel.  It prints the window's
 * line on the PL011, runs LOOPS rounds of kl_loop inside the window
 * marks, and ends QEMU through semihosting (status 33).  Every
 * instruction of a round is listed below with its class: the counts the
 * profile must find are these, by construction.
 *
 *	_start: 1 in the window (its call of kl_loop)
 *	kl_loop: 56 per round, and its ret once:
 *	  atomic_rmw 2 (stxr of an ldxr/stxr pair, ldadd)
 *	  full_fence 2 (dmb ish, dsb sy; dmb ishld is not one)
 *	  fp_save 1, fp_restore 1 (the 16 stp, 16 ldp of all of q0-q31;
 *	    the stp q0, q1 of a struct copy is not one)
 *	  msr_write 1 (tpidr_el1)
 *	  irq_mask 2 (msr daifset, msr daif)
 *	  pt_base_write 1 (msr ttbr0_el1)
 *	  clock_read 1 (mrs cntvct_el0)
 *	  priv_change 1 (svc)
 *	vectors: 1 per round (eret: priv_change 1)
 *	kl_call: 3 per round
 */
#include "asm/profile.h"

#define LOOPS	1000

	.arch	armv8.1-a
	.text
	.globl	_start
	.type	_start, %function
_start:
	mov	x0, #(3 << 20)		/* CPACR_EL1.FPEN: FP and SIMD at EL1 */
	msr	cpacr_el1, x0
	adr	x0, vectors
	msr	vbar_el1, x0
	isb
	mov	x0, #0x09000000		/* the PL011's data register */
	adr	x1, line
1:	ldrb	w2, [x1], #1
	cbz	w2, 2f
	strb	w2, [x0]
	b	1b
2:	mov	x19, #LOOPS
	adr	x20, counter
	adr	x21, fparea
	PROFILE_MARK_OPEN
	bl	kl_loop
	PROFILE_MARK_CLOSE
	mov	x0, #0x18		/* semihosting SYS_EXIT, x1: {reason, code} */
	adr	x1, exit_block
	hlt	#0xf000
3:	b	3b
	.size	_start, . - _start

	.type	kl_loop, %function
kl_loop:
	ldxr	x1, [x20]
	add	x1, x1, #1
	stxr	w2, x1, [x20]
	mov	x3, #1
	ldadd	x3, x4, [x20]
	dmb	ish
	dmb	ishld
	dsb	sy
	stp	q0, q1, [x21]		/* not a save: a pair of a copy */
	stp	q0, q1, [x21, #0]
	stp	q2, q3, [x21, #32]
	stp	q4, q5, [x21, #64]
	stp	q6, q7, [x21, #96]
	stp	q8, q9, [x21, #128]
	stp	q10, q11, [x21, #160]
	stp	q12, q13, [x21, #192]
	stp	q14, q15, [x21, #224]
	stp	q16, q17, [x21, #256]
	stp	q18, q19, [x21, #288]
	stp	q20, q21, [x21, #320]
	stp	q22, q23, [x21, #352]
	stp	q24, q25, [x21, #384]
	stp	q26, q27, [x21, #416]
	stp	q28, q29, [x21, #448]
	stp	q30, q31, [x21, #480]
	ldp	q0, q1, [x21, #0]
	ldp	q2, q3, [x21, #32]
	ldp	q4, q5, [x21, #64]
	ldp	q6, q7, [x21, #96]
	ldp	q8, q9, [x21, #128]
	ldp	q10, q11, [x21, #160]
	ldp	q12, q13, [x21, #192]
	ldp	q14, q15, [x21, #224]
	ldp	q16, q17, [x21, #256]
	ldp	q18, q19, [x21, #288]
	ldp	q20, q21, [x21, #320]
	ldp	q22, q23, [x21, #352]
	ldp	q24, q25, [x21, #384]
	ldp	q26, q27, [x21, #416]
	ldp	q28, q29, [x21, #448]
	ldp	q30, q31, [x21, #480]
	msr	tpidr_el1, x19
	msr	daifset, #3
	mrs	x6, daif
	msr	daif, x6
	mrs	x7, ttbr0_el1
	msr	ttbr0_el1, x7
	mrs	x8, cntvct_el0
	svc	#0
	mov	x9, x30
	bl	kl_call
	mov	x30, x9
	nop
	nop
	subs	x19, x19, #1
	b.ne	kl_loop
	ret
	.size	kl_loop, . - kl_loop

	.type	kl_call, %function
kl_call:
	add	x10, x10, #1
	nop
	ret
	.size	kl_call, . - kl_call

	/* The vector table: the svc above (current EL, SP_ELx, synchronous) returns at once. */
	.balign	2048
	.type	vectors, %function
vectors:
	.skip	0x200
	eret
	.size	vectors, . - vectors

	.section .rodata
line:	.asciz	"# PROFILE op=loop n=1000 program=-\n"
	.balign	8
exit_block:
	.quad	0x20026, 33		/* ADP_Stopped_ApplicationExit, the status */

	.bss
	.balign	16
fparea:	.skip	512
counter: .skip	8
