/*
 * Bringing up the other CPUs, and running a function on every CPU
 * through an IPI (on_each_cpu, as in Linux).
 */
#include "kernel.h"
#include "irq.h"

#define BOOT_STACK_PAGES	4
/* Once a CPU has arrived, how long its own set-up may take (a bug if longer). */
#define CPU_SETUP_TIMEOUT_NS	(10 * NSEC_PER_SEC)

/* How long the boot CPU waits for each other CPU to arrive (smp.start_timeout_ms). */
static int start_timeout_ms = 5000;
KPARAM_INT("smp.start_timeout_ms", start_timeout_ms, 10, 600000);

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
	 * whoever sees it online (pairs with the acquire in start_one()).
	 */
	__atomic_fetch_or(&online_mask, 1UL << cpu, __ATOMIC_RELEASE);
}

/*
 * Each CPU the boot CPU starts is in one of three states.  The CPU, when
 * it arrives, and the boot CPU, when it gives up, both try to move it out
 * of CPU_STARTING; exactly one succeeds.  A CPU that arrives after the
 * boot CPU gave up (its deadline passed, or the arch said it could not
 * start it) stays out: coming online then, with no rcuc thread and
 * unknown to everything set up since, its callbacks would never run.
 */
enum { CPU_STARTING, CPU_ARRIVED, CPU_LEFT_OUT };
static int start_state[NR_CPUS];
atomic_t cpus_left_out;		/* CPUs that arrived after being given up */

/*
 * smp.inject=start_error|late, faults that prove the tests can fail: the
 * arch reports that it could not start the CPU (which starts anyway), or
 * the deadline passes.  Either way the CPU arrives only once the boot CPU
 * has given up on it (inject_arrive_late), so the outcome is certain.
 */
static bool inject_start_error, inject_arrive_late;

static bool set_inject(const struct kparam *p, const char *val)
{
	(void)p;
	if (!strcmp(val, "start_error"))
		inject_start_error = true;
	else if (strcmp(val, "late"))
		return false;
	inject_arrive_late = true;
	return true;
}
KPARAM_CALL("smp.inject", set_inject,
	    "'start_error' or 'late' (a CPU the boot CPU gives up on arrives anyway)");

/*
 * Fully ordered compare-and-exchange, from either side: the winner's
 * decision is the one both act on (the arriving CPU's loss is paired with
 * the boot CPU's give-up, and the reverse).
 */
static bool claim_start_state(int cpu, int to)
{
	int from = CPU_STARTING;

	return __atomic_compare_exchange_n(&start_state[cpu], &from, to, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* Where every other CPU arrives, from the arch's secondary entry. */
void ap_main(int cpu)
{
	if (inject_arrive_late)
		while (READ_ONCE(start_state[cpu]) == CPU_STARTING)
			cpu_relax();
	if (!claim_start_state(cpu, CPU_ARRIVED)) {
		/* Given up on: stay halted, touching nothing (not even printk). */
		atomic_inc(&cpus_left_out);
		for (;;)
			arch_cpu_halt();
	}
	arch_cpu_init(cpu);
	sched_init_cpu(cpu);
	set_cpu_online(cpu);
	cpu_idle_loop();
}

/* Waits until cpu is no longer starting, or the deadline; false at the deadline. */
static bool wait_for_arrival(int cpu, u64 end)
{
	while (READ_ONCE(start_state[cpu]) == CPU_STARTING) {
		if (ktime_get_ns() > end)
			return false;
		cpu_relax();
	}
	return true;
}

static bool start_one(int cpu)
{
	void *stack = kernel_stack_alloc(BOOT_STACK_PAGES);
	u64 timeout = (u64)start_timeout_ms * NSEC_PER_MSEC, end;
	bool started;

	if (!stack) {
		printk("smp: no memory for CPU%d's stack\n", cpu);
		return false;
	}
	cpus[cpu].stack_guard = (uintptr_t)stack;
	cpus[cpu].stack_top = (char *)stack + (BOOT_STACK_PAGES + 1) * PAGE_SIZE;
	WRITE_ONCE(start_state[cpu], CPU_STARTING);	/* the arch orders it before the start */
	started = arch_start_cpu(cpu, cpus[cpu].stack_top) && !inject_start_error;
	/*
	 * A CPU left out keeps its stack: should it arrive after all, it
	 * halts on it.
	 */
	if (!started && claim_start_state(cpu, CPU_LEFT_OUT)) {
		printk("smp: CPU%d could not be started: going on without it\n", cpu);
		return false;
	}
	end = ktime_get_ns() + timeout;
	if (!wait_for_arrival(cpu, end) && claim_start_state(cpu, CPU_LEFT_OUT)) {
		printk("smp: CPU%d did not come up within %d ms: going on without it "
		       "(if it arrives later it stays halted)\n", cpu, start_timeout_ms);
		return false;
	}
	/* It arrived: its own set-up is short, whatever smp.start_timeout_ms says. */
	end = ktime_get_ns() + CPU_SETUP_TIMEOUT_NS;
	while (!(__atomic_load_n(&online_mask, __ATOMIC_ACQUIRE) & (1UL << cpu))) {
		if (ktime_get_ns() > end)
			panic("smp: CPU%d arrived but did not finish its set-up within %llu s",
			      cpu, CPU_SETUP_TIMEOUT_NS / NSEC_PER_SEC);
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

	/* Pairs with the smp_mb() in smp_call_mask(): func and info are set. */
	if (!__atomic_exchange_n(&call_for_cpu[me], false, __ATOMIC_ACQUIRE))
		return;
	call_func(call_info);
	/* Fully ordered: our work is visible before the caller sees the count drop. */
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
	smp_mb();	/* the call is fully set up before any IPI can arrive */
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
	smp_mb();	/* pairs with atomic_dec_return() in the handlers */
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
