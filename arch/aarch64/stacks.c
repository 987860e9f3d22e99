/*
 * The stacks the image itself provides.  Kernel code (tasks, idle, the
 * boot path) runs on SP_EL0 (EL1t); every exception switches the CPU to
 * SP_EL1, which is a per-CPU exception stack here.  So an exception always
 * lands on a good stack, even when a task overflowed its own into the
 * guard page below it: the fault is reported instead of faulting again
 * on the overflowed stack.
 *
 * One struct keeps the order fixed: the exception stacks lie below every
 * kernel stack (the boot stack here, the others from the page allocator
 * above the image), so a backtrace taken in a handler, which walks frame
 * pointers upwards, continues from the exception stack into the
 * interrupted task's stack (kernel/panic.c wants each frame above the last).
 */
#include "aarch64.h"

static struct {
	u8 exception[NR_CPUS][EXCEPTION_STACK_SIZE];
	u8 guard[PAGE_SIZE];		/* unmapped by mmu_init(): overflow faults */
	u8 boot[BOOT_STACK_SIZE];	/* CPU 0's boot stack, later its idle task's */
} stacks __aligned(PAGE_SIZE);

/* Read by boot/aarch64/entry.S before any C runs (the MMU is on by then). */
void *const boot_stack_top = &stacks.boot[BOOT_STACK_SIZE];
void *const boot_exception_stack_top = &stacks.exception[0][EXCEPTION_STACK_SIZE];
const uintptr_t boot_stack_guard = (uintptr_t)stacks.guard;

void *exception_stack_top(int cpu)
{
	return &stacks.exception[cpu][EXCEPTION_STACK_SIZE];
}
