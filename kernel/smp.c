/*
 * Bringing up the other CPUs, and running a function on every CPU
 * through an IPI (on_each_cpu, as in Linux).
 */
#include "kernel.h"
#include "irq.h"

#define BOOT_STACK_PAGES	4
#define CPU_START_TIMEOUT_NS	(5 * NSEC_PER_SEC)

struct cpu cpus[NR_CPUS];
int nr_cpu_ids = 1;
static unsigned long online_mask = 1;	/* the boot CPU */

bool cpu_online(int cpu)
{
	return cpu >= 0 && cpu < NR_CPUS && (READ_ONCE(online_mask) & (1UL << cpu));
}

int num_online_cpus(void)
{
	return __builtin_popcountl(READ_ONCE(online_mask));
}

int cpu_next_online(int cpu)
{
	for (cpu++; cpu < NR_CPUS; cpu++)
		if (cpu_online(cpu))
			return cpu;
	return NR_CPUS;
}

static void set_cpu_online(int cpu)
{
	/*
	 * [cpu_online_release] pairs [cpu_online_acquire]: everything the CPU
	 * set up (its idle task, its run queue) is visible to whoever sees it
	 * online, or the boot CPU could queue work on a half-built run queue.
	 */
	__atomic_fetch_or(&online_mask, 1UL << cpu, __ATOMIC_RELEASE);
}


/* Where every other CPU arrives, from the arch's secondary entry. */
void ap_main(int cpu)
{
	arch_cpu_init(cpu);
	sched_init_cpu(cpu);
	set_cpu_online(cpu);
	cpu_idle_loop();
}

/*
 * [hw_cpu_start] pairs [psci_boot_dsb], [sipi_boot_mb]: the hardware side
 * of arch_start_cpu(): a CPU that starts reads the stack and number the
 * boot CPU stored for it, with no barrier of its own (it has barely begun
 * executing), so the boot CPU must make them visible before starting it.
 */
static bool start_one(int cpu)
{
	void *stack = kernel_stack_alloc(BOOT_STACK_PAGES);
	u64 end;

	if (!stack) {
		printk("smp: no memory for CPU%d's stack\n", cpu);
		return false;
	}
	cpus[cpu].stack_guard = (uintptr_t)stack;
	cpus[cpu].stack_top = (char *)stack + (BOOT_STACK_PAGES + 1) * PAGE_SIZE;
	arch_start_cpu(cpu, cpus[cpu].stack_top);
	end = ktime_get_ns() + CPU_START_TIMEOUT_NS;
	/* [cpu_online_acquire] pairs [cpu_online_release]: or we might see it online and not its setup. */
	while (!(__atomic_load_n(&online_mask, __ATOMIC_ACQUIRE) & (1UL << cpu))) {
		if (ktime_get_ns() > end) {
			printk("smp: CPU%d did not come up within %llu s: going on without it\n",
			       cpu, CPU_START_TIMEOUT_NS / NSEC_PER_SEC);
			return false;
		}
		cpu_relax();
	}
	return true;
}

void smp_boot_cpus(void)
{
	int possible = arch_possible_cpus();

	for (int cpu = 1; cpu < possible; cpu++) {
		if (!start_one(cpu))
			break;
		nr_cpu_ids = cpu + 1;
		printk("smp: CPU%d is up\n", cpu);
	}
	printk("smp: Brought up 1 node, %d CPU%s\n", num_online_cpus(),
	       num_online_cpus() == 1 ? "" : "s");
}

/* on_each_cpu(): one call at a time, each target acknowledges through `pending`. */
static DEFINE_SPINLOCK(call_lock);
static void (*call_func)(void *);
static void *call_info;
static atomic_t call_pending;
static bool call_for_cpu[NR_CPUS];

void smp_handle_call_ipi(void)
{
	int me = smp_processor_id();

	/*
	 * [call_ipi_acquire] pairs [call_setup_mb]: consuming our request we
	 * see the func and info it came with, not the previous call's.
	 */
	if (!xchg_acquire(&call_for_cpu[me], false))
		return;
	call_func(call_info);
	/*
	 * [call_done_dec] pairs [call_wait_mb]: fully ordered, so our call's
	 * work is visible before the caller sees the count drop, returns and
	 * reuses the call slot.
	 */
	atomic_dec_return(&call_pending);
}

static void smp_call_mask(unsigned long mask, void (*func)(void *), void *info)
{
	int cpu, me;
	unsigned long flags;

	if (arch_irqs_disabled() || in_interrupt())
		panic("BUG: on_each_cpu() with interrupts off or from an interrupt handler "
		      "would deadlock: a CPU waiting for us could not take our IPI");
	/*
	 * Wait for the lock with interrupts on: the holder may be waiting for
	 * this CPU to run its function.
	 */
	spin_lock(&call_lock);
	me = smp_processor_id();
	call_func = func;
	call_info = info;
	atomic_set(&call_pending, __builtin_popcountl(mask & ~(1UL << me)));
	for_each_online_cpu(cpu)
		if (cpu != me && (mask & (1UL << cpu)))
			WRITE_ONCE(call_for_cpu[cpu], true);
	/*
	 * [call_setup_mb] pairs [call_ipi_acquire]: the call is fully set up
	 * before any target can see its request flag, or it could run the
	 * previous call's function.
	 */
	smp_mb();
	for_each_online_cpu(cpu)
		if (cpu != me && (mask & (1UL << cpu)))
			arch_send_ipi(cpu, IPI_CALL_FUNC);
	if (mask & (1UL << me)) {
		local_irq_save(flags);
		func(info);
		local_irq_restore(flags);
	}
	while (atomic_read(&call_pending) > 0)
		cpu_relax();
	/* [call_wait_mb] pairs [call_done_dec]: or our caller might not see what the targets did. */
	smp_mb();
	spin_unlock(&call_lock);
}

void on_each_cpu(void (*func)(void *), void *info, bool wait)
{
	(void)wait;	/* always waits: the call slot is reused by the next caller */
	smp_call_mask(READ_ONCE(online_mask), func, info);
}

void smp_call_function_single(int cpu, void (*func)(void *), void *info, bool wait)
{
	(void)wait;
	if (!cpu_online(cpu))
		panic("BUG: smp_call_function_single() to offline CPU%d", cpu);
	smp_call_mask(1UL << cpu, func, info);
}
