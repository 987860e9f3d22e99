/*
 * kmain: the boot CPU's path from the arch's entry to the tests or the demo.
 */
#include "kernel.h"
#include "ktest_runner.h"

#define QUIESCENT_VERSION "0.1"

void kmain(void *boot_info)
{
	arch_early_init(boot_info);
	printk("\nQuiescent %s: a classic-RCU teaching kernel\n", QUIESCENT_VERSION);
	printk("Command line: %s\n", saved_command_line());
	cmdline_parse(saved_command_line(), true);
	page_alloc_init();
	kmalloc_init();
	arch_init();
	printk("clock: %llu ns since boot calibration, tick %d Hz\n",
	       (unsigned long long)ktime_get_ns(), HZ);
	arch_irq_enable();
	smp_boot_cpus();

	if (ktest_requested())
		ktest_run_all();	/* ends QEMU with the pass or fail code */

	printk("\nAll %d CPUs are up and idle (halted until an interrupt).\n", num_online_cpus());
	printk("Run 'make test' to run the in-kernel tests. Bye.\n");
	arch_qemu_exit(QEMU_EXIT_PASS);
}

/* A CPU with nothing to do halts until an interrupt arrives. */
void cpu_idle_loop(void)
{
	arch_irq_enable();
	for (;;)
		arch_wait_for_interrupt();
}
