/*
 * What the exception entry (vectors.S) saves on the stack: the general
 * registers, the exception registers, a frame record that links the
 * handler's backtrace to the interrupted code, and the FP/SIMD state
 * (handlers call printk, and newlib uses the q registers).  Shared by C
 * and assembly: the offsets below are checked against the struct.
 */
#ifndef ARCH_AARCH64_TRAP_FRAME_H
#define ARCH_AARCH64_TRAP_FRAME_H

#define TF_X0		0
#define TF_SP		248
#define TF_ELR		256
#define TF_SPSR		264
#define TF_ESR		272
#define TF_FAR		280
#define TF_KIND		288
#define TF_TPIDR	296	/* from EL0: the thread's TPIDR_EL0 */
#define TF_FRAME	304	/* {x29, elr}: a frame record */
#define TF_FPCR		320
#define TF_FPSR		328
#define TF_Q		336
#define TF_SIZE		848	/* a multiple of 16: sp stays aligned */

/* Which of the 16 vector-table entries was taken (vectors.S). */
#define VEC_CUR_SP0_SYNC	0	/* from kernel code (EL1t: on SP_EL0) */
#define VEC_CUR_SP0_IRQ		1
#define VEC_CUR_SPX_SYNC	4	/* from a handler (EL1h: on SP_EL1) */
#define VEC_CUR_SPX_IRQ		5
#define VEC_LOWER_A64_SYNC	8	/* from user mode (EL0): on its kernel stack */
#define VEC_LOWER_A64_IRQ	9

#ifndef __ASSEMBLER__
#include "types.h"

struct trap_frame {
	u64 x[31];		/* x29 is the frame pointer, x30 the link register */
	u64 sp;			/* before the exception (SP_EL0 for kernel code and EL0) */
	u64 elr, spsr, esr, far;
	u64 kind;		/* VEC_* */
	u64 tpidr;		/* from EL0: TPIDR_EL0, restored on the way back */
	u64 frame[2];
	u64 fpcr, fpsr;
	unsigned __int128 q[32];
};

_Static_assert(__builtin_offsetof(struct trap_frame, sp) == TF_SP, "TF_SP");
_Static_assert(__builtin_offsetof(struct trap_frame, elr) == TF_ELR, "TF_ELR");
_Static_assert(__builtin_offsetof(struct trap_frame, esr) == TF_ESR, "TF_ESR");
_Static_assert(__builtin_offsetof(struct trap_frame, kind) == TF_KIND, "TF_KIND");
_Static_assert(__builtin_offsetof(struct trap_frame, tpidr) == TF_TPIDR, "TF_TPIDR");
_Static_assert(__builtin_offsetof(struct trap_frame, frame) == TF_FRAME, "TF_FRAME");
_Static_assert(__builtin_offsetof(struct trap_frame, fpcr) == TF_FPCR, "TF_FPCR");
_Static_assert(__builtin_offsetof(struct trap_frame, q) == TF_Q, "TF_Q");
_Static_assert(sizeof(struct trap_frame) == TF_SIZE, "TF_SIZE");
#endif

#endif
