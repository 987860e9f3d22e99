/*
 * arch_switch_to(void **prev_sp, void *next_sp): the context switch.
 * Only the registers AAPCS64 makes callee-saved need saving: x19-x28, the
 * frame pointer x29, the return address x30, d8-d15 (the low halves of
 * v8-v15) and FPCR's control fields.  The frame is 22 words, laid out as
 * task.c expects.  The rest of the FP/SIMD state is the caller's to
 * save, and the user's whole state was saved by the entry from EL0
 * (vectors.S, user_entry) in the thread's trap frame and is restored on
 * the way back: no switch saves q0-q31 (one save per entry, none per
 * switch).  FPCR is written only when it differs: a write is a system
 * register write, and threads almost always share the default.
 * tests/fpu.c checks every callee-saved one across a switch.
 */
	.section .text, "ax"
	.globl	arch_switch_to
	.type	arch_switch_to, %function
arch_switch_to:
	sub	sp, sp, #176
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	stp	d8, d9, [sp, #96]
	stp	d10, d11, [sp, #112]
	stp	d12, d13, [sp, #128]
	stp	d14, d15, [sp, #144]
	mrs	x9, fpcr
	str	x9, [sp, #160]
	mov	x9, sp
	str	x9, [x0]
	mov	sp, x1
	ldr	x9, [sp, #160]
	mrs	x10, fpcr
	cmp	x9, x10
	b.eq	1f
	msr	fpcr, x9
1:
	ldp	x19, x20, [sp, #0]
	ldp	x21, x22, [sp, #16]
	ldp	x23, x24, [sp, #32]
	ldp	x25, x26, [sp, #48]
	ldp	x27, x28, [sp, #64]
	ldp	x29, x30, [sp, #80]
	ldp	d8, d9, [sp, #96]
	ldp	d10, d11, [sp, #112]
	ldp	d12, d13, [sp, #128]
	ldp	d14, d15, [sp, #144]
	add	sp, sp, #176
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

/*
 * fp_callee_saved_call(const u64 *set, u64 *got, void (*fn)(void *), void *arg),
 * for tests (task.c): loads d8-d15 from set[0..7] and FPCR from set[8],
 * calls fn(arg), stores d8-d15 and FPCR in got[0..8].  In assembly so
 * that no compiler-generated code runs between the loads, the call and
 * the stores.  The caller's own d8-d15 and FPCR are put back.
 */
	.globl	fp_callee_saved_call
	.type	fp_callee_saved_call, %function
fp_callee_saved_call:
	stp	x29, x30, [sp, #-112]!
	mov	x29, sp
	stp	x19, x20, [sp, #16]
	stp	d8, d9, [sp, #32]
	stp	d10, d11, [sp, #48]
	stp	d12, d13, [sp, #64]
	stp	d14, d15, [sp, #80]
	mrs	x9, fpcr
	str	x9, [sp, #96]
	mov	x19, x1
	ldp	d8, d9, [x0, #0]
	ldp	d10, d11, [x0, #16]
	ldp	d12, d13, [x0, #32]
	ldp	d14, d15, [x0, #48]
	ldr	x9, [x0, #64]
	msr	fpcr, x9
	mov	x0, x3
	blr	x2
	stp	d8, d9, [x19, #0]
	stp	d10, d11, [x19, #16]
	stp	d12, d13, [x19, #32]
	stp	d14, d15, [x19, #48]
	mrs	x9, fpcr
	str	x9, [x19, #64]
	ldr	x9, [sp, #96]
	msr	fpcr, x9
	ldp	d8, d9, [sp, #32]
	ldp	d10, d11, [sp, #48]
	ldp	d12, d13, [sp, #64]
	ldp	d14, d15, [sp, #80]
	ldp	x19, x20, [sp, #16]
	ldp	x29, x30, [sp], #112
	ret
	.size	fp_callee_saved_call, . - fp_callee_saved_call

	.section .note.GNU-stack, "", %progbits
