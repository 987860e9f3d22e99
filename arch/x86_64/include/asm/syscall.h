/*
 * x86-64: the trap frame every entry builds (vectors.S, syscall_entry.S),
 * and a system call's number, arguments and result in it (lib/syscall.h:
 * the number in rax, arguments in rdi, rsi, rdx, r10, r8, r9, the result
 * in rax).  Inline, as Linux's asm/syscall.h: each system call reads six
 * arguments and an IPC writes up to five message words, and a call per
 * register would cost more than the register.
 */
#ifndef ASM_SYSCALL_H
#define ASM_SYSCALL_H

#include "types.h"

struct trap_frame {
	u64 rax, rbx, rcx, rdx, rsi, rdi, rbp, r8, r9, r10, r11, r12, r13, r14, r15;
	u64 vector, error;
	u64 rip, cs, rflags, rsp, ss;	/* pushed by the CPU */
};

static inline unsigned long arch_syscall_nr(const struct trap_frame *tf)
{
	return tf->rax;
}

/* Argument n (0 to 5; a constant n compiles to one load). */
static inline unsigned long arch_syscall_arg(const struct trap_frame *tf, int n)
{
	switch (n) {
	case 0:	return tf->rdi;
	case 1:	return tf->rsi;
	case 2:	return tf->rdx;
	case 3:	return tf->r10;
	case 4:	return tf->r8;
	case 5:	return tf->r9;
	default: return 0;
	}
}

static inline void arch_syscall_set_result(struct trap_frame *tf, long ret)
{
	tf->rax = ret;
}

static inline void arch_syscall_set_arg(struct trap_frame *tf, int n, unsigned long v)
{
	switch (n) {
	case 1:	tf->rsi = v; break;
	case 2:	tf->rdx = v; break;
	case 3:	tf->r10 = v; break;
	case 4:	tf->r8 = v; break;
	case 5:	tf->r9 = v; break;
	default: break;
	}
}

#endif
