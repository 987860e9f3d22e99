/* AArch64 task state: a new task's first stack frame, and the FP/SIMD state. */
#include "aarch64.h"

/*
 * The frame arch_switch_to() pops (switch.S): x19-x28, x29, x30, then
 * d8-d15 (zero: a new task starts with clean FP registers).  Its `ret`
 * goes to task_first_entry (switch.S), which calls x19 = entry with x29
 * and x30 zero: a zero frame pointer and return address end backtraces.
 * The stack stays 16-byte aligned, as AArch64 requires.
 */
#define SWITCH_FRAME_WORDS	20

extern const u8 task_first_entry[];

void *arch_task_stack_init(void *stack_top, void (*entry)(void))
{
	u64 *sp = (u64 *)ALIGN_DOWN((uintptr_t)stack_top, 16) - SWITCH_FRAME_WORDS;

	memset(sp, 0, SWITCH_FRAME_WORDS * sizeof(u64));
	sp[0] = (uintptr_t)entry;		/* x19 */
	sp[11] = (uintptr_t)task_first_entry;	/* x30 */
	return sp;
}

/* arch_switch_to() left x19-x28, x29 (frame pointer), x30 (return address), d8-d15. */
void arch_switched_frame(const void *sp, uintptr_t *pc, uintptr_t *fp)
{
	const u64 *s = sp;

	*fp = s[10];
	*pc = s[11];
}

/* area: q0-q31 (512 bytes), then FPCR and FPSR. */
void arch_fpu_save(void *area)
{
	u64 fpcr, fpsr;

	__asm__ __volatile__(
		"stp q0, q1, [%0, #32 * 0]\n\t"
		"stp q2, q3, [%0, #32 * 1]\n\t"
		"stp q4, q5, [%0, #32 * 2]\n\t"
		"stp q6, q7, [%0, #32 * 3]\n\t"
		"stp q8, q9, [%0, #32 * 4]\n\t"
		"stp q10, q11, [%0, #32 * 5]\n\t"
		"stp q12, q13, [%0, #32 * 6]\n\t"
		"stp q14, q15, [%0, #32 * 7]\n\t"
		"stp q16, q17, [%0, #32 * 8]\n\t"
		"stp q18, q19, [%0, #32 * 9]\n\t"
		"stp q20, q21, [%0, #32 * 10]\n\t"
		"stp q22, q23, [%0, #32 * 11]\n\t"
		"stp q24, q25, [%0, #32 * 12]\n\t"
		"stp q26, q27, [%0, #32 * 13]\n\t"
		"stp q28, q29, [%0, #32 * 14]\n\t"
		"stp q30, q31, [%0, #32 * 15]"
		: : "r"(area) : "memory");
	__asm__ __volatile__("mrs %0, fpcr\n\tmrs %1, fpsr" : "=r"(fpcr), "=r"(fpsr));
	((u64 *)area)[64] = fpcr;
	((u64 *)area)[65] = fpsr;
}

void arch_fpu_restore(const void *area)
{
	__asm__ __volatile__(
		"ldp q0, q1, [%0, #32 * 0]\n\t"
		"ldp q2, q3, [%0, #32 * 1]\n\t"
		"ldp q4, q5, [%0, #32 * 2]\n\t"
		"ldp q6, q7, [%0, #32 * 3]\n\t"
		"ldp q8, q9, [%0, #32 * 4]\n\t"
		"ldp q10, q11, [%0, #32 * 5]\n\t"
		"ldp q12, q13, [%0, #32 * 6]\n\t"
		"ldp q14, q15, [%0, #32 * 7]\n\t"
		"ldp q16, q17, [%0, #32 * 8]\n\t"
		"ldp q18, q19, [%0, #32 * 9]\n\t"
		"ldp q20, q21, [%0, #32 * 10]\n\t"
		"ldp q22, q23, [%0, #32 * 11]\n\t"
		"ldp q24, q25, [%0, #32 * 12]\n\t"
		"ldp q26, q27, [%0, #32 * 13]\n\t"
		"ldp q28, q29, [%0, #32 * 14]\n\t"
		"ldp q30, q31, [%0, #32 * 15]\n\t"
		"msr fpcr, %1\n\t"
		"msr fpsr, %2"
		: : "r"(area), "r"(((const u64 *)area)[64]), "r"(((const u64 *)area)[65])
		: "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9",
		  "v10", "v11", "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19",
		  "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29",
		  "v30", "v31");
}

/* A clean state: zero registers, FPCR 0 (round to nearest, no traps). */
void arch_fpu_init(void *area)
{
	memset(area, 0, ARCH_FPU_SIZE);
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
