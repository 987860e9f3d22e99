/*
 * Faults on a CPU other than the boot CPU end in a report that names the
 * CPU, the task, the registers and a symbolized backtrace, stop the other
 * CPUs and end QEMU with the panic code.  And the memory protection holds:
 * page 0 unmapped, text read-only, data not executable, stack guard pages.
 */
#include "ktest.h"

/* Runs fn in a kernel thread on the last CPU and waits (it should panic). */
static void on_other_cpu(int (*fn)(void *))
{
	struct task_struct *t = kthread_run_on_cpu(fn, NULL, num_online_cpus() - 1,
						   "fault_thread");

	if (t)
		msleep(5000);	/* the panic ends the run before this returns */
}

static int null_deref(void *arg)
{
	volatile int *p = arg;	/* NULL */

	return *p;
}

KTEST_EXPECT_PANIC(fault_null_dereference_on_another_cpu,
		   "BUG: kernel NULL pointer dereference")
{
	on_other_cpu(null_deref);
}

static int invalid_instruction(void *arg)
{
	(void)arg;
	__builtin_trap();	/* ud2 on x86-64, brk/udf on AArch64 */
	return 0;
}

KTEST_EXPECT_PANIC(fault_invalid_instruction_on_another_cpu, "BUG: invalid instruction")
{
	on_other_cpu(invalid_instruction);
}

static volatile int divisor;

static int divide_by_zero(void *arg)
{
	(void)arg;
	return 100 / divisor;
}

KTEST_EXPECT_PANIC(fault_division_by_zero_on_another_cpu, "BUG: division by zero")
{
	if (!ARCH_INTEGER_DIVIDE_TRAPS)
		KTEST_SKIP("integer division by zero does not trap on this architecture");
	on_other_cpu(divide_by_zero);
}

static volatile int forever = 1;

/* Each call takes a 512-byte frame the compiler cannot drop. */
static int recurse(int depth)
{
	volatile char frame[512];

	frame[0] = (char)depth;
	if (!forever)
		return frame[0];
	return recurse(depth + 1) + frame[0];
}

static int overflow_stack(void *arg)
{
	(void)arg;
	return recurse(0);
}

KTEST_EXPECT_PANIC(fault_stack_overflow_hits_the_guard_page, "BUG: kernel stack overflow")
{
	on_other_cpu(overflow_stack);
}

/*
 * The same in an interrupt handler (an IPI to the last CPU): on AArch64
 * handlers run on the CPU's exception stack, which has a guard page of
 * its own (an overflow once ran silently into the next CPU's stack); on
 * x86-64 on the interrupted task's stack, with its guard page.
 */
static void overflow_in_handler(void *arg)
{
	(void)arg;
	recurse(0);
}

KTEST_EXPECT_PANIC(fault_stack_overflow_in_an_interrupt_handler, "BUG: kernel stack overflow")
{
	smp_call_function_single(num_online_cpus() - 1, overflow_in_handler, NULL, true);
}

/*
 * The same in an NMI handler (a backtrace request, whose handler runs the
 * test's hook): on x86-64 NMIs run on a stack of their own, which once
 * had no guard page -- an overflow ran into the double-fault stack below
 * it and the machine reset without a word.  On AArch64 the "NMI" is an
 * interrupt on the exception stack, guarded as above.
 */
static void overflow_in_nmi(void)
{
	recurse(0);
}

KTEST_EXPECT_PANIC(fault_stack_overflow_in_an_nmi_handler, "BUG: kernel stack overflow")
{
	WRITE_ONCE(nmi_backtrace_hook, overflow_in_nmi);
	trigger_cpu_backtrace(num_online_cpus() - 1);
	msleep(5000);	/* the panic ends the run before this returns */
}

static int write_text(void *arg)
{
	(void)arg;
	*(volatile u8 *)(uintptr_t)write_text = 0xc3;
	return 0;
}

KTEST_EXPECT_PANIC(protect_kernel_text_is_read_only, "BUG: write to read-only memory")
{
	on_other_cpu(write_text);
}

static u8 data_code[16] __aligned(16);

static int execute_data(void *arg)
{
	(void)arg;
	data_code[0] = 0xc3;	/* ret */
	((void (*)(void))(uintptr_t)data_code)();
	return 0;
}

KTEST_EXPECT_PANIC(protect_data_is_not_executable,
		   "BUG: attempt to execute non-executable memory")
{
	on_other_cpu(execute_data);
}

/*
 * A fault before arch_init() is reported too: the word ktest.early_fault
 * traps while the command line is parsed, before the clock, the memory
 * map or the other CPUs are set up.  (x86-64 once installed its IDT only
 * in arch_init(): the fault triple-faulted and QEMU ended with no report.)
 */
static bool early_fault(const struct kparam *p, const char *val)
{
	(void)p;
	(void)val;
	__builtin_trap();
}
KPARAM_CALL("ktest.early_fault", early_fault, "any value (traps while the command line is parsed)");

KTEST_EXPECT_PANIC(fault_before_arch_init_is_reported, "BUG: invalid instruction",
		   "ktest.early_fault=1")
{
	/* Never reached: the boot traps first. */
}

/*
 * A fault on a CPU that is still arriving, before its own set-up, is
 * reported too: smp.inject=arrival_fault traps in ap_main() on the first
 * CPU the boot CPU starts.  (x86-64 once loaded an AP's IDT only in
 * arch_cpu_init(): the fault triple-faulted and QEMU ended with no
 * report.  The window before the AP's first C -- its real-mode and
 * 32-bit trampoline -- cannot fault in a way a test can force.)
 */
KTEST_EXPECT_PANIC(fault_on_an_arriving_cpu_is_reported, "BUG: invalid instruction",
		   "smp.inject=arrival_fault")
{
	/* Never reached: CPU1 traps while the boot CPU brings it up. */
}
