/*
 * Exception entry.  VBAR_EL1 points at `vectors`: 16 entries of 128 bytes
 * (current EL on SP_EL0 / on SP_EL1 / lower EL AArch64 / lower EL AArch32,
 * each sync, IRQ, FIQ, SError).  Every exception to EL1 switches to
 * SP_EL1, this CPU's exception stack (stacks.c says why).
 *
 *   - Kernel code runs on SP_EL0 (EL1t), so its exceptions arrive at the
 *     first group; the second group is an exception inside a handler (or
 *     before the boot code switched stacks).  Both are handled on the
 *     exception stack (trap_entry) and return there.
 *   - User mode (EL0) arrives at the third group (user_entry).  Its
 *     handler may sleep or switch tasks (a system call, the tick that
 *     preempts user mode), which the per-CPU exception stack cannot
 *     allow, so the frame goes on the thread's own kernel stack, whose
 *     top this CPU keeps in struct cpu (user_entry_sp, set at every
 *     switch to a user thread: arch_user_thread_switch()), and the
 *     handler runs there at EL1t, as any kernel code: a kernel stack
 *     overflow in it faults onto the exception stack and is reported.
 *     The user's sp (SP_EL0) and TPIDR_EL0 go in the frame; the return
 *     (ret_to_user) puts them back and erets from SP_EL1, empty again.
 *   - The AArch32 group is never entered: nothing runs AArch32.
 *
 * A frame (trap_frame.h) holds the general and exception registers and
 * the FP/SIMD state (q0-q31, FPCR, FPSR): handlers call printk and newlib
 * uses the q registers, and a system call preserves the user's SIMD
 * state (lib/syscall.h).  The exception masked IRQs (DAIF), and they stay
 * masked until eret, unless the handler unmasks them (system calls do).
 */
#include "trap_frame.h"
#include "exception_stack.h"
#include "cpu_offsets.h"

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

	/* From EL0: the exception stack is empty, so two words always fit. */
	.macro	ventry_user kind
	.balign	0x80
	stp	x0, x1, [sp, #-16]!
	mov	x1, #\kind
	b	user_entry
	.endm

	/* x2-x29 into the frame at \base (x0, x1, x30 and sp are the caller's). */
	.macro	save_x2_x29 base
	stp	x2, x3, [\base, #16 * 1]
	stp	x4, x5, [\base, #16 * 2]
	stp	x6, x7, [\base, #16 * 3]
	stp	x8, x9, [\base, #16 * 4]
	stp	x10, x11, [\base, #16 * 5]
	stp	x12, x13, [\base, #16 * 6]
	stp	x14, x15, [\base, #16 * 7]
	stp	x16, x17, [\base, #16 * 8]
	stp	x18, x19, [\base, #16 * 9]
	stp	x20, x21, [\base, #16 * 10]
	stp	x22, x23, [\base, #16 * 11]
	stp	x24, x25, [\base, #16 * 12]
	stp	x26, x27, [\base, #16 * 13]
	stp	x28, x29, [\base, #16 * 14]
	.endm

	.macro	restore_x2_x30 base
	ldp	x2, x3, [\base, #16 * 1]
	ldp	x4, x5, [\base, #16 * 2]
	ldp	x6, x7, [\base, #16 * 3]
	ldp	x8, x9, [\base, #16 * 4]
	ldp	x10, x11, [\base, #16 * 5]
	ldp	x12, x13, [\base, #16 * 6]
	ldp	x14, x15, [\base, #16 * 7]
	ldp	x16, x17, [\base, #16 * 8]
	ldp	x18, x19, [\base, #16 * 9]
	ldp	x20, x21, [\base, #16 * 10]
	ldp	x22, x23, [\base, #16 * 11]
	ldp	x24, x25, [\base, #16 * 12]
	ldp	x26, x27, [\base, #16 * 13]
	ldp	x28, x29, [\base, #16 * 14]
	ldr	x30, [\base, #16 * 15]
	.endm

	/* The exception registers into the frame at sp.  Uses x2-x5. */
	.macro	save_exception_regs
	mrs	x2, elr_el1
	mrs	x3, spsr_el1
	stp	x2, x3, [sp, #TF_ELR]
	mrs	x4, esr_el1
	mrs	x5, far_el1
	stp	x4, x5, [sp, #TF_ESR]
	.endm

	/* The FP/SIMD state into the frame at sp, and back.  Uses x2, x3. */
	.macro	save_fp
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
	.endm

	.macro	restore_fp
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
	.endm

	.section .text, "ax"
	.balign	2048
	.globl	vectors
vectors:
	.set	kind, 0
	.rept	8
	ventry	kind
	.set	kind, kind + 1
	.endr
	.rept	4
	ventry_user kind
	.set	kind, kind + 1
	.endr
	.rept	4
	ventry	kind
	.set	kind, kind + 1
	.endr

	.type	trap_entry, %function
trap_entry:
	save_x2_x29 sp
	/* The interrupted sp: SP_EL0 from kernel code (kinds 0-3), else ours. */
	mrs	x2, sp_el0
	add	x3, sp, #TF_SIZE
	cmp	x1, #VEC_CUR_SPX_SYNC
	csel	x2, x2, x3, lo
	stp	x30, x2, [sp, #16 * 15]
	str	x1, [sp, #TF_KIND]
	save_exception_regs
	/*
	 * A frame record {x29, elr + 4}: a backtrace taken inside the
	 * handler walks on into the interrupted code.  The walker prints
	 * "return address - 1" (to land inside the call); elr + 4 makes
	 * that land inside the interrupted instruction.
	 */
	add	x3, x2, #4
	stp	x29, x3, [sp, #TF_FRAME]
	add	x29, sp, #TF_FRAME
	save_fp
	mov	x0, sp
	bl	trap_dispatch
trap_restore:
	restore_fp
	/* A nested exception (a fault inside a handler) overwrote these. */
	ldp	x2, x3, [sp, #TF_ELR]
	msr	elr_el1, x2
	msr	spsr_el1, x3
	restore_x2_x30 sp
	ldp	x0, x1, [sp, #TF_X0]
	add	sp, sp, #TF_SIZE
	eret
	.size	trap_entry, . - trap_entry

/*
 * From user mode, on SP_EL1 with the user's x0 and x1 pushed there and
 * the vector's kind in x1.  The frame is built at the top of the thread's
 * kernel stack, the exception stack left empty, and the handler runs on
 * the kernel stack at EL1t.
 */
	.type	user_entry, %function
user_entry:
	mrs	x0, tpidr_el1			/* this CPU's struct cpu */
	ldr	x0, [x0, #CPU_USER_ENTRY_SP]
	sub	x0, x0, #TF_SIZE
	save_x2_x29 x0
	str	x1, [x0, #TF_KIND]
	ldp	x2, x3, [sp], #16		/* the user's x0, x1: SP_EL1 empty again */
	stp	x2, x3, [x0, #TF_X0]
	mrs	x2, sp_el0			/* the user's sp */
	stp	x30, x2, [x0, #16 * 15]
	mrs	x2, tpidr_el0			/* the user's thread pointer (EL0 may write it) */
	str	x2, [x0, #TF_TPIDR]
	msr	sp_el0, x0
	msr	spsel, #0			/* EL1t, on the kernel stack, at the frame */
	save_exception_regs
	stp	xzr, xzr, [sp, #TF_FRAME]	/* kernel backtraces end here */
	add	x29, sp, #TF_FRAME
	save_fp
	mov	x0, sp
	bl	trap_dispatch			/* returns with IRQs masked */
	b	ret_to_user
	.size	user_entry, . - user_entry

/*
 * Back to user mode from the frame at sp (on the thread's kernel stack,
 * EL1t), IRQs masked: the FP/SIMD state, elr, spsr and TPIDR_EL0, then
 * onto SP_EL1 (empty) so that SP_EL0 can take the user's sp, the general
 * registers, eret.  A thread's first entry comes here too
 * (aarch64_enter_user).
 */
	.type	ret_to_user, %function
ret_to_user:
	restore_fp
	ldp	x2, x3, [sp, #TF_ELR]
	msr	elr_el1, x2
	msr	spsr_el1, x3
	ldr	x2, [sp, #TF_TPIDR]
	msr	tpidr_el0, x2
	mov	x0, sp
	msr	spsel, #1
	ldr	x1, [x0, #TF_SP]
	msr	sp_el0, x1
	restore_x2_x30 x0
	ldp	x0, x1, [x0, #TF_X0]
	eret
	.size	ret_to_user, . - ret_to_user

/* aarch64_enter_user(struct trap_frame *tf): a thread's first entry to user mode, IRQs masked. */
	.globl	aarch64_enter_user
	.type	aarch64_enter_user, %function
aarch64_enter_user:
	mov	sp, x0
	b	ret_to_user
	.size	aarch64_enter_user, . - aarch64_enter_user

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
