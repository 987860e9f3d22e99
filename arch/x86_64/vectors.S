/*
 * Interrupt and exception entry.  One 16-byte stub per vector pushes a
 * dummy error code where the CPU pushes none, then the vector number, and
 * jumps to trap_common, which saves the general registers and the SSE
 * state (newlib and vectorised C use xmm registers, so a handler that
 * calls printk would otherwise corrupt the interrupted code's), and calls
 * trap_dispatch(struct trap_frame *).
 *
 * From user mode the CPU has switched to the thread's kernel stack (the
 * TSS's RSP0), but GS still holds the user's base: swapgs, now and again
 * on the way out.  Whether the interrupted code was user mode, CS says
 * (its RPL) -- except for the NMI, the double fault and the machine
 * check, which may strike anywhere, even between `syscall` and its swapgs
 * (CS is the kernel's there, GS the user's) or between the exit's swapgs
 * and sysret: those read the GS base itself, which is never 0 in the
 * kernel (this CPU's struct cpu) and always 0 in user mode (nothing lets
 * user code set it).  The decision is kept in the frame's error slot,
 * which the handler has read by then, for the way out.
 */
#include "trap_frame.h"

#define MSR_GS_BASE	0xc0000101
	.section .text, "ax"
	.code64
	.globl	trap_stubs
	.balign	16
trap_stubs:
	.set	vec, 0
	.rept	256
	.balign	16
	.if (vec == 8) || (vec >= 10 && vec <= 14) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
	.else
	pushq	$0
	.endif
	pushq	$vec
	jmp	trap_common
	.set	vec, vec + 1
	.endr

trap_common:
	PUSH_REGS
	cld
	movq	%rsp, %r12			/* the trap_frame; r12 survives the call */
	xorl	%r13d, %r13d			/* r13: 1 if we swapped GS */
	movq	TF_VECTOR(%r12), %rax
	cmpq	$2, %rax			/* NMI */
	je	1f
	cmpq	$8, %rax			/* double fault */
	je	1f
	cmpq	$18, %rax			/* machine check */
	je	1f
	testb	$3, TF_CS(%r12)			/* from user mode? */
	jz	3f
	jmp	2f
1:	movl	$MSR_GS_BASE, %ecx
	rdmsr					/* (rax, rcx, rdx are saved already) */
	orl	%edx, %eax
	jnz	3f
2:	swapgs
	movl	$1, %r13d
3:	cmpb	$0, x86_smap_enabled
	je	4f
	clac					/* user mode may have left AC set: SMAP holds here */
4:	subq	$512, %rsp
	andq	$-16, %rsp			/* fxsave needs 16-byte alignment */
	fxsave64 (%rsp)
	movq	%r12, %rdi
	call	trap_dispatch
	fxrstor64 (%rsp)
	movq	%r12, %rsp
	movq	%r13, TF_ERROR(%r12)		/* read below, after r13 is restored */
	POP_REGS
	testb	$1, 8(%rsp)			/* the error slot: did we swap GS? */
	jz	5f
	swapgs
5:	addq	$16, %rsp			/* vector and error code */
	iretq

	.section .note.GNU-stack, "", @progbits
