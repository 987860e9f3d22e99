/*
 * long q_syscall(long nr, long a0, ..., long a5): the system-call
 * instruction and nothing else (lib/syscall.h: number in rax, arguments
 * in rdi, rsi, rdx, r10, r8, r9; rcx and r11 lost).
 */
	.section .text, "ax"
	.globl	q_syscall
	.type	q_syscall, @function
q_syscall:
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rdx, %rsi
	movq	%rcx, %rdx
	movq	%r8, %r10
	movq	%r9, %r8
	movq	8(%rsp), %r9
	syscall
	ret
	.size	q_syscall, . - q_syscall

	.section .note.GNU-stack, "", @progbits
