/*
 * size_t x86_copy_user(void *dst, const void *src, size_t n): the bytes
 * NOT copied.  Two instructions touch user memory, rep movsq (the 8-byte
 * words) and rep movsb (the bytes left), and the .ex_table entries below
 * name them: if one faults (a bad user pointer), the page-fault handler
 * resumes at its fix-up instead of reporting a kernel bug
 * (kernel/user/uaccess.h).  A rep instruction that faults leaves rcx at
 * the count it did not copy, from which the fix-up makes the answer.
 * (Words first: under QEMU's TCG a byte-by-byte rep movsb copies a
 * fraction as fast.)
 */
	.section .text, "ax"
	.code64
	.globl	x86_copy_user
x86_copy_user:
	movq	%rdx, %rcx
	shrq	$3, %rcx
	andl	$7, %edx
copy_user_words:
	rep movsq
	movl	%edx, %ecx
copy_user_bytes:
	rep movsb
	xorl	%eax, %eax
	ret
words_fixup:
	leaq	(%rdx, %rcx, 8), %rax		/* the words left, and the bytes after them */
	ret
bytes_fixup:
	movq	%rcx, %rax
	ret

	.section .ex_table, "a"
	.balign	8
	.quad	copy_user_words, words_fixup
	.quad	copy_user_bytes, bytes_fixup

	.section .note.GNU-stack, "", @progbits
