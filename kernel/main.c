/*
 * kmain: the boot CPU's path from the arch's entry to the tests or the demo.
 */
#include "kernel.h"
#include "ktest_runner.h"
#include "demo.h"
#include "user/user.h"
#include "user/console_server.h"
#include "object/object.h"

#define QUIESCENT_VERSION "0.1"

static int demo_main(void *arg);
static int ktest_main(void *arg);
static void check_enough_memory(void);

void kmain(void *boot_info)
{
	arch_early_init(boot_info);
	printk("\nQuiescent %s: a classic-RCU teaching kernel\n", QUIESCENT_VERSION);
	printk("Command line: %s\n", saved_command_line());
	cmdline_parse(saved_command_line(), true);
	if (!page_alloc_init())
		arch_qemu_exit(QEMU_EXIT_FAIL);	/* said why: the memory map cannot be right */
	check_enough_memory();		/* say so and stop, rather than fail later */
	kmalloc_init();
	sched_init();
	rcu_init();
	arch_init();
	printk("clock: %llu ns since boot calibration, tick %d Hz\n",
	       (unsigned long long)ktime_get_ns(), HZ);
	delay_calibrate();
	arch_irq_enable();
	smp_boot_cpus();
	console_input_init();	/* the UART's receive interrupt, if the machine routes it */
	rcu_init_cpu_threads();
	srcu_init();
	trace_boot();
	object_init();		/* kernel objects and capabilities (kernel/object/) */
	user_init();		/* the boot modules, the reaper thread */

	if (!kthread_run_on_cpu(ktest_requested() ? ktest_main : demo_main, NULL, 0,
				ktest_requested() ? "ktest" : "demo"))
		panic("cannot start the first kernel thread");
	cpu_idle_loop();	/* the boot context becomes CPU 0's idle task */
}

/*
 * What the kernel needs free once the page allocator is set up: a base
 * (page tables, kmalloc's slabs, a few threads) and a share per CPU: its
 * boot stack and its rcuc thread (20 KiB each), its trace ring (196 KiB,
 * once tracing starts: make trace and the trace tests) and the threads
 * tests start on it.  Measured with make test: 1384 KiB free pass with 4
 * CPUs, 3432 KiB fail with 16.
 */
#define MIN_FREE_KIB		256
#define MIN_FREE_KIB_PER_CPU	240

static void check_enough_memory(void)
{
	int ncpus = min(arch_possible_cpus(), NR_CPUS);
	size_t need = MIN_FREE_KIB + (size_t)MIN_FREE_KIB_PER_CPU * ncpus;
	size_t have = page_free_count() * (PAGE_SIZE / 1024);

	if (have >= need)
		return;
	printk("mm: too little memory: %zu KiB free, the kernel needs %zu KiB with %d CPU%s; "
	       "boot with more memory (make MEM=...)\n", have, need, ncpus, ncpus == 1 ? "" : "s");
	arch_qemu_exit(QEMU_EXIT_FAIL);
}

static int demo_main(void *arg)
{
	(void)arg;
	printk("\nAll %d CPUs are up; idle ones halt until an interrupt.\n", num_online_cpus());
	console_server_boot();		/* console.server=1: the console's input from user mode */
	user_run_boot_programs();	/* the boot modules' programs, if any (make run) */
	demo_boot();	/* the demos (kernel/demo/), the monitor with a terminal, the exit */
}

static int ktest_main(void *arg)
{
	(void)arg;
	ktest_run_all();	/* ends QEMU with the pass or fail code */
}
