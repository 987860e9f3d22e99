/*
 * A program's first instructions (x86-64).  The kernel enters here with
 * rdi pointing at argc on the stack, argv right above it
 * (kernel/user/exec.c), rsp 16-byte aligned, every other register zero.
 * __user_start (user/lib/start.c) sets the thread up and calls main().
 */
	.section .text.start, "ax"
	.globl	_start
	.type	_start, @function
_start:
	xorl	%ebp, %ebp			/* the end of every backtrace */
	movl	(%rdi), %r8d
	leaq	8(%rdi), %rsi			/* argv */
	movl	%r8d, %edi			/* argc */
	call	__user_start
	ud2					/* never returns */
	.size	_start, . - _start

/*
 * A new thread starts here (q_thread_create(), user/lib/thread.c) with
 * rdi = its block: the same stack alignment a call would give, then C.
 */
	.section .text, "ax"
	.globl	__thread_entry
	.type	__thread_entry, @function
__thread_entry:
	xorl	%ebp, %ebp
	andq	$-16, %rsp
	call	__thread_main
	ud2
	.size	__thread_entry, . - __thread_entry

	.section .note.GNU-stack, "", @progbits
