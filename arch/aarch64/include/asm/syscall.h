/*
 * AArch64: the trap frame every entry builds (vectors.S, trap_frame.h),
 * and a system call's number, arguments and result in it (lib/syscall.h:
 * the number in x8, arguments in x0-x5, the result in x0).  Inline, as
 * Linux's asm/syscall.h: each system call reads six arguments and an IPC
 * writes up to five message words.
 */
#ifndef ASM_SYSCALL_H
#define ASM_SYSCALL_H

#include "trap_frame.h"

static inline unsigned long arch_syscall_nr(const struct trap_frame *tf)
{
	return tf->x[8];
}

/* Argument n (0 to 5). */
static inline unsigned long arch_syscall_arg(const struct trap_frame *tf, int n)
{
	return n >= 0 && n < 6 ? tf->x[n] : 0;
}

static inline void arch_syscall_set_result(struct trap_frame *tf, long ret)
{
	tf->x[0] = ret;
}

static inline void arch_syscall_set_arg(struct trap_frame *tf, int n, unsigned long v)
{
	if (n >= 1 && n < 6)
		tf->x[n] = v;
}

#endif
