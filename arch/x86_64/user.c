/*
 * User mode on x86-64: the syscall MSRs, the first entry of a thread,
 * what a switch to a user thread loads, the trap frame as a system call
 * sees it, and copies to and from user memory (docs/user.md follows a
 * system call through syscall_entry.S and back).
 */
#include "x86.h"
#include "segments.h"
#include "user/user.h"

#define EFER_SCE	(1ULL << 0)
#define RFLAGS_TF	(1ULL << 8)
#define RFLAGS_IF	(1ULL << 9)
#define RFLAGS_DF	(1ULL << 10)
#define RFLAGS_NT	(1ULL << 14)
#define RFLAGS_RF	(1ULL << 16)
#define RFLAGS_AC	(1ULL << 18)
#define RFLAGS_IOPL	(3ULL << 12)
#define RFLAGS_FIXED	(1ULL << 1)	/* always reads 1 */
#define USER_RFLAGS	(RFLAGS_FIXED | RFLAGS_IF)
#define CANONICAL_LOW_END	0x0000800000000000ULL	/* 2^47: the lower half ends */

void syscall_entry(void);
void x86_enter_user(struct trap_frame *tf) __noreturn;

/*
 * syscall: CS and SS from STAR[47:32] (the kernel's); sysret: from
 * STAR[63:48] (segments.h); RIP from LSTAR; and RFLAGS & ~FMASK, so the
 * entry runs with interrupts off (until the kernel stack is set up),
 * the direction flag clear (the C ABI), AC clear (SMAP in force), no
 * single-stepping.
 */
void syscall_cpu_init(void)
{
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	wrmsr(MSR_STAR, ((u64)(SEL_USER32_CODE | RPL_USER) << 48) | ((u64)SEL_CODE << 32));
	wrmsr(MSR_LSTAR, (uintptr_t)syscall_entry);
	wrmsr(MSR_FMASK, RFLAGS_TF | RFLAGS_IF | RFLAGS_DF | RFLAGS_AC | RFLAGS_NT |
			 RFLAGS_IOPL | RFLAGS_RF);
}

/*
 * May the return to user mode use sysret rather than iretq?  sysret puts
 * rcx in RIP and r11 in RFLAGS, loads fixed user segments, and on Intel
 * CPUs faults in ring 0 -- on the user's stack, with the user's GS -- if
 * rcx is not canonical.  So only when the frame is what sysret will
 * produce anyway: rcx and r11 hold RIP and RFLAGS, the segments are the
 * user's, RIP lies in the lower canonical half, and RFLAGS has neither
 * RF nor TF (sysret cannot restore RF, and TF would trap on its first
 * instruction in a way iretq does not).  Anything else returns through
 * iretq.  QEMU's TCG does not fault on a non-canonical sysret, so the
 * tests check this predicate itself (tests/user_entry.c).
 */
bool x86_sysret_ok(const struct trap_frame *tf)
{
	return tf->rcx == tf->rip && tf->r11 == tf->rflags && tf->cs == USER_CS &&
	       tf->ss == USER_DS && tf->rip < CANONICAL_LOW_END &&
	       !(tf->rflags & (RFLAGS_RF | RFLAGS_TF));
}

bool arch_frame_user_mode(const struct trap_frame *tf)
{
	return (tf->cs & 3) == RPL_USER;
}

uintptr_t arch_frame_sp(const struct trap_frame *tf)
{
	return tf->rsp;
}

/* The thread pointer is the FS base: only the kernel writes it (no FSGSBASE in user mode). */
void arch_set_tls(uintptr_t tls)
{
	wrmsr(MSR_FS_BASE, tls);
}

void arch_user_thread_switch(uintptr_t kernel_stack_top, uintptr_t tls)
{
	x86_set_kernel_stack(kernel_stack_top);
	arch_set_tls(tls);
}

/*
 * The first entry: a trap frame as if the thread had been interrupted at
 * pc, with every other register zero, returned through like any other
 * (x86_enter_user(): the clean FP state, swapgs, iretq).
 */
void arch_enter_user(uintptr_t pc, uintptr_t sp, uintptr_t arg, uintptr_t tls)
{
	struct trap_frame tf = {
		.rdi = arg, .rip = pc, .cs = USER_CS, .rflags = USER_RFLAGS,
		.rsp = sp, .ss = USER_DS,
	};

	arch_set_tls(tls);
	x86_enter_user(&tf);
}

size_t x86_copy_user(void *dst, const void *src, size_t n);	/* uaccess.S */

bool arch_user_access_guarded(void)
{
	return x86_smap_enabled;
}

/* SMAP: the kernel touches user pages only here, with RFLAGS.AC set around the copy. */
static inline void user_access_begin(void)
{
	if (x86_smap_enabled)
		__asm__ __volatile__("stac" ::: "memory");
}

static inline void user_access_end(void)
{
	if (x86_smap_enabled)
		__asm__ __volatile__("clac" ::: "memory");
}

static size_t copy_user(void *dst, const void *src, size_t n)
{
	size_t left;

	user_access_begin();
	left = x86_copy_user(dst, src, n);
	user_access_end();
	return left;
}

size_t arch_copy_from_user(void *dst, const void *usrc, size_t n)
{
	return copy_user(dst, usrc, n);
}

size_t arch_copy_to_user(void *udst, const void *src, size_t n)
{
	return copy_user(udst, src, n);
}
