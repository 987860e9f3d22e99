/* AArch64 task state: a new task's first stack frame. */
#include "aarch64.h"

/*
 * The frame arch_switch_to() pops (switch.S): x19-x28, x29, x30, then
 * d8-d15 and FPCR (zero: a new task starts with clean callee-saved FP
 * registers, rounding to nearest, no traps), and a word of padding.  Its `ret`
 * goes to task_first_entry (switch.S), which calls x19 = entry with x29
 * and x30 zero: a zero frame pointer and return address end backtraces.
 * The stack stays 16-byte aligned, as AArch64 requires.
 */
#define SWITCH_FRAME_WORDS	22

extern const u8 task_first_entry[];

void *arch_task_stack_init(void *stack_top, void (*entry)(void))
{
	u64 *sp = (u64 *)ALIGN_DOWN((uintptr_t)stack_top, 16) - SWITCH_FRAME_WORDS;

	memset(sp, 0, SWITCH_FRAME_WORDS * sizeof(u64));
	sp[0] = (uintptr_t)entry;		/* x19 */
	sp[11] = (uintptr_t)task_first_entry;	/* x30 */
	return sp;
}

/* arch_switch_to() left x19-x28, x29 (frame pointer), x30 (return address), d8-d15, FPCR. */
void arch_switched_frame(const void *sp, uintptr_t *pc, uintptr_t *fp)
{
	const u64 *s = sp;

	*fp = s[10];
	*pc = s[11];
}

/*
 * For tests (arch.h): d8-d15, then FPCR's control fields (AHP, DN, FZ,
 * RMode: AAPCS64 makes them callee-saved; its trap enables read as zero
 * on cores without FP traps, and its status lives in FPSR).
 */
#define FPCR_DN		(1ULL << 25)
#define FPCR_FZ		(1ULL << 24)
#define FPCR_RMODE(m)	((u64)(m) << 22)
#define FPCR_CONTROL	(0x7ULL << 24 | FPCR_RMODE(3))

void arch_fp_callee_saved_sample(unsigned int seed, u64 *regs)
{
	for (int i = 0; i < 8; i++)
		regs[i] = 0x0101010101010101ULL * (seed + 1) + ((u64)i << 56) + i;
	regs[8] = FPCR_RMODE(seed & 3) | (seed & 4 ? FPCR_FZ : 0) | (seed & 8 ? FPCR_DN : 0);
}

void fp_callee_saved_call(const u64 *set, u64 *got, void (*fn)(void *), void *arg);

void arch_fp_callee_saved_call(const u64 *set, u64 *got, void (*fn)(void *), void *arg)
{
	fp_callee_saved_call(set, got, fn, arg);
	got[8] &= FPCR_CONTROL;
}
