/* Bringing the AArch64 virt machine up: the arch interface's init entry points. */
#include "aarch64.h"
#include "sctlr.h"

/* QEMU leaves the device tree at the start of RAM for a kernel linked at RAM + 2 MiB. */
#define VIRT_DTB_ADDR	0x40000000UL

/* TPIDR_EL1 points at this CPU's struct cpu (arch_cpu_self()). */
void set_cpu_self(int cpu)
{
	cpus[cpu].self = &cpus[cpu];
	cpus[cpu].id = cpu;
	write_sysreg(tpidr_el1, &cpus[cpu]);
}

/* Puts the boot CPU first in the CPU list, whatever order the tree used. */
static void boot_cpu_first(void)
{
	u64 me = mpidr_affinity(read_sysreg(mpidr_el1));

	for (int i = 0; i < dt.ncpus; i++) {
		if (dt.cpu_mpidr[i] == me) {
			dt.cpu_mpidr[i] = dt.cpu_mpidr[0];
			dt.cpu_mpidr[0] = me;
			return;
		}
	}
	dt.cpu_mpidr[0] = me;	/* not listed (or beyond NR_CPUS): take slot 0 */
	if (!dt.ncpus)
		dt.ncpus = 1;
}

/*
 * boot_info is what entry.S passes: the device tree's address (x0 from an
 * Image's loader).  An ELF kernel gets x0 = 0 from QEMU, so entry.S
 * passes VIRT_DTB_ADDR itself.
 */
void arch_early_init(void *boot_info)
{
	void *blob = boot_info ? boot_info : (void *)VIRT_DTB_ADDR;

	uart_init(dt.uart_base);
	set_cpu_self(0);
	cpus[0].stack_guard = boot_stack_guard;
	clock_init();
	if (!boot_map_fdt((uintptr_t)blob)) {
		printk("fdt: the boot loader's device tree address %p is not 8-byte aligned "
		       "RAM between 1 and 4 GiB: not read\n", blob);
		blob = NULL;
	}
	fdt_parse(&dt, blob);
	boot_map_ram();
	uart_init(dt.uart_base);
	if (dt.cpus_found > NR_CPUS)
		printk("smp: firmware lists %d CPUs, this kernel supports NR_CPUS=%d: "
		       "bringing up the first %d\n", dt.cpus_found, NR_CPUS, NR_CPUS);
	boot_cpu_first();
}

void arch_init(void)
{
	gic_init();
	timer_cpu_init();
	mmu_init();
	if (cpu_has_pan())
		printk("cpu: PAN on: the kernel reaches user memory only through "
		       "copy_from_user() and its kin\n");
	else
		printk("cpu: no PAN on this CPU (ID_AA64MMFR1_EL1.PAN is 0, an ARMv8.0 core): "
		       "a stray kernel access to user memory goes unnoticed\n");
}

void arch_cpu_init(int cpu)
{
	set_cpu_self(cpu);
	gic_cpu_init();
	timer_cpu_init();
}

int arch_possible_cpus(void)
{
	return dt.ncpus ? dt.ncpus : 1;
}

const char *arch_cmdline(void)
{
	if (dt.bootargs_truncated)
		printk("cmdline: longer than %zu bytes: the rest is ignored\n",
		       sizeof(dt.bootargs) - 1);
	dt.bootargs_truncated = false;
	return dt.bootargs;
}

int arch_mem_regions(struct mem_region *out, int max)
{
	if (max < 1)
		return 0;
	out[0].start = dt.ram_start;
	out[0].end = dt.ram_start + dt.ram_size;
	return 1;
}

bool arch_cpu_control_ok(char *why, size_t size)
{
	u64 sctlr = read_sysreg(sctlr_el1), ttbr0 = read_sysreg(ttbr0_el1);
	u64 want = SCTLR_MMU_ON | (cpu_has_pan() ? 0 : SCTLR_SPAN);

	if (sctlr != want) {
		snprintf(why, size, "SCTLR_EL1 is %#llx, not %#llx%s", (unsigned long long)sctlr,
			 (unsigned long long)want,
			 (sctlr & (SCTLR_C | SCTLR_I)) != (SCTLR_C | SCTLR_I) ?
			 ": caches disabled" : "");
		return false;
	}
	if (cpu_has_pan() && !pan_enabled()) {
		snprintf(why, size, "PSTATE.PAN is clear: the kernel may touch user memory");
		return false;
	}
	if (ttbr0 != mmu_kernel_tables()) {
		snprintf(why, size, "TTBR0_EL1 is %#llx, not the kernel's tables at %#lx",
			 (unsigned long long)ttbr0, (unsigned long)mmu_kernel_tables());
		return false;
	}
	return true;
}
