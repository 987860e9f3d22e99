/*
 * long q_syscall(long nr, long a0, ..., long a5): the system-call
 * instruction and nothing else (lib/syscall.h: number in x8, arguments in
 * x0-x5, the result in x0; every other register preserved).
 */
	.section .text, "ax"
	.globl	q_syscall
	.type	q_syscall, %function
q_syscall:
	mov	x8, x0
	mov	x0, x1
	mov	x1, x2
	mov	x2, x3
	mov	x3, x4
	mov	x4, x5
	mov	x5, x6
	svc	#0
	ret
	.size	q_syscall, . - q_syscall

	.section .note.GNU-stack, "", %progbits
