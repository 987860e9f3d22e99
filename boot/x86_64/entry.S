/*
 * The first instructions on x86-64.  GRUB loads kernel.elf through the
 * multiboot2 header below and jumps to _start in 32-bit protected mode with
 * paging off, EAX = multiboot2 magic and EBX = the boot information.  We
 * identity-map the first 4 GiB with 2 MiB pages, switch to long mode,
 * enable SSE (newlib and GCC's vectoriser use it) and call kmain().
 */
#define MB2_MAGIC		0xe85250d6
#define MB2_BOOTLOADER_MAGIC	0x36d76289
#include "cr0.h"
#define CR4_PAE			(1 << 5)
#define CR4_OSFXSR		(1 << 9)
#define CR4_OSXMMEXCPT		(1 << 10)
#define MSR_EFER		0xc0000080
#define EFER_LME		(1 << 8)
#define EFER_NXE		(1 << 11)

	.section .multiboot, "a"
	.balign 8
mb2_header:
	.long	MB2_MAGIC
	.long	0				/* architecture: i386 protected mode */
	.long	mb2_header_end - mb2_header
	.long	-(MB2_MAGIC + 0 + (mb2_header_end - mb2_header))
	.short	0, 0				/* end tag */
	.long	8
mb2_header_end:

	.section .text.boot, "ax"
	.code32
	.globl	_start
_start:
	cli
	cld					/* the C ABI's direction flag */
	movl	$boot_stack_top, %esp
	cmpl	$MB2_BOOTLOADER_MAGIC, %eax
	jne	not_multiboot2
	movl	%ebx, boot_info_addr

	/* PML4[0] -> PDPT; PDPT[0..3] -> four page directories of 2 MiB pages. */
	movl	$boot_pdpt, %eax
	orl	$3, %eax
	movl	%eax, boot_pml4
	xorl	%ecx, %ecx
1:	movl	%ecx, %eax
	shll	$12, %eax
	addl	$boot_pd, %eax
	orl	$3, %eax
	movl	%eax, boot_pdpt(, %ecx, 8)
	incl	%ecx
	cmpl	$4, %ecx
	jne	1b
	xorl	%ecx, %ecx			/* 2048 entries: 0 .. 4 GiB */
2:	movl	%ecx, %eax
	shll	$21, %eax
	orl	$0x83, %eax			/* present, writable, 2 MiB page */
	movl	%eax, boot_pd(, %ecx, 8)
	movl	%ecx, %eax
	shrl	$11, %eax			/* bits 32+ of the physical address */
	movl	%eax, boot_pd+4(, %ecx, 8)
	incl	%ecx
	cmpl	$2048, %ecx
	jne	2b

	call	enter_long_mode_32
	lgdt	boot_gdt_ptr
	ljmp	$0x08, $long_mode_entry

/*
 * Shared by the boot CPU and (through the trampoline) the other CPUs:
 * PAE, our page tables, EFER.LME, then paging.  CR0 is loaded whole
 * (cr0.h), never OR-ed into: the boot loader's or INIT's value may have
 * the caches disabled (CD, NW), a task-switched flag (TS) or x87
 * emulation (EM) set.  WP makes even kernel writes honour read-only pages.
 */
	.globl	enter_long_mode_32
enter_long_mode_32:
	movl	%cr4, %eax
	orl	$CR4_PAE, %eax
	movl	%eax, %cr4
	movl	$boot_pml4, %eax
	movl	%eax, %cr3
	movl	$MSR_EFER, %ecx
	rdmsr
	orl	$EFER_LME, %eax
	wrmsr
	movl	$CR0_KERNEL, %eax
	movl	%eax, %cr0
	ret

not_multiboot2:
	/* Say why on COM1 (the 16550 works without set-up under QEMU), then stop. */
	movl	$no_mb2_msg, %esi
	movw	$0x3f8, %dx
3:	lodsb
	testb	%al, %al
	jz	4f
	outb	%al, %dx
	jmp	3b
4:	cli
	hlt
	jmp	4b

	.code64
long_mode_entry:
	movw	$0x10, %ax
	movw	%ax, %ds
	movw	%ax, %es
	movw	%ax, %ss
	xorw	%ax, %ax
	movw	%ax, %fs
	movw	%ax, %gs
	movq	$boot_stack_top, %rsp
	call	enable_sse
	xorl	%ebp, %ebp			/* ends the backtrace */
	movl	boot_info_addr, %edi
	call	kmain
5:	cli
	hlt
	jmp	5b

/* CR4.OSFXSR and OSXMMEXCPT on: SSE usable (CR0 has EM off, MP on). */
	.globl	enable_sse
enable_sse:
	movq	%cr4, %rax
	orq	$(CR4_OSFXSR | CR4_OSXMMEXCPT), %rax
	movq	%rax, %cr4
	ret

	.section .rodata
no_mb2_msg:
	.asciz	"Quiescent: not started by a multiboot2 loader (boot the GRUB ISO); halting.\r\n"

	.balign 8
boot_gdt:
	.quad	0
	.quad	0x00af9a000000ffff		/* 0x08: 64-bit code */
	.quad	0x00cf92000000ffff		/* 0x10: data */
boot_gdt_end:
	.globl	boot_gdt_ptr
boot_gdt_ptr:
	.short	boot_gdt_end - boot_gdt - 1
	.quad	boot_gdt

	.section .data
	.globl	boot_info_addr
boot_info_addr:
	.long	0

	.section .bss
	.balign 4096
	.globl	boot_pml4
boot_pml4:	.skip 4096
boot_pdpt:	.skip 4096
boot_pd:	.skip 4096 * 4
	.globl	boot_stack_guard, boot_stack_bottom, boot_stack_top
boot_stack_guard:			/* unmapped by mmu_init(): overflow faults */
	.skip	4096
boot_stack_bottom:
	.skip	16384
boot_stack_top:

	.section .note.GNU-stack, "", @progbits
