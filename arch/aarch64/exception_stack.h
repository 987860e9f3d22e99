/*
 * Each CPU's exception stack (SP_EL1) lives in a slot of its own, aligned
 * to the slot's size (stacks.c):
 *
 *	slot + 0	guard page (unmapped): below the emergency stack
 *	slot + 4 KiB	emergency stack, 8 KiB: an overflow is reported here
 *	slot + 12 KiB	guard page (unmapped): right below the exception stack
 *	slot + 16 KiB	the exception stack, 16 KiB, up to the next slot
 *
 * Every address inside the exception stack has bit EXC_STACK_BIT set and
 * every address in the 16 KiB below it has it clear, so the vector entry
 * finds an overflow with one bit test and no free register (vectors.S).
 * Shared by C and assembly.
 */
#ifndef ARCH_AARCH64_EXCEPTION_STACK_H
#define ARCH_AARCH64_EXCEPTION_STACK_H

#define EXC_SLOT_SIZE		(32 * 1024)
#define EXCEPTION_STACK_SIZE	(16 * 1024)
#define EXC_STACK_BIT		14		/* 1 << 14: the stack's offset in its slot */
#define EXC_GUARD_LOW		0		/* offsets in the slot */
#define EXC_EMERGENCY_TOP	(12 * 1024)
#define EXC_GUARD		(12 * 1024)

#endif
