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
 * A panic whose every console write faults -- the UART at a bad address
 * once did that; here a console capture into page 0 -- faults again in
 * its report, and again in the "giving up" line: the kernel then ends
 * QEMU with the panic code at once (it once recursed until the stacks
 * ran out, and QEMU ended without the panic code, or hung).  The line
 * the runner looks for comes before the faults.
 */
KTEST_EXPECT_PANIC(panic_whose_console_faults_ends_qemu,
		   "panic-test: from here on every console write faults")
{
	printk("panic-test: from here on every console write faults\n");
	console_capture((char *)16, PAGE_SIZE);	/* page 0, unmapped */
}

/*
 * The same race at three CPUs, while the third prints: the report waits
 * until that CPU has stopped too.  Its printing cannot be stopped before
 * it is done: it prints in the handler of a backtrace request it sent
 * itself (an NMI on x86-64, during which further NMIs wait; interrupts
 * are masked there on AArch64), for 200 ms after the panic began, then
 * says it stops.  A panicking CPU that went on early -- the one that lost
 * the race was once counted as stopped twice, once by itself and once by
 * the winner's NMI -- reports and ends QEMU before that line.
 */
#define PRINTER_AFTER_PANIC_NS	(200 * NSEC_PER_MSEC)

static bool printer_printing;

static void print_through_the_panic(void)
{
	u64 end = 0;

	WRITE_ONCE(printer_printing, true);
	for (int line = 0; !end || ktime_get_ns() < end; line++) {
		if (!end && panic_in_progress())
			end = ktime_get_ns() + PRINTER_AFTER_PANIC_NS;
		printk("panic-printer: line %d\n", line);
	}
	printk("panic-printer: CPU%d stops printing now\n", smp_processor_id());
}

static int twin_after_printer(void *arg)
{
	while (!READ_ONCE(printer_printing))
		cpu_relax();
	return panic_twin(arg);
}

static int printer(void *arg)
{
	(void)arg;
	trigger_cpu_backtrace(smp_processor_id());	/* returns only after the panic */
	return 0;
}

KTEST_EXPECT_PANIC(panic_on_two_cpus_at_once_waits_for_a_third_printing,
		   "panic-printer: CPU2 stops printing now", "ktest.cpus=3")
{
	if (num_online_cpus() < 3)
		KTEST_SKIP("needs three CPUs");
	atomic_set(&panickers, 0);
	WRITE_ONCE(nmi_backtrace_hook, print_through_the_panic);
	/*
	 * Both threads first: once the printer is in its handler, a new
	 * thread's stack (whose guard page every CPU's TLB must drop, by NMI
	 * on x86-64) would wait for it.
	 */
	if (!kthread_run_on_cpu(twin_after_printer, NULL, 1, "panic_twin"))
		KTEST_SKIP("cannot start a thread on CPU1");
	if (!kthread_run_on_cpu(printer, NULL, 2, "printer"))
		KTEST_SKIP("cannot start a thread on CPU2");
	while (!READ_ONCE(printer_printing))
		cpu_relax();
	panic_with_the_other_cpu();
}

/*
 * A backtrace follows frame pointers only into RAM the kernel maps: a
 * corrupt one pointing at a device (on AArch64 devices sit below RAM,
 * and a backtrace once printed a redistributor register as a return
 * address) or at a guard page (a fault inside the report) ends the walk
 * before anything is read there.  Every 2 MiB block mapped as a device,
 * then this thread's own stack guard page, as the first frame pointer:
 * the trace must hold no frame.
 */
static char trace_out[4096];

KTEST(backtrace_reads_no_device_and_no_guard_page)
{
	int devices = 0;

	console_capture(trace_out, sizeof(trace_out));
	for (uintptr_t a = 0x100000; a < (1ULL << 32) - 0x200000; a += 0x200000) {
		if (arch_mapping_of(a) != ARCH_MAP_DEVICE)
			continue;
		dump_backtrace(0, a);
		devices++;
	}
	dump_backtrace(0, (uintptr_t)current->stack);	/* its guard page */
	console_capture(NULL, 0);
	KEXPECT(devices > 0);
	if (strstr(trace_out, " [<"))
		ktest_info("a frame was read: %.200s", strstr(trace_out, " [<"));
	KEXPECT(strstr(trace_out, " [<") == NULL);
}
