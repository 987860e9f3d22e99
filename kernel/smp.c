/*
 * Bringing up the other CPUs, and running a function on every CPU
 * through an IPI (on_each_cpu, as in Linux).
 */
#include "kernel.h"
#include "irq.h"
#include "cpu.h"
#include "cpu_offsets.h"
#include <errno.h>

_Static_assert(offsetof(struct cpu, user_entry_sp) == CPU_USER_ENTRY_SP, "CPU_USER_ENTRY_SP");
_Static_assert(offsetof(struct cpu, user_scratch) == CPU_USER_SCRATCH, "CPU_USER_SCRATCH");

/* Once a CPU has arrived, how long its own set-up may take (a bug if longer). */
#define CPU_SETUP_TIMEOUT_NS	(10 * NSEC_PER_SEC)

/* How long the boot CPU waits for each other CPU to arrive (smp.start_timeout_ms). */
static int start_timeout_ms = CPU_START_TIMEOUT_MS;
KPARAM_INT("smp.start_timeout_ms", start_timeout_ms, 10, 600000);

struct cpu cpus[NR_CPUS];
int nr_cpu_ids = 1;
struct cpumask __cpu_online_mask = { .bits = { 1 } };	/* the boot CPU */

/* Called by the CPU itself, under rcu_state.lock (rcu_cpu_starting(), rcu_report_dead()). */
void set_cpu_online(int cpu, bool online)
{
	if (cpu < 0 || cpu >= NR_CPUS)
		panic("BUG: set_cpu_online(%d): CPUs are numbered 0 to %d", cpu, NR_CPUS - 1);
	if (!online) {
		/* Ordered by the full barrier before it ([cpu_offline_mb], rcu_report_dead()). */
		cpumask_clear_cpu(cpu, &__cpu_online_mask);
		return;
	}
	/*
	 * [cpu_online_release] pairs [cpu_online_acquire]: everything the CPU
	 * set up (its idle task, its run queue) is visible to whoever sees it
	 * online, or the boot CPU could queue work on a half-built run queue.
	 */
	__atomic_fetch_or(&cpumask_bits(&__cpu_online_mask)[BIT_WORD(cpu)], BIT_MASK(cpu),
			  __ATOMIC_RELEASE);
}

/* Is cpu online, and is what it set up before (set_cpu_online()) visible? */
static bool cpu_online_acquire(int cpu)
{
	/* [cpu_online_acquire] pairs [cpu_online_release]: or we might see it online and not its setup. */
	return __atomic_load_n(&cpumask_bits(&__cpu_online_mask)[BIT_WORD(cpu)],
			       __ATOMIC_ACQUIRE) & BIT_MASK(cpu);
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
 * smp.inject=arrival_fault: the first CPU to arrive executes an invalid
 * instruction before its own set-up (the fault must be reported).
 */
static bool inject_start_error, inject_arrive_late, inject_arrival_fault;

static bool set_inject(const struct kparam *p, const char *val)
{
	(void)p;
	if (!strcmp(val, "arrival_fault")) {
		inject_arrival_fault = true;
		return true;
	}
	if (!strcmp(val, "start_error"))
		inject_start_error = true;
	else if (strcmp(val, "late"))
		return false;
	inject_arrive_late = true;
	return true;
}
KPARAM_CALL("smp.inject", set_inject,
	    "'start_error' or 'late' (a CPU the boot CPU gives up on arrives anyway), "
	    "'arrival_fault' (an arriving CPU faults before its set-up)");

static bool claim_start_state(int cpu, int to)
{
	int from = CPU_STARTING;

	/*
	 * [start_state_claim] pairs [start_state_claim]: one fully ordered
	 * compare-and-exchange from each side (the arriving CPU, the boot CPU
	 * giving up) decides which acts; without one winner a CPU could come
	 * online after the boot CPU went on without it, with no rcuc thread.
	 */
	return __atomic_compare_exchange_n(&start_state[cpu], &from, to, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* Where every other CPU arrives, from the arch's secondary entry. */
void ap_main(int cpu)
{
	void (*hook)(int);

	if (inject_arrival_fault)
		__builtin_trap();
	if (inject_arrive_late)
		while (READ_ONCE(start_state[cpu]) == CPU_STARTING)
			cpu_relax();
	if (!claim_start_state(cpu, CPU_ARRIVED)) {
		/* Given up on: stop, touching nothing (not even printk); add_cpu() may restart it. */
		atomic_inc(&cpus_left_out);
		arch_cpu_left_out(cpu);
	}
	arch_cpu_init(cpu);
	sched_init_cpu(cpu);
	irq_work_cpu_starting(cpu);
	rcu_cpu_starting(cpu);	/* online, with no reader a grace period could miss */
	hook = READ_ONCE(cpu_starting_hook);
	if (hook)
		hook(cpu);	/* a test's first reader here (kernel/cpu.h) */
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

/*
 * [hw_cpu_start] pairs [poc_clean_dsb], [sipi_boot_mb]: the hardware side
 * of arch_start_cpu(): a CPU that starts reads the stack and number the
 * boot CPU stored for it, with no barrier of its own (it has barely begun
 * executing), so the boot CPU must make them visible before starting it.
 */
static bool start_one(int cpu)
{
	u64 timeout = (u64)start_timeout_ms * NSEC_PER_MSEC, end;
	bool started;

	/*
	 * A CPU brought back by add_cpu() reuses its stack: it went down on
	 * it (x86-64: its halt loop; AArch64: powered off), and the arch
	 * made sure it is stopped before we start it again.
	 */
	if (!cpus[cpu].stack_top) {
		void *stack = kernel_stack_alloc(BOOT_STACK_PAGES);

		if (!stack) {
			printk("smp: no memory for CPU%d's stack\n", cpu);
			return false;
		}
		cpus[cpu].stack_guard = (uintptr_t)stack;
		cpus[cpu].stack_top = (char *)stack + (BOOT_STACK_PAGES + 1) * PAGE_SIZE;
	}
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
		       "(should it arrive later, it stops: add_cpu() can start it again)\n", cpu, start_timeout_ms);
		return false;
	}
	/* It arrived: its own set-up is short, whatever smp.start_timeout_ms says. */
	end = ktime_get_ns() + CPU_SETUP_TIMEOUT_NS;
	while (!cpu_online_acquire(cpu)) {
		if (ktime_get_ns() > end)
			panic("smp: CPU%d arrived but did not finish its set-up within %llu s",
			      cpu, CPU_SETUP_TIMEOUT_NS / NSEC_PER_SEC);
		cpu_relax();
	}
	return true;
}

/* add_cpu(): starts cpu again, as at boot; true once it is online. */
bool smp_start_cpu(int cpu)
{
	return start_one(cpu);
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
	/* smp.inject's faults are the boot's: add_cpu() later starts CPUs as it should. */
	inject_start_error = inject_arrive_late = false;
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

	/* (a CPU going down runs a call addressed to it here, interrupts off, before it leaves) */
	/*
	 * [call_ipi_acquire] pairs [call_setup_mb], [call_abandon_xchg]:
	 * consuming our request we read the func, info and wait it came
	 * with, not the previous call's.
	 */
	if (!xchg_acquire(&call_for_cpu[me], false))
		return;
	func = call_func;
	info = call_info;
	wait = call_wait;
	/*
	 * [call_taken_dec] pairs [call_wait_mb]: fully ordered, so our copy
	 * is made before the caller, seeing the count drop, reuses the slot
	 * for its next call (we would run that call's func instead).
	 */
	atomic_dec_return(&call_taken);
	func(info);
	/*
	 * [call_done_dec] pairs [call_wait_mb]: fully ordered, so our work is
	 * visible before a caller that waits sees the count drop and goes on.
	 */
	if (wait)
		atomic_dec_return(&call_pending);
}

/* Is a call addressed to cpu waiting for it to take it?  (For tests of the dying CPU.) */
bool smp_call_pending(int cpu)
{
	return READ_ONCE(call_for_cpu[cpu]);
}

/*
 * A target that went offline after we addressed it takes no IPI any more.
 * It ran the calls addressed to it before it went (cpu_die()), so if its
 * request is still there it will never be taken: we take it back ourselves.
 * The exchange decides: exactly one of us (it, in its last
 * smp_handle_call_ipi(), or we) gets the request.
 */
static void abandon_offline_targets(const struct cpumask *to, bool wait)
{
	int cpu;

	for_each_cpu(cpu, to) {
		if (cpu_online(cpu) || !READ_ONCE(call_for_cpu[cpu]))
			continue;
		/*
		 * [call_abandon_xchg] pairs [call_ipi_acquire]: the target's
		 * exchange and ours are atomic on one flag: exactly one of us
		 * sees it set, so the call is counted once, run or abandoned.
		 */
		if (!xchg(&call_for_cpu[cpu], false))
			continue;
		atomic_dec(&call_taken);
		if (wait)
			atomic_dec(&call_pending);
	}
}

static void smp_call_mask(const struct cpumask *mask, void (*func)(void *), void *info,
			  bool wait)
{
	int cpu, me, targets = 0;
	unsigned long flags;
	struct cpumask to;

	if (arch_irqs_disabled() || in_interrupt())
		panic("BUG: on_each_cpu() with interrupts off or from an interrupt handler "
		      "would deadlock: a CPU waiting for us could not take our IPI");
	/*
	 * Wait for the lock with interrupts on: the holder may be waiting for
	 * this CPU to run its function.
	 */
	spin_lock(&call_lock);
	me = smp_processor_id();
	/* The targets: online CPUs of mask other than this one, fixed once here. */
	cpumask_and(&to, mask, cpu_online_mask);
	__cpumask_clear_cpu(me, &to);
	targets = cpumask_weight(&to);
	call_func = func;
	call_info = info;
	call_wait = wait;
	atomic_set(&call_taken, targets);
	atomic_set(&call_pending, targets);
	/*
	 * [call_setup_mb] pairs [call_ipi_acquire]: the call (func, info,
	 * wait and the counts) is visible before any request flag.  A target
	 * that sees its flag -- in our IPI, or going down, in cpu_die(),
	 * with no IPI at all -- runs this call's function, not the previous
	 * one, and counts down the counts we set, not ones our atomic_set()
	 * then overwrites (the caller would wait for ever).  The flags reach
	 * a target before our IPI does: the send orders them (AArch64's
	 * [sgi_dsb]; x86-64 keeps stores in order with the APIC write).
	 */
	smp_mb();
	for_each_cpu(cpu, &to)
		WRITE_ONCE(call_for_cpu[cpu], true);
	for_each_cpu(cpu, &to)
		arch_send_ipi(cpu, IPI_CALL_FUNC);
	if (cpumask_test_cpu(me, mask)) {
		local_irq_save(flags);
		func(info);
		local_irq_restore(flags);
	}
	while (atomic_read(&call_taken) > 0 || (wait && atomic_read(&call_pending) > 0)) {
		abandon_offline_targets(&to, wait);
		cpu_relax();
	}
	/*
	 * [call_wait_mb] pairs [call_taken_dec], [call_done_dec]: after the
	 * counts dropped, our caller sees what the targets did, and we reuse
	 * the slot only after they copied it.
	 */
	smp_mb();
	spin_unlock(&call_lock);
}

void on_each_cpu(void (*func)(void *), void *info, bool wait)
{
	smp_call_mask(cpu_online_mask, func, info, wait);
}

void on_each_cpu_mask(const struct cpumask *mask, void (*func)(void *), void *info, bool wait)
{
	smp_call_mask(mask, func, info, wait);
}

int smp_call_function_single(int cpu, void (*func)(void *), void *info, bool wait)
{
	struct cpumask one;

	if (!cpu_online(cpu))
		return -ENXIO;	/* as Linux: nothing runs there */
	cpumask_clear(&one);
	__cpumask_set_cpu(cpu, &one);
	smp_call_mask(&one, func, info, wait);
	return 0;
}
