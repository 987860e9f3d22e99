/*
 * The way into the kernel for a system call, and the way back to user
 * mode for it and for a thread's first entry (docs/user.md walks it).
 *
 * `syscall` leaves RIP in rcx and RFLAGS in r11, loads the kernel's CS
 * and SS, masks interrupts (FMASK, syscall.c), and changes nothing else:
 * the stack is still the user's and GS still the user's.  So first
 * swapgs (GS base: this CPU's struct cpu), then the user's rsp into
 * cpu->user_scratch and the thread's kernel stack from cpu->user_entry_sp
 * (cpu_offsets.h), then a trap frame laid out as an interrupt's
 * (x86.h: struct trap_frame), so C sees one kind of frame.
 *
 * Back: through sysret when the frame allows it (x86_sysret_ok()), else
 * through iretq.  Either way swapgs comes last before the return, with
 * interrupts off, so nothing in the kernel runs on the user's GS.  An NMI
 * may still land between swapgs and sysret (or between syscall and
 * swapgs): its entry decides by the GS base itself (vectors.S).
 */
#include "segments.h"
#include "cpu_offsets.h"
#include "trap_frame.h"

	.section .text, "ax"
	.code64

	.globl	syscall_entry
syscall_entry:
	.cfi_startproc
	.cfi_undefined rip			/* gdb: the kernel's backtraces end here */
	swapgs
	movq	%rsp, %gs:CPU_USER_SCRATCH
	movq	%gs:CPU_USER_ENTRY_SP, %rsp
	pushq	$USER_DS			/* ss */
	pushq	%gs:CPU_USER_SCRATCH		/* rsp */
	pushq	%r11				/* rflags */
	pushq	$USER_CS			/* cs */
	pushq	%rcx				/* rip */
	pushq	$1				/* error: 1 = swapgs on the way out, as vectors.S */
	pushq	$VEC_SYSCALL			/* vector */
	PUSH_REGS
	movq	%rsp, %r12			/* the trap frame; r12 survives calls */
	xorl	%ebp, %ebp			/* kernel backtraces end here */
	subq	$512, %rsp
	andq	$-16, %rsp
	fxsave64 (%rsp)				/* the user's SSE state: the kernel uses xmm too */
	movq	%r12, %rdi
	call	syscall_dispatch		/* interrupts off again when it returns */
	movq	%r12, %rdi
	call	x86_sysret_ok
	fxrstor64 (%rsp)
	movq	%r12, %rsp
	testb	%al, %al
	jz	return_iretq
	POP_REGS				/* rcx = rip, r11 = rflags: x86_sysret_ok() said so */
	movq	40(%rsp), %rsp			/* past vector, error, rip, cs, rflags: the user's rsp */
	swapgs
	sysretq
	.cfi_endproc

return_iretq:
	POP_REGS
	addq	$16, %rsp			/* vector, error */
	swapgs
	iretq

/*
 * x86_enter_user(struct trap_frame *tf): a thread's first entry to user
 * mode (arch_enter_user()), interrupts off.  The FP/SSE state is reset
 * first: whatever the kernel left in the registers must not reach user
 * mode.
 */
	.globl	x86_enter_user
x86_enter_user:
	movq	%rdi, %rsp
	fxrstor64 clean_fpu_state
	jmp	return_iretq

	.section .rodata
	.balign	16
clean_fpu_state:				/* fxsave layout: x87 reset, SSE exceptions masked */
	.short	0x037f				/* FCW */
	.skip	22
	.long	0x1f80				/* MXCSR */
	.skip	512 - 28

	.section .note.GNU-stack, "", @progbits
