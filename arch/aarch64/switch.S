/*
 * arch_switch_to(void **prev_sp, void *next_sp): the context switch.
 * Only the callee-saved registers need saving (x19-x28, the frame pointer
 * x29 and the return address x30; AAPCS64 also has d8-d15 callee-saved,
 * but the FP/SIMD state is switched whole in C by arch_fpu_save/restore
 * just before).  The frame is 12 words, laid out as task.c expects.
 */
	.section .text, "ax"
	.globl	arch_switch_to
	.type	arch_switch_to, %function
arch_switch_to:
	sub	sp, sp, #96
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	mov	x9, sp
	str	x9, [x0]
	mov	sp, x1
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	add	sp, sp, #96
	ret
	.size	arch_switch_to, . - arch_switch_to

/* A new task's first return (task.c): entry in x19, no caller. */
	.globl	task_first_entry
	.type	task_first_entry, %function
task_first_entry:
	mov	x29, xzr
	mov	x30, xzr
	br	x19
	.size	task_first_entry, . - task_first_entry

	.section .note.GNU-stack, "", %progbits
