/*
 * Waking the other CPUs through PSCI CPU_ON, on the conduit (hvc or smc)
 * the device tree names.  The CPU starts at secondary_entry
 * (boot/aarch64/entry.S) at EL1 with the MMU off and x0 = its logical
 * number; it finds its stack and struct cpu in secondary_boot[].
 * kernel/smp.c waits for the CPU to say it is online.  A CPU taken down by
 * remove_cpu() calls PSCI CPU_OFF; CPU_ON starts it again once
 * AFFINITY_INFO says it is off.
 */
#include "aarch64.h"

#define PSCI_CPU_OFF		0x84000002	/* SMC32 */
#define PSCI_CPU_ON		0xc4000003	/* SMC64 */
#define PSCI_AFFINITY_INFO	0xc4000004	/* SMC64 */
#define PSCI_AFFINITY_OFF	1		/* AFFINITY_INFO: 0 on, 1 off, 2 on pending */
#define PSCI_SUCCESS		0
#define PSCI_ALREADY_ON		(-4)

/*
 * Read by secondary_entry (entry.S): ttbr0 with the MMU off, the rest
 * with it on; 32 bytes each.
 */
struct secondary_boot {
	u64 stack_top;			/* SP_EL0: the kernel stack */
	void *self;			/* TPIDR_EL1 */
	void *exception_stack_top;	/* SP_EL1 */
	u64 ttbr0;			/* the kernel's page tables */
};
_Static_assert(sizeof(struct secondary_boot) == 32, "entry.S indexes it with lsl #5");
struct secondary_boot secondary_boot[NR_CPUS];
extern const u8 secondary_entry[];

/*
 * An SMC Calling Convention call: function id in x0, arguments in x1-x3,
 * result in x0.  SMCCC 1.0 lets the callee clobber x4-x17.
 */
static long psci_call(u64 fn, u64 a1, u64 a2, u64 a3)
{
	register u64 x0 __asm__("x0") = fn;
	register u64 x1 __asm__("x1") = a1;
	register u64 x2 __asm__("x2") = a2;
	register u64 x3 __asm__("x3") = a3;

	if (dt.psci_smc)
		__asm__ __volatile__("smc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : :
				     "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12",
				     "x13", "x14", "x15", "x16", "x17", "memory");
	else
		__asm__ __volatile__("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3) : :
				     "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12",
				     "x13", "x14", "x15", "x16", "x17", "memory");
	return (long)x0;
}

bool arch_start_cpu(int cpu, void *stack_top)
{
	long ret;

	if (!dt.psci_found) {
		printk("smp: no /psci node in the device tree: cannot start CPU%d\n", cpu);
		return false;
	}
	secondary_boot[cpu].stack_top = (uintptr_t)stack_top;
	secondary_boot[cpu].self = &cpus[cpu];
	secondary_boot[cpu].exception_stack_top = exception_stack_top(cpu);
	secondary_boot[cpu].ttbr0 = mmu_kernel_tables();
	/*
	 * The new CPU reads ttbr0 with its MMU off, so from memory, not from
	 * our cache: clean the entry to the point of coherency.  The dsb in
	 * it ([poc_clean_dsb]) also orders our stores before the PSCI call
	 * starts the CPU.
	 */
	dcache_clean_poc(&secondary_boot[cpu], sizeof(secondary_boot[cpu]));
	/* One left out at boot may still be on its way to CPU_OFF (arch_cpu_left_out()). */
	for (u64 end = ktime_get_ns() + NSEC_PER_SEC; !arch_cpu_is_dead(cpu) &&
	     ktime_get_ns() < end; )
		cpu_relax();
	ret = psci_call(PSCI_CPU_ON, dt.cpu_mpidr[cpu], (uintptr_t)secondary_entry, cpu);
	if (ret != PSCI_SUCCESS) {
		printk("smp: PSCI CPU_ON for CPU%d (MPIDR %#llx) failed: %ld%s\n", cpu,
		       (unsigned long long)dt.cpu_mpidr[cpu], ret,
		       ret == PSCI_ALREADY_ON ? " (already on)" : "");
		return false;
	}
	return true;
}

/*
 * The CPU going down, interrupts off: its timer and its GIC CPU interface
 * off, then PSCI CPU_OFF, which does not return when it succeeds.
 */
void arch_cpu_die(int cpu)
{
	long ret;

	write_sysreg(cntv_ctl_el0, 0);			/* no more ticks */
	write_sysreg(S3_0_C12_C12_7, 0);		/* ICC_IGRPEN1_EL1: no more IPIs */
	isb();
	/*
	 * Our stores are complete before the firmware powers us off: the
	 * CPU that sees us off (AFFINITY_INFO) reads our callback lists and
	 * reuses our stack.  [cpu_off_dsb] pairs [hw_cpu_off]: a CPU that is
	 * off makes nothing visible any more.
	 */
	__asm__ __volatile__("dsb ish" ::: "memory");
	ret = psci_call(PSCI_CPU_OFF, 0, 0, 0);
	panic("smp: PSCI CPU_OFF on CPU%d returned %ld", cpu, ret);
}

/*
 * Left out at boot: nothing of ours to turn off (no timer, no GIC set-up
 * yet), so straight to PSCI CPU_OFF.  A CPU left in wfi instead stayed
 * "on" for PSCI, and CPU_ON from add_cpu() failed with ALREADY_ON.
 */
void arch_cpu_left_out(int cpu)
{
	long ret;

	/*
	 * [left_out_dsb] pairs [hw_cpu_off]: its count in cpus_left_out is
	 * complete before the firmware powers it off, as in arch_cpu_die().
	 */
	__asm__ __volatile__("dsb ish" ::: "memory");
	ret = psci_call(PSCI_CPU_OFF, 0, 0, 0);
	panic("smp: PSCI CPU_OFF on CPU%d returned %ld", cpu, ret);
}

/*
 * [hw_cpu_off] pairs [cpu_off_dsb], [left_out_dsb]: the hardware side.  The firmware says
 * "off" only once the CPU executes nothing, so all it wrote before its dsb
 * is complete; the full barrier after our answer is rcu_migrate_callbacks()'s.
 */
bool arch_cpu_is_dead(int cpu)
{
	return psci_call(PSCI_AFFINITY_INFO, dt.cpu_mpidr[cpu], 0, 0) == PSCI_AFFINITY_OFF;
}
