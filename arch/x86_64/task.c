/* x86-64 task state: a new task's first stack frame, and the FP control words. */
#include "x86.h"

/* A new task's FP control: every exception masked, round to nearest (x87: extended precision). */
#define MXCSR_DEFAULT	0x1f80
#define FCW_DEFAULT	0x037f

/*
 * The frame arch_switch_to() pops (switch.S): MXCSR and the x87 control
 * word in one slot, six callee-saved registers (zero: a zero RBP ends
 * backtraces), then entry as the return address, then a zero "return
 * address" above it so entry starts with the stack aligned as after a
 * call.
 */
void *arch_task_stack_init(void *stack_top, void (*entry)(void))
{
	u64 *sp = (u64 *)ALIGN_DOWN((uintptr_t)stack_top, 16);

	*--sp = 0;
	*--sp = (uintptr_t)entry;
	for (int i = 0; i < 6; i++)
		*--sp = 0;
	*--sp = MXCSR_DEFAULT | (u64)FCW_DEFAULT << 32;
	return sp;
}

/* arch_switch_to() left the FP control words, r15, r14, r13, r12, rbx, rbp, the return address. */
void arch_switched_frame(const void *sp, uintptr_t *pc, uintptr_t *fp)
{
	const u64 *s = sp;

	*fp = s[6];
	*pc = s[7];
}

/*
 * For tests (arch.h): MXCSR and the x87 control word, their control bits
 * only (the System V ABI makes those callee-saved; the status flags are
 * not).  Every exception stays masked: a sample never makes code trap.
 */
#define MXCSR_MASK_ALL	0x1f80			/* exception masks */
#define MXCSR_DAZ	(1U << 6)
#define MXCSR_RC(m)	((u32)(m) << 13)
#define MXCSR_FZ	(1U << 15)
#define MXCSR_CONTROL	0xffc0
#define FCW_MASK_ALL	0x003f
#define FCW_PC(p)	((u32)(p) << 8)
#define FCW_RC(m)	((u32)(m) << 10)
#define FCW_CONTROL	0x0f3f

void arch_fp_callee_saved_sample(unsigned int seed, u64 *regs)
{
	regs[0] = MXCSR_MASK_ALL | MXCSR_RC(seed & 3) | (seed & 4 ? MXCSR_FZ : 0) |
		  (seed & 8 ? MXCSR_DAZ : 0);
	regs[1] = FCW_MASK_ALL | FCW_RC((seed >> 1) & 3) | FCW_PC(seed & 1 ? 3 : 2);
}

void fp_callee_saved_call(const u64 *set, u64 *got, void (*fn)(void *), void *arg);

void arch_fp_callee_saved_call(const u64 *set, u64 *got, void (*fn)(void *), void *arg)
{
	got[0] = got[1] = 0;
	fp_callee_saved_call(set, got, fn, arg);
	got[0] &= MXCSR_CONTROL;
	got[1] &= FCW_CONTROL;
}
