/*
 * Bringing up the other CPUs, and running a function on every CPU
 * through an IPI (on_each_cpu, as in Linux).
 */
#include "kernel.h"
#include "irq.h"


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
	 * Release: everything the CPU set up before this store is visible to
	 * whoever sees it online (pairs with the acquire in smp_boot_cpus()).
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
	end = ktime_get_ns() + CPU_START_TIMEOUT_S * NSEC_PER_SEC;
	while (!(__atomic_load_n(&online_mask, __ATOMIC_ACQUIRE) & (1UL << cpu))) {
		if (ktime_get_ns() > end) {
			printk("smp: CPU%d did not come up within %d s: going on without it\n",
			       cpu, CPU_START_TIMEOUT_S);
			return false;
		}
		cpu_relax();
	}
	return true;
}

void smp_boot_cpus(void)
{
	nr_cpu_ids = min(arch_possible_cpus(), NR_CPUS);
	for (int cpu = 1; cpu < nr_cpu_ids; cpu++) {
		if (!start_one(cpu))
			break;
		printk("smp: CPU%d is up\n", cpu);
	}
	printk("smp: Brought up 1 node, %d CPU%s\n", num_online_cpus(),
	       num_online_cpus() == 1 ? "" : "s");
}

/*
 * on_each_cpu(): one call at a time.  Each target copies the call, then
 * acknowledges through `taken`: from then on the slot is free for the
 * next caller.  With wait, it also reports the end of func through
 * `pending`; without, it never touches `pending` (so a later caller that
 * waits counts only its own targets).
 */
static DEFINE_SPINLOCK(call_lock);
static void (*call_func)(void *);
static void *call_info;
static bool call_wait;
static atomic_t call_taken;
static atomic_t call_pending;
static bool call_for_cpu[NR_CPUS];

void smp_handle_call_ipi(void)
{
	int me = smp_processor_id();
	void (*func)(void *);
	void *info;
	bool wait;

	/* Pairs with the smp_mb() in smp_call_mask(): func, info and wait are set. */
	if (!__atomic_exchange_n(&call_for_cpu[me], false, __ATOMIC_ACQUIRE))
		return;
	func = call_func;
	info = call_info;
	wait = call_wait;
	/*
	 * Fully ordered: our copy is made before the caller, past the smp_mb()
	 * after its wait in smp_call_mask() (which this pairs with), reuses the slot.
	 */
	atomic_dec_return(&call_taken);
	func(info);
	/* Fully ordered: our work is visible before the caller sees the count drop (same pair). */
	if (wait)
		atomic_dec_return(&call_pending);
}

static void smp_call_mask(unsigned long mask, void (*func)(void *), void *info, bool wait)
{
	int cpu, me, targets;
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
	targets = __builtin_popcountl(mask & ~(1UL << me));
	call_func = func;
	call_info = info;
	call_wait = wait;
	atomic_set(&call_taken, targets);
	atomic_set(&call_pending, targets);
	for_each_online_cpu(cpu)
		if (cpu != me && (mask & (1UL << cpu)))
			WRITE_ONCE(call_for_cpu[cpu], true);
	smp_mb();	/* the call is fully set up before any IPI can arrive */
	for_each_online_cpu(cpu)
		if (cpu != me && (mask & (1UL << cpu)))
			arch_send_ipi(cpu, IPI_CALL_FUNC);
	if (mask & (1UL << me)) {
		local_irq_save(flags);
		func(info);
		local_irq_restore(flags);
	}
	while (atomic_read(&call_taken) > 0 || (wait && atomic_read(&call_pending) > 0))
		cpu_relax();
	smp_mb();	/* pairs with the atomic_dec_return()s in the handlers */
	spin_unlock(&call_lock);
}

void on_each_cpu(void (*func)(void *), void *info, bool wait)
{
	smp_call_mask(READ_ONCE(online_mask), func, info, wait);
}

void smp_call_function_single(int cpu, void (*func)(void *), void *info, bool wait)
{
	if (!cpu_online(cpu))
		panic("BUG: smp_call_function_single() to offline CPU%d", cpu);
	smp_call_mask(1UL << cpu, func, info, wait);
}
