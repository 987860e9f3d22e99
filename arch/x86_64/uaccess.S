/*
 * size_t x86_copy_user(void *dst, const void *src, size_t n): the bytes
 * NOT copied.  One instruction touches user memory, rep movsb, and the
 * .ex_table entry below names it: if it faults (a bad user pointer), the
 * page-fault handler resumes at the fix-up instead of reporting a kernel
 * bug (kernel/user/uaccess.h).  rep movsb leaves rcx at the bytes it did
 * not copy when it faults, which is the answer.
 */
	.section .text, "ax"
	.code64
	.globl	x86_copy_user
x86_copy_user:
	movq	%rdx, %rcx
copy_user_insn:
	rep movsb
	xorl	%eax, %eax
	ret
copy_user_fixup:
	movq	%rcx, %rax
	ret

	.section .ex_table, "a"
	.balign	8
	.quad	copy_user_insn, copy_user_fixup

	.section .note.GNU-stack, "", @progbits
