/*
 * The general registers of a trap frame (x86.h: struct trap_frame), saved
 * and restored in its order, for the entries in vectors.S and
 * syscall_entry.S; and the offsets of the words after them.  Assembly only.
 */
#ifndef ARCH_X86_64_TRAP_FRAME_H
#define ARCH_X86_64_TRAP_FRAME_H

#define TF_VECTOR	(15 * 8)
#define TF_ERROR	(16 * 8)
#define TF_CS		(18 * 8)

	.macro	PUSH_REGS
	pushq	%r15
	pushq	%r14
	pushq	%r13
	pushq	%r12
	pushq	%r11
	pushq	%r10
	pushq	%r9
	pushq	%r8
	pushq	%rbp
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%rbx
	pushq	%rax
	.endm

	.macro	POP_REGS
	popq	%rax
	popq	%rbx
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	popq	%rbp
	popq	%r8
	popq	%r9
	popq	%r10
	popq	%r11
	popq	%r12
	popq	%r13
	popq	%r14
	popq	%r15
	.endm

#endif
