/*
 * arch_switch_to(void **prev_sp, void *next_sp): the context switch.
 * Only the callee-saved registers need saving: the C compiler has saved
 * everything else around the call.  Of the FP/SSE state the System V
 * ABI makes callee-saved only MXCSR's control bits and the x87 control
 * word: the xmm registers are the caller's to save, and the user's
 * whole SSE state was saved by the entry from user mode (syscall_entry.S,
 * vectors.S), on this thread's kernel stack, and is restored on the way
 * back.  So a switch keeps the two control words (one slot below the
 * registers, task.c) and no fxsave: one per entry, none per switch.
 */
	.section .text, "ax"
	.code64
	.globl	arch_switch_to
arch_switch_to:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	subq	$8, %rsp
	stmxcsr	(%rsp)
	fnstcw	4(%rsp)
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	ldmxcsr	(%rsp)
	fldcw	4(%rsp)
	addq	$8, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret

/*
 * fp_callee_saved_call(const u64 *set, u64 *got, void (*fn)(void *), void *arg),
 * for tests (task.c): loads MXCSR from set[0] and the x87 control word
 * from set[1], calls fn(arg), stores both in got[0] and got[1].  In
 * assembly so that no compiler-generated code runs between the loads,
 * the call and the stores.  The caller's own values are put back.
 */
	.globl	fp_callee_saved_call
fp_callee_saved_call:
	pushq	%rbp
	movq	%rsp, %rbp
	pushq	%rbx
	subq	$24, %rsp			/* 16-byte aligned for the call */
	stmxcsr	(%rsp)
	fnstcw	4(%rsp)
	movq	%rsi, %rbx
	ldmxcsr	(%rdi)
	fldcw	8(%rdi)
	movq	%rcx, %rdi
	call	*%rdx
	stmxcsr	(%rbx)
	fnstcw	8(%rbx)
	ldmxcsr	(%rsp)
	fldcw	4(%rsp)
	addq	$24, %rsp
	popq	%rbx
	popq	%rbp
	ret

	.section .note.GNU-stack, "", @progbits
