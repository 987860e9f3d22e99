/* Bringing the x86-64 machine up: the arch interface's init entry points. */
#include "x86.h"
#include "cr0.h"
#include "multiboot.h"

static void set_cpu_self(int cpu)
{
	cpus[cpu].self = &cpus[cpu];
	cpus[cpu].id = cpu;
	wrmsr(MSR_GS_BASE, (uintptr_t)&cpus[cpu]);
}

/*
 * Puts the boot CPU first in the CPU list, whatever order ACPI used.  Its
 * APIC ID comes from CPUID: the APIC's registers are not mapped uncached
 * yet, and in x2APIC mode not there at all.
 */
static void boot_cpu_first(void)
{
	u32 me = cpu_initial_apic_id();

	for (int i = 0; i < acpi_ncpus; i++) {
		if (cpu_apic_id[i] == me) {
			cpu_apic_id[i] = cpu_apic_id[0];
			cpu_apic_id[0] = me;
			return;
		}
	}
	cpu_apic_id[0] = me;	/* not listed (or beyond NR_CPUS): take slot 0 */
	if (!acpi_ncpus)
		acpi_ncpus = 1;
}

extern char boot_stack_guard[];

void arch_early_init(void *boot_info)
{
	/*
	 * The exception handlers first: a fault from here on (in the
	 * multiboot or ACPI parsing, the command line...) is reported
	 * instead of triple-faulting.  They need this_cpu().
	 */
	set_cpu_self(0);
	cpus[0].stack_guard = (uintptr_t)boot_stack_guard;
	idt_init();
	x86_cpu_tables_init(0);
	uart_init();
	multiboot_parse(boot_info);
	acpi_init(multiboot_rsdp(), multiboot_rsdp_len());
	boot_cpu_first();
}

void arch_init(void)
{
	mmu_init();	/* first: the local APIC's registers are then mapped uncached */
	clock_init();
	lapic_init();
	ioapic_init();
}

/*
 * An AP's first C, called by its first 64-bit code (ap_entry64 in
 * boot/x86_64/trampoline.S): this_cpu(), then the GDT, the TSS with the
 * double-fault and NMI stacks, and the IDT, before anything can fault or
 * take an NMI (without an IDT a fault resets the machine), then the
 * kernel's path for an arriving CPU.
 */
void __noreturn x86_ap_entry(int cpu)
{
	set_cpu_self(cpu);
	x86_cpu_tables_init(cpu);
	ap_main(cpu);
	for (;;)
		arch_cpu_halt();
}

/* The rest of an AP's set-up, once it has claimed its place (ap_main()). */
void arch_cpu_init(int cpu)
{
	(void)cpu;	/* this_cpu() is set already */
	mmu_cpu_init();
	lapic_cpu_init();
}

int arch_possible_cpus(void)
{
	return acpi_ncpus ? acpi_ncpus : 1;
}

bool arch_cpu_control_ok(char *why, size_t size)
{
	u64 cr0;

	__asm__ __volatile__("mov %%cr0, %0" : "=r"(cr0));
	if (cr0 != CR0_KERNEL) {
		snprintf(why, size, "CR0 is %#llx, not %#x%s", (unsigned long long)cr0, CR0_KERNEL,
			 (cr0 & (CR0_CD | CR0_NW)) ? ": caches disabled (CD/NW set)" : "");
		return false;
	}
	if (read_cr3() != mmu_kernel_tables()) {
		snprintf(why, size, "CR3 is %#llx, not the kernel's tables at %#lx",
			 (unsigned long long)read_cr3(), (unsigned long)mmu_kernel_tables());
		return false;
	}
	if (!lapic_set_up_uncached(smp_processor_id())) {
		snprintf(why, size, "local APIC at %#llx set up through the boot map (write-back)",
			 (unsigned long long)lapic_base_phys);
		return false;
	}
	return true;
}
