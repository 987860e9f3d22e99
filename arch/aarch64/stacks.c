/*
 * The stacks the image itself provides.  Kernel code (tasks, idle, the
 * boot path) runs on SP_EL0 (EL1t); every exception switches the CPU to
 * SP_EL1, which is a per-CPU exception stack here.  So an exception always
 * lands on a good stack, even when a task overflowed its own into the
 * guard page below it: the fault is reported instead of faulting again
 * on the overflowed stack.
 *
 * The exception stacks are guarded too (exception_stack.h): a handler
 * that overflows one faults on the guard page below it instead of writing
 * into the next CPU's stack, and the vector entry moves the report to an
 * emergency stack in the same slot (vectors.S).
 *
 * One struct keeps the order fixed: the exception stacks lie below every
 * kernel stack (the boot stack here, the others from the page allocator
 * above the image), so a backtrace taken in a handler, which walks frame
 * pointers upwards, continues from the exception stack into the
 * interrupted task's stack (kernel/panic.c wants each frame above the last).
 */
#include "aarch64.h"

struct exception_slot {
	u8 guard_low[PAGE_SIZE];
	u8 emergency[EXC_EMERGENCY_TOP - PAGE_SIZE];
	u8 guard[PAGE_SIZE];
	u8 stack[EXCEPTION_STACK_SIZE];
};
_Static_assert(sizeof(struct exception_slot) == EXC_SLOT_SIZE, "EXC_SLOT_SIZE");
_Static_assert(__builtin_offsetof(struct exception_slot, guard) == EXC_GUARD, "EXC_GUARD");
_Static_assert(__builtin_offsetof(struct exception_slot, stack) == 1 << EXC_STACK_BIT &&
	       EXCEPTION_STACK_SIZE == 1 << EXC_STACK_BIT, "bit EXC_STACK_BIT set in the stack only");

static struct {
	struct exception_slot exception[NR_CPUS];
	u8 guard[PAGE_SIZE];		/* unmapped by mmu_init(): overflow faults */
	u8 boot[BOOT_STACK_SIZE];	/* CPU 0's boot stack, later its idle task's */
} stacks __aligned(EXC_SLOT_SIZE);

/* Read by boot/aarch64/entry.S before any C runs (the MMU is on by then). */
void *const boot_stack_top = &stacks.boot[BOOT_STACK_SIZE];
void *const boot_exception_stack_top = &stacks.exception[0].stack[EXCEPTION_STACK_SIZE];
const uintptr_t boot_stack_guard = (uintptr_t)stacks.guard;

void *exception_stack_top(int cpu)
{
	return &stacks.exception[cpu].stack[EXCEPTION_STACK_SIZE];
}

/* Is page one of the exception stacks' guard pages (left unmapped by mmu_init())? */
bool exception_stack_guard(uintptr_t page)
{
	uintptr_t base = (uintptr_t)stacks.exception, off;

	if (page < base || page >= base + sizeof(stacks.exception))
		return false;
	off = (page - base) % EXC_SLOT_SIZE;
	return off == EXC_GUARD_LOW || off == EXC_GUARD;
}
