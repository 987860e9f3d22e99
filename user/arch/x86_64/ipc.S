/*
 * long q_ipc(long nr, long slot, struct q_msg *m): an IPC system call
 * whose message travels in registers (lib/ipc.h): the slot in rdi, the
 * info word and the four words from *m into rsi, rdx, r10, r8, r9; the
 * same registers back into *m afterwards (the kernel leaves them as they
 * were when it received nothing).  rbx keeps m across the call.
 */
	.section .text, "ax"
	.globl	q_ipc
q_ipc:
	pushq	%rbx
	movq	%rdx, %rbx
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	0(%rbx), %rsi
	movq	8(%rbx), %rdx
	movq	16(%rbx), %r10
	movq	24(%rbx), %r8
	movq	32(%rbx), %r9
	syscall
	movq	%rsi, 0(%rbx)
	movq	%rdx, 8(%rbx)
	movq	%r10, 16(%rbx)
	movq	%r8, 24(%rbx)
	movq	%r9, 32(%rbx)
	popq	%rbx
	ret

	.section .note.GNU-stack, "", @progbits
