/*
 * User mode on AArch64: a thread's first entry to EL0, what a switch to a
 * user thread loads, the trap frame as a system call sees it, and copies
 * to and from user memory (docs/user.md follows a system call through
 * vectors.S and back).  The address spaces are user_mm.c's.
 */
#include "aarch64.h"
#include "cpu_offsets.h"
#include "user/user.h"

#define SPSR_EL0T	0		/* EL0, its own SP_EL0; D, A, I, F unmasked */
#define SPSR_MODE_MASK	0xf

_Static_assert(__builtin_offsetof(struct cpu, user_entry_sp) == CPU_USER_ENTRY_SP,
	       "vectors.S reads user_entry_sp at CPU_USER_ENTRY_SP");

void aarch64_enter_user(struct trap_frame *tf) __noreturn;	/* vectors.S */

bool arch_frame_user_mode(const struct trap_frame *tf)
{
	return (tf->spsr & SPSR_MODE_MASK) == SPSR_EL0T;
}

uintptr_t arch_frame_sp(const struct trap_frame *tf)
{
	return tf->sp;
}

/*
 * The frame of the running thread's entry from user mode: always at the
 * top of its kernel stack (vectors.S, user_entry).
 */
static struct trap_frame *user_frame(void)
{
	return (struct trap_frame *)(this_cpu()->user_entry_sp - sizeof(struct trap_frame));
}

/*
 * The thread pointer is TPIDR_EL0, which user mode may also write itself
 * (msr tpidr_el0, as glibc does): so it lives in the trap frame, saved at
 * every entry and restored at every return, and a switch of threads
 * needs nothing.  SYS_set_tls writes it there for the return.
 */
void arch_set_tls(uintptr_t tls)
{
	user_frame()->tpidr = tls;
	write_sysreg(tpidr_el0, tls);
}

/* Entries from EL0 build their frame below kernel_stack_top (vectors.S). */
void arch_user_thread_switch(uintptr_t kernel_stack_top, uintptr_t tls)
{
	(void)tls;	/* (in the thread's frame: arch_set_tls()) */
	this_cpu()->user_entry_sp = kernel_stack_top;
}

/*
 * The first entry: a trap frame as if the thread had been interrupted at
 * pc, every other register and the FP/SIMD state zero (FPCR 0: round to
 * nearest, no traps), returned through like any other (ret_to_user).
 * The frame lies on this stack below the frames still live above it; the
 * next entry from EL0 builds its own at the top.
 */
void arch_enter_user(uintptr_t pc, uintptr_t sp, uintptr_t arg, uintptr_t tls)
{
	struct trap_frame tf;

	memset(&tf, 0, sizeof(tf));
	tf.x[0] = arg;
	tf.elr = pc;
	tf.spsr = SPSR_EL0T;
	tf.sp = sp;
	tf.tpidr = tls;
	local_irq_disable();
	aarch64_enter_user(&tf);
}

/* uaccess.S: the bytes NOT copied. */
size_t aarch64_copy_from_user(void *dst, const void *usrc, size_t n);
size_t aarch64_copy_to_user(void *udst, const void *src, size_t n);

size_t arch_copy_from_user(void *dst, const void *usrc, size_t n)
{
	return aarch64_copy_from_user(dst, usrc, n);
}

size_t arch_copy_to_user(void *udst, const void *src, size_t n)
{
	return aarch64_copy_to_user(udst, src, n);
}

/* PAN: a plain kernel access to user memory faults (entry.S turns it on where the CPU has it). */
bool arch_user_access_guarded(void)
{
	return cpu_has_pan() && pan_enabled();
}
