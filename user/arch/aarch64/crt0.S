/*
 * A program's first instructions (AArch64).  The kernel enters here with
 * x0 pointing at argc on the stack, argv right above it
 * (kernel/user/exec.c), sp 16-byte aligned, every other register and the
 * SIMD state zero.  __user_start (user/lib/start.c) sets the thread up
 * and calls main().
 */
	.section .text.start, "ax"
	.globl	_start
	.type	_start, %function
_start:
	mov	x29, xzr			/* the end of every backtrace */
	mov	x30, xzr
	mov	x2, x0
	ldr	w0, [x2]			/* argc */
	add	x1, x2, #8			/* argv */
	bl	__user_start
	udf	#0				/* never returns */
	.size	_start, . - _start

/*
 * A new thread starts here (q_thread_create(), user/lib/thread.c) with
 * x0 = its block and sp at the top of its own stack, 16-byte aligned.
 */
	.section .text, "ax"
	.globl	__thread_entry
	.type	__thread_entry, %function
__thread_entry:
	mov	x29, xzr
	mov	x30, xzr
	bl	__thread_main
	udf	#0
	.size	__thread_entry, . - __thread_entry

	.section .note.GNU-stack, "", %progbits
