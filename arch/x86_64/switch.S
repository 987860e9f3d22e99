/*
 * arch_switch_to(void **prev_sp, void *next_sp): the context switch.
 * Only the callee-saved registers need saving: the C compiler has saved
 * everything else around the call.  The FP/SIMD state is switched in C
 * (arch_fpu_save/restore) just before.
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
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret

	.section .note.GNU-stack, "", @progbits
