/* Every CPU up, per-CPU data, IPIs and the timer tick on every CPU. */
#include "ktest.h"
#include "object/ipc.h"

KTEST(smp_every_cpu_is_online_with_its_own_id)
{
	int cpu, n = 0;

	for_each_online_cpu(cpu) {
		KEXPECT_EQ(cpus[cpu].id, cpu);
		n++;
	}
	KEXPECT_EQ(n, num_online_cpus());
	KEXPECT_EQ(num_online_cpus(), arch_possible_cpus() < NR_CPUS ? arch_possible_cpus() : NR_CPUS);
	/* nr_cpu_ids counts the possible CPUs, as in Linux: here every one came up. */
	n = 0;
	for_each_possible_cpu(cpu)
		n++;
	KEXPECT_EQ(n, nr_cpu_ids);
	KEXPECT_EQ(nr_cpu_ids, min(arch_possible_cpus(), NR_CPUS));
	KEXPECT_EQ(smp_processor_id(), 0);
}

static DEFINE_PER_CPU(int, percpu_slot);
static struct cpumask ids_seen;

static void write_own_slot(void *info)
{
	(void)info;
	this_cpu_write(percpu_slot, 1000 + smp_processor_id());
	/* Each CPU sets its own bit: a shared or wrong id would leave one unset. */
	cpumask_set_cpu(smp_processor_id(), &ids_seen);
}

KTEST(percpu_each_cpu_writes_its_own_slot)
{
	int cpu;

	for_each_online_cpu(cpu)
		per_cpu(percpu_slot, cpu) = -1;
	cpumask_clear(&ids_seen);
	on_each_cpu(write_own_slot, NULL, true);
	for_each_online_cpu(cpu) {
		KEXPECT_EQ(per_cpu(percpu_slot, cpu), 1000 + cpu);
		KEXPECT_EQ(*per_cpu_ptr(&percpu_slot, cpu), 1000 + cpu);
	}
	KEXPECT(cpumask_equal(&ids_seen, cpu_online_mask));
}

static atomic_t ipi_calls;
static int ran_on[NR_CPUS];

static void count_call(void *info)
{
	atomic_inc(&ipi_calls);
	ran_on[smp_processor_id()] = (int)(uintptr_t)info;
}

/*
 * A per-CPU slot is written by its own CPU only, and that is why it is
 * one: two CPUs' slots on one cache line would make every write a shared
 * one (the line moving between them).  Each CPU's slot of a small type
 * and of a struct (IPC's counts) starts a line and shares none.
 */
static bool slots_own_their_lines(uintptr_t first, uintptr_t next, size_t size)
{
	return first % SMP_CACHE_BYTES == 0 && next - first >= SMP_CACHE_BYTES &&
	       (first + size - 1) / SMP_CACHE_BYTES < next / SMP_CACHE_BYTES;
}

KTEST(percpu_slots_share_no_cache_line)
{
	int small = 0, ipc = 0;

	for (int cpu = 0; cpu + 1 < NR_CPUS; cpu++) {
		small += !slots_own_their_lines((uintptr_t)per_cpu_ptr(&percpu_slot, cpu),
						(uintptr_t)per_cpu_ptr(&percpu_slot, cpu + 1),
						sizeof(int));
		ipc += !slots_own_their_lines((uintptr_t)per_cpu_ptr(&ipc_stats, cpu),
					      (uintptr_t)per_cpu_ptr(&ipc_stats, cpu + 1),
					      sizeof(struct ipc_stats));
	}
	KEXPECT_EQ(small, 0);
	KEXPECT_EQ(ipc, 0);
}

KTEST(ipi_reaches_every_cpu)
{
	u64 ipis_before[NR_CPUS];
	int cpu;

	for_each_online_cpu(cpu)
		ipis_before[cpu] = READ_ONCE(cpus[cpu].ipis);
	for (int round = 1; round <= 20; round++) {
		atomic_set(&ipi_calls, 0);
		on_each_cpu(count_call, (void *)(uintptr_t)round, true);
		KEXPECT_EQ(atomic_read(&ipi_calls), num_online_cpus());
		for_each_online_cpu(cpu)
			KEXPECT_EQ(ran_on[cpu], round);
	}
	/* The other CPUs ran it from an interrupt: their IPI counts moved by 20. */
	for_each_online_cpu(cpu) {
		if (cpu != smp_processor_id())
			KEXPECT_EQ(READ_ONCE(cpus[cpu].ipis) - ipis_before[cpu], 20);
	}
}

KTEST(ipi_single_cpu_runs_only_there)
{
	int target = num_online_cpus() - 1, cpu;

	for_each_online_cpu(cpu)
		ran_on[cpu] = 0;
	atomic_set(&ipi_calls, 0);
	smp_call_function_single(target, count_call, (void *)7, true);
	KEXPECT_EQ(atomic_read(&ipi_calls), 1);
	for_each_online_cpu(cpu)
		KEXPECT_EQ(ran_on[cpu], cpu == target ? 7 : 0);
}

KTEST(timer_ticks_on_every_cpu)
{
	u64 before[NR_CPUS], end = ktime_get_ns() + 10 * NSEC_PER_SEC;
	int cpu, behind;

	for_each_online_cpu(cpu)
		before[cpu] = READ_ONCE(cpus[cpu].ticks);
	/* Wait (generously) until every CPU has taken three more ticks. */
	do {
		behind = 0;
		for_each_online_cpu(cpu)
			behind += READ_ONCE(cpus[cpu].ticks) < before[cpu] + 3;
	} while (behind && ktime_get_ns() < end);
	for_each_online_cpu(cpu)
		KEXPECT(READ_ONCE(cpus[cpu].ticks) >= before[cpu] + 3);
}

KTEST(clock_is_monotonic_and_mdelay_waits)
{
	u64 t0 = ktime_get_ns(), t1;
	u64 j0 = jiffies;

	mdelay(50);
	t1 = ktime_get_ns();
	KEXPECT(t1 - t0 >= 50 * NSEC_PER_MSEC);
	KEXPECT(jiffies > j0);	/* the tick ran while we waited */
}

static bool control_ok[NR_CPUS];
static char control_why[NR_CPUS][96];

static void check_control(void *info)
{
	int me = smp_processor_id();

	(void)info;
	control_ok[me] = arch_cpu_control_ok(control_why[me], sizeof(control_why[me]));
}

/*
 * Every CPU, the boot CPU and those started later, runs with the control
 * register the kernel loads (x86-64 CR0, AArch64 SCTLR_EL1): a CPU that
 * kept what firmware or INIT left could run with its caches off (CR0.CD
 * and NW are set at power-on and after INIT; TCG ignores them, hardware
 * does not).  And on the kernel's page tables (CR3, TTBR0_EL1), not on a
 * boot map; on x86-64 with its local APIC set up through them, uncached
 * (the boot CPU once programmed it through the boot map's write-back
 * pages, before mmu_init()).
 */
KTEST(smp_every_cpu_runs_with_the_kernels_control_register)
{
	int cpu;

	for_each_online_cpu(cpu)
		control_ok[cpu] = false;
	on_each_cpu(check_control, NULL, true);
	for_each_online_cpu(cpu) {
		if (!control_ok[cpu])
			ktest_info("CPU%d: %s", cpu, control_why[cpu]);
		KEXPECT(control_ok[cpu]);
	}
}

/*
 * A CPU the boot CPU gave up on stays out, even when it turns up after
 * all: the kernel goes on with the others and RCU works without it.  (A
 * CPU that came online late had no rcuc thread: its callbacks never ran
 * and rcu_barrier() hung.)  Waits until the late CPU has arrived and
 * found itself left out, then checks it is not online.
 */
static void ran_on_cpu1(void *arg)
{
	WRITE_ONCE(*(int *)arg, smp_processor_id());
}

static void check_left_out_cpu(void)
{
	u64 end = ktime_get_ns() + 30 * NSEC_PER_SEC;
	int ran_on = -1;

	while (!atomic_read(&cpus_left_out) && num_online_cpus() < 2 && ktime_get_ns() < end)
		msleep(10);
	KASSERT_EQ(num_online_cpus(), 1);
	KEXPECT_EQ(atomic_read(&cpus_left_out), 1);
	synchronize_rcu();
	rcu_barrier();
	/*
	 * add_cpu() brings it back (the injection was the boot's): on
	 * AArch64 the CPU left out must have powered off (PSCI CPU_OFF), or
	 * CPU_ON fails with ALREADY_ON.
	 */
	KASSERT_EQ(add_cpu(1), 0);
	KEXPECT(cpu_online(1));
	KEXPECT_EQ(smp_call_function_single(1, ran_on_cpu1, &ran_on, true), 0);
	KEXPECT_EQ(ran_on, 1);
	synchronize_rcu();
	rcu_barrier();
}

/* smp.inject=start_error: CPU1 starts, but the arch reports a failure. */
KTEST_EXPECT_WARN(smp_cpu_that_failed_to_start_is_left_out,
		  "smp: CPU1 could not be started: going on without it",
		  "smp.inject=start_error")
{
	check_left_out_cpu();
}

/* smp.inject=late: CPU1 arrives only once the boot CPU's deadline has passed. */
KTEST_EXPECT_WARN(smp_cpu_arriving_after_the_deadline_is_left_out,
		  "smp: CPU1 did not come up within 100 ms: going on without it",
		  "smp.inject=late smp.start_timeout_ms=100")
{
	check_left_out_cpu();
}

/*
 * on_each_cpu(..., false) returns once the other CPUs have taken the call,
 * without waiting for it to finish: here func, on the other CPUs, waits for
 * a flag that the caller sets only after on_each_cpu() has returned.  A call
 * that ignored `wait` would come back only when they gave up waiting.
 */
static bool nowait_go;
static atomic_t nowait_done, nowait_gave_up;

static void wait_for_go(void *info)
{
	u64 end = ktime_get_ns() + *(u64 *)info;

	if (smp_processor_id() != 0) {
		/* Acquire: pairs with the release that sets nowait_go below. */
		while (!smp_load_acquire(&nowait_go) && ktime_get_ns() < end)
			cpu_relax();
		if (!smp_load_acquire(&nowait_go))	/* pairs with the same release */
			atomic_inc(&nowait_gave_up);
	}
	atomic_inc(&nowait_done);
}

KTEST(on_each_cpu_without_wait_does_not_wait_for_func)
{
	/* Only a caller that waits for func (the bug) lets the budget run out. */
	static u64 budget_ns;
	u64 end;
	int n = num_online_cpus();

	if (n < 2)
		KTEST_SKIP("needs two CPUs");
	KASSERT(smp_processor_id() == 0);
	budget_ns = ktest_budget_ns(5, 1);
	end = ktime_get_ns() + 2 * budget_ns;
	WRITE_ONCE(nowait_go, false);
	atomic_set(&nowait_done, 0);
	atomic_set(&nowait_gave_up, 0);
	on_each_cpu(wait_for_go, &budget_ns, false);
	KEXPECT_EQ(atomic_read(&nowait_done), 1);	/* ours only: the others are waiting */
	smp_store_release(&nowait_go, true);	/* pairs with the acquires in wait_for_go() */
	while (atomic_read(&nowait_done) < n && ktime_get_ns() < end)
		msleep(1);
	KEXPECT_EQ(atomic_read(&nowait_done), n);
	KEXPECT_EQ(atomic_read(&nowait_gave_up), 0);
	/* With wait, every CPU has finished when the call returns. */
	atomic_set(&nowait_done, 0);
	on_each_cpu(wait_for_go, &budget_ns, true);
	KEXPECT_EQ(atomic_read(&nowait_done), n);
}
