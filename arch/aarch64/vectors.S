/*
 * Exception entry.  VBAR_EL1 points at `vectors`: 16 entries of 128 bytes
 * (current EL on SP_EL0 / on SP_EL1 / lower EL AArch64 / lower EL AArch32,
 * each sync, IRQ, FIQ, SError).  We run at EL1 on SP_EL1, so only the
 * Kernel code runs on SP_EL0 (EL1t, see stacks.c), so its exceptions
 * arrive at the first group; the second group is an exception inside a
 * handler (or before the boot code switched stacks).  Both run on SP_EL1,
 * the CPU's exception stack.  The lower-EL groups are reported as bugs.
 *
 * Each entry makes room for a struct trap_frame (trap_frame.h), saves
 * x0/x1, puts its number in x1 and jumps to trap_entry, which saves the
 * rest: general and exception registers, and the FP/SIMD state (q0-q31,
 * FPCR, FPSR), because handlers call printk and newlib uses the q
 * registers.  The exception masked IRQs (DAIF), and they stay masked
 * until eret.
 *
 * A kernel stack overflow needs no check here: the task's stack is
 * SP_EL0, and the exception came in on SP_EL1.
 */
#include "trap_frame.h"
#include "exception_stack.h"

	.macro	ventry kind
	.balign	0x80
	sub	sp, sp, #TF_SIZE
	/*
	 * Does the frame fit on the exception stack?  Its addresses have
	 * bit EXC_STACK_BIT set, the guard page and the rest of the 16 KiB
	 * below it clear (exception_stack.h).  No register is free yet, so
	 * sp and x0 trade places for the test: sp + x0 - x0.
	 */
	add	sp, sp, x0
	sub	x0, sp, x0
	tbz	x0, #EXC_STACK_BIT, exception_stack_overflow
	sub	x0, sp, x0
	sub	sp, sp, x0
	stp	x0, x1, [sp, #TF_X0]
	mov	x1, #\kind
	b	trap_entry
	.endm

	.section .text, "ax"
	.balign	2048
	.globl	vectors
vectors:
	.set	kind, 0
	.rept	16
	ventry	kind
	.set	kind, kind + 1
	.endr

	.type	trap_entry, %function
trap_entry:
	stp	x2, x3, [sp, #16 * 1]
	stp	x4, x5, [sp, #16 * 2]
	stp	x6, x7, [sp, #16 * 3]
	stp	x8, x9, [sp, #16 * 4]
	stp	x10, x11, [sp, #16 * 5]
	stp	x12, x13, [sp, #16 * 6]
	stp	x14, x15, [sp, #16 * 7]
	stp	x16, x17, [sp, #16 * 8]
	stp	x18, x19, [sp, #16 * 9]
	stp	x20, x21, [sp, #16 * 10]
	stp	x22, x23, [sp, #16 * 11]
	stp	x24, x25, [sp, #16 * 12]
	stp	x26, x27, [sp, #16 * 13]
	stp	x28, x29, [sp, #16 * 14]
	/* The interrupted sp: SP_EL0 from kernel code (kinds 0-3), else ours. */
	mrs	x2, sp_el0
	add	x3, sp, #TF_SIZE
	cmp	x1, #VEC_CUR_SPX_SYNC
	csel	x2, x2, x3, lo
	stp	x30, x2, [sp, #16 * 15]
	mrs	x2, elr_el1
	mrs	x3, spsr_el1
	stp	x2, x3, [sp, #TF_ELR]
	mrs	x4, esr_el1
	mrs	x5, far_el1
	stp	x4, x5, [sp, #TF_ESR]
	str	x1, [sp, #TF_KIND]
	/*
	 * A frame record {x29, elr + 4}: a backtrace taken inside the
	 * handler walks on into the interrupted code.  The walker prints
	 * "return address - 1" (to land inside the call); elr + 4 makes
	 * that land inside the interrupted instruction.
	 */
	add	x3, x2, #4
	stp	x29, x3, [sp, #TF_FRAME]
	add	x29, sp, #TF_FRAME

	mrs	x2, fpcr
	mrs	x3, fpsr
	stp	x2, x3, [sp, #TF_FPCR]
	add	x2, sp, #TF_Q
	stp	q0, q1, [x2, #32 * 0]
	stp	q2, q3, [x2, #32 * 1]
	stp	q4, q5, [x2, #32 * 2]
	stp	q6, q7, [x2, #32 * 3]
	stp	q8, q9, [x2, #32 * 4]
	stp	q10, q11, [x2, #32 * 5]
	stp	q12, q13, [x2, #32 * 6]
	stp	q14, q15, [x2, #32 * 7]
	stp	q16, q17, [x2, #32 * 8]
	stp	q18, q19, [x2, #32 * 9]
	stp	q20, q21, [x2, #32 * 10]
	stp	q22, q23, [x2, #32 * 11]
	stp	q24, q25, [x2, #32 * 12]
	stp	q26, q27, [x2, #32 * 13]
	stp	q28, q29, [x2, #32 * 14]
	stp	q30, q31, [x2, #32 * 15]

	mov	x0, sp
	bl	trap_dispatch
trap_restore:
	add	x2, sp, #TF_Q
	ldp	q0, q1, [x2, #32 * 0]
	ldp	q2, q3, [x2, #32 * 1]
	ldp	q4, q5, [x2, #32 * 2]
	ldp	q6, q7, [x2, #32 * 3]
	ldp	q8, q9, [x2, #32 * 4]
	ldp	q10, q11, [x2, #32 * 5]
	ldp	q12, q13, [x2, #32 * 6]
	ldp	q14, q15, [x2, #32 * 7]
	ldp	q16, q17, [x2, #32 * 8]
	ldp	q18, q19, [x2, #32 * 9]
	ldp	q20, q21, [x2, #32 * 10]
	ldp	q22, q23, [x2, #32 * 11]
	ldp	q24, q25, [x2, #32 * 12]
	ldp	q26, q27, [x2, #32 * 13]
	ldp	q28, q29, [x2, #32 * 14]
	ldp	q30, q31, [x2, #32 * 15]
	ldp	x2, x3, [sp, #TF_FPCR]
	msr	fpcr, x2
	msr	fpsr, x3
	/* A nested exception (a fault inside a handler) overwrote these. */
	ldp	x2, x3, [sp, #TF_ELR]
	msr	elr_el1, x2
	msr	spsr_el1, x3

	ldp	x2, x3, [sp, #16 * 1]
	ldp	x4, x5, [sp, #16 * 2]
	ldp	x6, x7, [sp, #16 * 3]
	ldp	x8, x9, [sp, #16 * 4]
	ldp	x10, x11, [sp, #16 * 5]
	ldp	x12, x13, [sp, #16 * 6]
	ldp	x14, x15, [sp, #16 * 7]
	ldp	x16, x17, [sp, #16 * 8]
	ldp	x18, x19, [sp, #16 * 9]
	ldp	x20, x21, [sp, #16 * 10]
	ldp	x22, x23, [sp, #16 * 11]
	ldp	x24, x25, [sp, #16 * 12]
	ldp	x26, x27, [sp, #16 * 13]
	ldp	x28, x29, [sp, #16 * 14]
	ldr	x30, [sp, #16 * 15]
	ldp	x0, x1, [sp, #TF_X0]
	add	sp, sp, #TF_SIZE
	eret
	.size	trap_entry, . - trap_entry

/*
 * PREEMPT=1 only (trap.c: preempt_on_task_stack()): the exception returned
 * here at EL1t, on the interrupted task's stack, interrupts off, sp at a
 * copy of the trap frame.  Switch tasks; when this task runs again,
 * restore the copy (sp then is the interrupted sp again) and eret.
 */
	.globl	preempt_return
	.type	preempt_return, %function
preempt_return:
	add	x29, sp, #TF_FRAME		/* backtraces walk on into the interrupted code */
	bl	preempt_schedule_irq
	b	trap_restore
	.size	preempt_return, . - preempt_return

/*
 * An exception whose frame would not fit on the exception stack: a
 * handler overflowed it into its guard page (x0 holds the sp it reached;
 * x0's own value is lost).  The report runs on the emergency stack of the
 * same slot; a fault there lands here again, and panic() ends it.
 */
	.type	exception_stack_overflow, %function
exception_stack_overflow:
	mov	x1, x0
	and	x0, x0, #~(EXC_SLOT_SIZE - 1)
	add	x0, x0, #EXC_EMERGENCY_TOP
	mov	sp, x0
	mov	x0, x1
	mrs	x1, elr_el1
	mrs	x2, far_el1
	mov	x29, xzr			/* the overflowed stack is no backtrace */
	bl	exception_stack_overflow_report
1:	b	1b
	.size	exception_stack_overflow, . - exception_stack_overflow

	.section .note.GNU-stack, "", %progbits
