/*
 * Interrupt and exception entry.  One 16-byte stub per vector pushes a
 * dummy error code where the CPU pushes none, then the vector number, and
 * jumps to trap_common, which saves the general registers and the SSE
 * state (newlib and vectorised C use xmm registers, so a handler that
 * calls printk would otherwise corrupt the interrupted code's), and calls
 * trap_dispatch(struct trap_frame *).
 */
	.section .text, "ax"
	.code64
	.globl	trap_stubs
	.balign	16
trap_stubs:
	.set	vec, 0
	.rept	256
	.balign	16
	.if (vec == 8) || (vec >= 10 && vec <= 14) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
	.else
	pushq	$0
	.endif
	pushq	$vec
	jmp	trap_common
	.set	vec, vec + 1
	.endr

trap_common:
	pushq	%r15
	pushq	%r14
	pushq	%r13
	pushq	%r12
	pushq	%r11
	pushq	%r10
	pushq	%r9
	pushq	%r8
	pushq	%rbp
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%rbx
	pushq	%rax
	cld
	movq	%rsp, %r12			/* the trap_frame; r12 survives the call */
	subq	$512, %rsp
	andq	$-16, %rsp			/* fxsave needs 16-byte alignment */
	fxsave64 (%rsp)
	movq	%r12, %rdi
	call	trap_dispatch
	fxrstor64 (%rsp)
	movq	%r12, %rsp
	popq	%rax
	popq	%rbx
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	popq	%rbp
	popq	%r8
	popq	%r9
	popq	%r10
	popq	%r11
	popq	%r12
	popq	%r13
	popq	%r14
	popq	%r15
	addq	$16, %rsp			/* vector and error code */
	iretq

	.section .note.GNU-stack, "", @progbits
