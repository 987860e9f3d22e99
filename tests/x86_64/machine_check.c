/*
 * x86-64: a machine check runs on a stack of its own (arch/x86_64/
 * cpu_tables.c), as the NMI and the double fault do: it may strike between
 * `syscall` and the entry's switch to a kernel stack, while rsp is still
 * the user's, and nothing recovers from one.  QEMU raises no machine
 * check on its own; `int $18` goes through the same gate, so through the
 * same stack switch, and the handler's report says which stack it ran on.
 */
#include "ktest.h"

KTEST_EXPECT_PANIC(x86_machine_check_runs_on_its_own_stack_and_panics,
		   "machine check (exception 18): the hardware reports an error it could not "
		   "correct (handled on this CPU's machine-check stack)")
{
	__asm__ __volatile__("int $18" ::: "memory");
}
