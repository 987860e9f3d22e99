/*
 * The known loop for x86 (tools/tests/test_profile.py): a bare-metal
 * multiboot program, 32-bit, booted by QEMU's -kernel.  It prints the
 * window's line on the serial port, runs LOOPS rounds of kl_loop inside
 * the window marks, and ends QEMU through isa-debug-exit (status 33).
 * Every instruction of a round is listed below with its class: the
 * counts the profile must find are these, by construction.
 *
 *	_start: 1 in the window (its call of kl_loop)
 *	kl_loop: 23 per round, and its ret once:
 *	  atomic_rmw 2 (lock incl, xchg with memory)
 *	  full_fence 2 (mfence, lock addl $0 on the stack)
 *	  fp_save 1, fp_restore 1 (fxsave, fxrstor)
 *	  msr_write 1 (wrmsr)
 *	  irq_mask 3 (cli, sti, cli)
 *	  pt_base_write 1 (mov to cr3)
 *	  clock_read 1 (rdtsc)
 *	  priv_change 1 (iret)
 *	kl_call: 3 per round
 */
#include "asm/profile.h"

#define LOOPS	1000

	.code32
	.text
	.align	4
multiboot_header:
	.long	0x1badb002, 0, -0x1badb002	/* magic, flags (ELF), checksum */

	.globl	_start
	.type	_start, @function
_start:
	movl	$stack_top, %esp
	movl	$line, %esi
1:	lodsb
	testb	%al, %al
	jz	2f
	movw	$0x3f8, %dx
	outb	%al, %dx
	jmp	1b
2:	movl	$LOOPS, %ebp
	PROFILE_MARK_OPEN
	call	kl_loop
	PROFILE_MARK_CLOSE
	movb	$0x10, %al		/* isa-debug-exit: QEMU exits with 0x10 << 1 | 1 */
	outb	%al, $0xf4
3:	hlt
	jmp	3b
	.size	_start, . - _start

	.type	kl_loop, @function
kl_loop:
	lock incl counter
	xchgl	%eax, counter + 4
	mfence
	lock addl $0, -4(%esp)
	fxsave	fxarea
	fxrstor	fxarea
	movl	$0x174, %ecx		/* IA32_SYSENTER_CS: harmless here */
	xorl	%eax, %eax
	xorl	%edx, %edx
	wrmsr
	cli
	sti				/* (its shadow: cli runs before any interrupt) */
	cli
	movl	%cr3, %eax
	movl	%eax, %cr3
	rdtsc
	pushfl
	pushl	%cs
	pushl	$4f
	iret
4:	call	kl_call
	decl	%ebp
	jnz	kl_loop
	ret
	.size	kl_loop, . - kl_loop

	.type	kl_call, @function
kl_call:
	incl	%ebx
	nop
	ret
	.size	kl_call, . - kl_call

	.section .rodata
line:	.asciz	"# PROFILE op=loop n=1000 program=-\n"

	.bss
	.align	16
fxarea:	.skip	512
counter: .skip	8
	.skip	4096
stack_top:
