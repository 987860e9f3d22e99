/*
 * long q_ipc(long nr, long slot, struct q_msg *m): an IPC system call
 * whose message travels in registers (lib/ipc.h): the slot in x0, the
 * info word and the four words from *m into x1-x5; the same registers
 * back into *m afterwards.  x9 keeps m (the kernel preserves it).
 */
	.section .text, "ax"
	.globl	q_ipc
q_ipc:
	mov	x8, x0
	mov	x9, x2
	mov	x0, x1
	ldp	x1, x2, [x9]
	ldp	x3, x4, [x9, #16]
	ldr	x5, [x9, #32]
	svc	#0
	stp	x1, x2, [x9]
	stp	x3, x4, [x9, #16]
	str	x5, [x9, #32]
	ret
