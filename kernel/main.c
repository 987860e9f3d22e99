/*
 * kmain: the boot CPU's path from the arch's entry to the tests or the demo.
 */
#include "kernel.h"
#include "ktest_runner.h"
#include "demo.h"

#define QUIESCENT_VERSION "0.1"

static int demo_main(void *arg);
static int ktest_main(void *arg);

void kmain(void *boot_info)
{
	arch_early_init(boot_info);
	printk("\nQuiescent %s: a classic-RCU teaching kernel\n", QUIESCENT_VERSION);
	printk("Command line: %s\n", saved_command_line());
	cmdline_parse(saved_command_line(), true);
	page_alloc_init();
	kmalloc_init();
	sched_init();
	rcu_init();
	arch_init();
	printk("clock: %llu ns since boot calibration, tick %d Hz\n",
	       (unsigned long long)ktime_get_ns(), HZ);
	arch_irq_enable();
	smp_boot_cpus();
	rcu_init_cpu_threads();
	srcu_init();
	trace_boot();

	if (!kthread_run_on_cpu(ktest_requested() ? ktest_main : demo_main, NULL, 0,
				ktest_requested() ? "ktest" : "demo"))
		panic("cannot start the first kernel thread");
	cpu_idle_loop();	/* the boot context becomes CPU 0's idle task */
}

static int demo_main(void *arg)
{
	(void)arg;
	printk("\nAll %d CPUs are up; idle ones halt until an interrupt.\n", num_online_cpus());
	demo_boot();	/* the demos (kernel/demo/), the monitor with a terminal, the exit */
}

static int ktest_main(void *arg)
{
	(void)arg;
	ktest_run_all();	/* ends QEMU with the pass or fail code */
}
