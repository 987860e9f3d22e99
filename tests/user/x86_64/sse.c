/*
 * x86-64: the SSE registers and MXCSR survive system calls, interrupts
 * and switches (lib/syscall.h: every register but rax, rcx and r11 is
 * preserved, the SSE state included).  Two threads on one CPU load
 * xmm0-xmm15 with patterns of their own and MXCSR with a rounding mode
 * of their own, then make system calls that switch between them (yield)
 * and spin through ticks, all inside one asm block so that the compiler
 * touches none of them, and compare.  The kernel saves the user's SSE
 * state once per entry and not again at a switch (arch/x86_64/switch.S):
 * a switch that lost or mixed the state fails here.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "quiescent.h"

#define ROUNDS	100

struct xregs {
	uint64_t w[32];		/* xmm0-xmm15, 16 bytes each */
	uint32_t mxcsr;
};

/* Loads *in into xmm0-15 and MXCSR, makes `rounds` yield calls and spins, stores them to *out. */
static void hold_through_syscalls(const struct xregs *in, struct xregs *out, long rounds)
{
	__asm__ __volatile__(
		"movdqu 0x00(%[in]), %%xmm0\n\t"  "movdqu 0x10(%[in]), %%xmm1\n\t"
		"movdqu 0x20(%[in]), %%xmm2\n\t"  "movdqu 0x30(%[in]), %%xmm3\n\t"
		"movdqu 0x40(%[in]), %%xmm4\n\t"  "movdqu 0x50(%[in]), %%xmm5\n\t"
		"movdqu 0x60(%[in]), %%xmm6\n\t"  "movdqu 0x70(%[in]), %%xmm7\n\t"
		"movdqu 0x80(%[in]), %%xmm8\n\t"  "movdqu 0x90(%[in]), %%xmm9\n\t"
		"movdqu 0xa0(%[in]), %%xmm10\n\t" "movdqu 0xb0(%[in]), %%xmm11\n\t"
		"movdqu 0xc0(%[in]), %%xmm12\n\t" "movdqu 0xd0(%[in]), %%xmm13\n\t"
		"movdqu 0xe0(%[in]), %%xmm14\n\t" "movdqu 0xf0(%[in]), %%xmm15\n\t"
		"ldmxcsr 0x100(%[in])\n\t"
		"1:\n\t"
		"movl %[yield], %%eax\n\t"
		"syscall\n\t"
		"movl $0x20000, %%edx\n\t"	/* a spin the tick may interrupt */
		"2: decl %%edx\n\t"
		"jnz 2b\n\t"
		"decq %[n]\n\t"
		"jnz 1b\n\t"
		"movdqu %%xmm0, 0x00(%[out])\n\t"  "movdqu %%xmm1, 0x10(%[out])\n\t"
		"movdqu %%xmm2, 0x20(%[out])\n\t"  "movdqu %%xmm3, 0x30(%[out])\n\t"
		"movdqu %%xmm4, 0x40(%[out])\n\t"  "movdqu %%xmm5, 0x50(%[out])\n\t"
		"movdqu %%xmm6, 0x60(%[out])\n\t"  "movdqu %%xmm7, 0x70(%[out])\n\t"
		"movdqu %%xmm8, 0x80(%[out])\n\t"  "movdqu %%xmm9, 0x90(%[out])\n\t"
		"movdqu %%xmm10, 0xa0(%[out])\n\t" "movdqu %%xmm11, 0xb0(%[out])\n\t"
		"movdqu %%xmm12, 0xc0(%[out])\n\t" "movdqu %%xmm13, 0xd0(%[out])\n\t"
		"movdqu %%xmm14, 0xe0(%[out])\n\t" "movdqu %%xmm15, 0xf0(%[out])\n\t"
		"stmxcsr 0x100(%[out])\n\t"
		"ldmxcsr %[dflt]"
		: [n] "+r"(rounds)
		: [in] "r"(in), [out] "r"(out), [yield] "i"(SYS_yield), [dflt] "m"((uint32_t){ 0x1f80 })
		: "rax", "rcx", "rdx", "r11", "memory", "cc",
		  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
		  "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}

static int check(uint64_t seed)
{
	struct xregs in, out;

	for (int i = 0; i < 32; i++)
		in.w[i] = seed * 0x9e3779b97f4a7c15ULL + i;
	in.mxcsr = 0x1f80 | (uint32_t)(seed & 3) << 13;	/* every exception masked, a rounding mode */
	memset(&out, 0, sizeof(out));
	hold_through_syscalls(&in, &out, ROUNDS);
	for (int i = 0; i < 32; i++) {
		if (in.w[i] != out.w[i]) {
			printf("xmm%d changed: %016llx, not %016llx\n", i / 2,
			       (unsigned long long)out.w[i], (unsigned long long)in.w[i]);
			return 1;
		}
	}
	if ((out.mxcsr & ~0x3fU) != in.mxcsr) {	/* (the low six bits are sticky flags) */
		printf("MXCSR changed: %#x, not %#x\n", out.mxcsr, in.mxcsr);
		return 1;
	}
	return 0;
}

static int other(void *arg)
{
	(void)arg;
	return check(2);
}

int main(void)
{
	struct sys_exit_status st;
	int tid, bad;

	q_set_cpu(0);
	tid = q_thread_create(other, NULL, 0);
	if (tid < 0)
		return 2;
	bad = check(1);
	if (q_thread_join(tid, &st) || st.killed)
		return 3;
	return bad || st.status;
}
