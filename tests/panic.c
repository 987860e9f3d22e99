/*
 * Two CPUs that panic at the same moment: the first one's report comes
 * out whole (its closing line is the last thing printed) and the second
 * CPU stops quietly, as the first one's stop request would have stopped it.
 */
#include "ktest.h"

static atomic_t panickers;

/* Both CPUs arrive here, wait for each other, then panic together. */
static void __noreturn panic_with_the_other_cpu(void)
{
	/* Masked: on AArch64 the first CPU's stop request (an IPI) cannot reach us. */
	local_irq_disable();
	atomic_inc(&panickers);
	while (atomic_read(&panickers) < 2)
		cpu_relax();
	panic("two CPUs panic at once");
}

static int panic_twin(void *arg)
{
	(void)arg;
	panic_with_the_other_cpu();
}

KTEST_EXPECT_PANIC(panic_on_two_cpus_at_once_prints_one_whole_report,
		   "---[ end Kernel panic - not syncing: two CPUs panic at once ]---")
{
	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs");
	atomic_set(&panickers, 0);
	if (!kthread_run_on_cpu(panic_twin, NULL, 1, "panic_twin"))
		KTEST_SKIP("cannot start a thread on CPU1");
	panic_with_the_other_cpu();
}

/*
 * A fault inside the panic report (here: the task name it prints is a bad
 * pointer) is a panic inside the panic: the kernel gives up at once and
 * ends QEMU with the panic code instead of reporting again (a console
 * that faults on every character once made that recurse for ever, with
 * no output; then it exits before writing anything).
 */
KTEST_EXPECT_PANIC(panic_inside_its_own_report_gives_up, "Kernel panic while panicking: giving up")
{
	local_irq_disable();
	this_cpu()->task_name = (const char *)16;	/* in page 0, unmapped */
	panic("the report of this panic faults");
}
