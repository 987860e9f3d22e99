/*
 * AArch64: the SIMD registers survive system calls, interrupts and
 * switches (lib/syscall.h: every register but x0 is preserved).  Two
 * threads on one CPU load v0-v31 with patterns of their own, then make
 * system calls that switch between them (yield) and spin through ticks,
 * all inside one asm block so that the compiler touches none of them,
 * and compare.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "quiescent.h"

#define ROUNDS	100

struct vregs {
	uint64_t w[64];		/* v0-v31, 16 bytes each */
};

/* Loads *in into v0-v31, makes `rounds` yield calls and spins, stores v0-v31 to *out. */
static void hold_through_syscalls(const struct vregs *in, struct vregs *out, long rounds)
{
	__asm__ __volatile__(
		"ldp q0, q1, [%[in], #32 * 0]\n\t"   "ldp q2, q3, [%[in], #32 * 1]\n\t"
		"ldp q4, q5, [%[in], #32 * 2]\n\t"   "ldp q6, q7, [%[in], #32 * 3]\n\t"
		"ldp q8, q9, [%[in], #32 * 4]\n\t"   "ldp q10, q11, [%[in], #32 * 5]\n\t"
		"ldp q12, q13, [%[in], #32 * 6]\n\t" "ldp q14, q15, [%[in], #32 * 7]\n\t"
		"ldp q16, q17, [%[in], #32 * 8]\n\t" "ldp q18, q19, [%[in], #32 * 9]\n\t"
		"ldp q20, q21, [%[in], #32 * 10]\n\t" "ldp q22, q23, [%[in], #32 * 11]\n\t"
		"ldp q24, q25, [%[in], #32 * 12]\n\t" "ldp q26, q27, [%[in], #32 * 13]\n\t"
		"ldp q28, q29, [%[in], #32 * 14]\n\t" "ldp q30, q31, [%[in], #32 * 15]\n\t"
		"1:\n\t"
		"mov x8, %[yield]\n\t"
		"svc #0\n\t"
		"mov x9, #0x20000\n\t"		/* a spin the tick may interrupt */
		"2: subs x9, x9, #1\n\t"
		"b.ne 2b\n\t"
		"subs %[n], %[n], #1\n\t"
		"b.ne 1b\n\t"
		"stp q0, q1, [%[out], #32 * 0]\n\t"   "stp q2, q3, [%[out], #32 * 1]\n\t"
		"stp q4, q5, [%[out], #32 * 2]\n\t"   "stp q6, q7, [%[out], #32 * 3]\n\t"
		"stp q8, q9, [%[out], #32 * 4]\n\t"   "stp q10, q11, [%[out], #32 * 5]\n\t"
		"stp q12, q13, [%[out], #32 * 6]\n\t" "stp q14, q15, [%[out], #32 * 7]\n\t"
		"stp q16, q17, [%[out], #32 * 8]\n\t" "stp q18, q19, [%[out], #32 * 9]\n\t"
		"stp q20, q21, [%[out], #32 * 10]\n\t" "stp q22, q23, [%[out], #32 * 11]\n\t"
		"stp q24, q25, [%[out], #32 * 12]\n\t" "stp q26, q27, [%[out], #32 * 13]\n\t"
		"stp q28, q29, [%[out], #32 * 14]\n\t" "stp q30, q31, [%[out], #32 * 15]"
		: [n] "+r"(rounds)
		: [in] "r"(in), [out] "r"(out), [yield] "i"(SYS_yield)
		: "x0", "x8", "x9", "memory", "cc",
		  "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11",
		  "v12", "v13", "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22",
		  "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31");
}

static int check(uint64_t seed)
{
	struct vregs in, out;

	for (int i = 0; i < 64; i++)
		in.w[i] = seed * 0x9e3779b97f4a7c15ULL + i;
	memset(&out, 0, sizeof(out));
	hold_through_syscalls(&in, &out, ROUNDS);
	for (int i = 0; i < 64; i++) {
		if (in.w[i] != out.w[i]) {
			printf("v%d changed: %016llx, not %016llx\n", i / 2,
			       (unsigned long long)out.w[i], (unsigned long long)in.w[i]);
			return 1;
		}
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
