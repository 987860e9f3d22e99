/*
 * The other CPUs' first instructions.  The boot CPU copies this code to
 * TRAMPOLINE_BASE (below 1 MiB: a startup IPI can only point there) and
 * sends INIT-SIPI-SIPI; each CPU wakes in 16-bit real mode at its start.
 * It goes real -> protected -> long mode, takes the stack and CPU number
 * the boot CPU left in the trampoline's data, and jumps to ap_entry64.
 * Code here runs at a different address than it was linked at, so every
 * address is written as an offset from trampoline_start (ABS below).
 */
#include "cr0.h"

#define TRAMPOLINE_BASE	0x8000
#define ABS(x)		((x) - trampoline_start + TRAMPOLINE_BASE)

	.section .text, "ax"
	.code16
	.globl	trampoline_start, trampoline_end
	.globl	trampoline_stack, trampoline_cpu
trampoline_start:
	cli
	cld
	xorw	%ax, %ax
	movw	%ax, %ds
	lgdtl	ABS(tramp_gdt_ptr)
	/* Whole, not OR-ed: INIT leaves CD and NW set (caches off). */
	movl	$CR0_PROTECTED, %eax
	movl	%eax, %cr0
	ljmpl	$0x08, $ABS(tramp32)

	.code32
tramp32:
	movw	$0x10, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movl	$ABS(tramp_tmp_stack_top), %esp
	movl	$enter_long_mode_32, %eax	/* in the kernel proper: call it by address */
	call	*%eax
	ljmp	$0x18, $ABS(tramp64)

	.code64
tramp64:
	movw	$0x10, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	movq	ABS(trampoline_stack), %rsp
	movl	ABS(trampoline_cpu), %edi
	movabsq	$ap_entry64, %rax
	jmp	*%rax

	.balign 8
tramp_gdt:
	.quad	0
	.quad	0x00cf9a000000ffff		/* 0x08: 32-bit code */
	.quad	0x00cf92000000ffff		/* 0x10: data */
	.quad	0x00af9a000000ffff		/* 0x18: 64-bit code */
tramp_gdt_end:
tramp_gdt_ptr:
	.short	tramp_gdt_end - tramp_gdt - 1
	.long	ABS(tramp_gdt)
	.balign 8
trampoline_stack:			/* written by the boot CPU before each start */
	.quad	0
trampoline_cpu:
	.long	0
	.balign 16
	.skip	64				/* enough for the one call above */
tramp_tmp_stack_top:
trampoline_end:

/*
 * Long mode, kernel addresses: SSE on, frame chain ended, then C, whose
 * first act is to load this CPU's descriptor tables, the IDT among them
 * (x86_ap_entry(), arch/x86_64/setup.c).
 */
	.globl	ap_entry64
ap_entry64:
	pushq	%rdi
	call	enable_sse
	popq	%rdi
	xorl	%ebp, %ebp
	call	x86_ap_entry
1:	cli
	hlt
	jmp	1b

	.section .note.GNU-stack, "", @progbits
