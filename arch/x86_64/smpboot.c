/*
 * Waking the other CPUs: copy the trampoline (boot/x86_64/trampoline.S)
 * below 1 MiB, leave it the stack and CPU number, then INIT, a 10 ms
 * wait, and two startup IPIs whose vector is the trampoline's page number.
 * kernel/smp.c waits for the CPU to say it is online.  A CPU taken down by
 * remove_cpu() halts for good (arch_cpu_die()); only INIT-SIPI-SIPI, the
 * same sequence, brings it back.
 */
#include "x86.h"

#define TRAMPOLINE_BASE	0x8000

extern const u8 trampoline_start[], trampoline_end[];
extern u64 trampoline_stack;
extern u32 trampoline_cpu;
void lapic_send_init(u32 apic_id);
void lapic_send_startup(u32 apic_id, u32 page);

/* Where a trampoline variable lives once the code is copied. */
#define TRAMPOLINE_VAR(v) \
	((__typeof__(&(v)))(TRAMPOLINE_BASE + ((const u8 *)&(v) - trampoline_start)))

/* A CPU that went down says so here, its last store before it halts (arch_cpu_die()). */
static bool cpu_dead[NR_CPUS];

bool arch_start_cpu(int cpu, void *stack_top)
{
	static bool copied;
	u32 apic = cpu_apic_id[cpu];

	if (!copied) {
		memcpy((void *)TRAMPOLINE_BASE, trampoline_start,
		       trampoline_end - trampoline_start);
		copied = true;
	}
	WRITE_ONCE(cpu_dead[cpu], false);
	*TRAMPOLINE_VAR(trampoline_stack) = (uintptr_t)stack_top;
	*TRAMPOLINE_VAR(trampoline_cpu) = cpu;
	/*
	 * [sipi_boot_mb] pairs [hw_cpu_start]: the stores above are visible
	 * before the INIT/STARTUP IPIs start the CPU, or it could read a
	 * stale stack pointer or number from the trampoline.
	 */
	smp_mb();
	lapic_send_init(apic);
	mdelay(10);
	lapic_send_startup(apic, TRAMPOLINE_BASE >> 12);
	udelay(200);
	lapic_send_startup(apic, TRAMPOLINE_BASE >> 12);
	return true;
}

/*
 * The CPU going down, interrupts off: no more ticks, then "dead", then
 * halt.  An NMI (a panic's stop request, a backtrace request) still
 * interrupts hlt; its handler returns here and we halt again.  Only INIT
 * gets a CPU out of this loop: add_cpu() sends INIT-SIPI-SIPI.
 */
void arch_cpu_die(int cpu)
{
	lapic_timer_stop();
	/*
	 * [cpu_dead_release] pairs [cpu_dead_acquire]: everything this CPU
	 * did is visible before "dead", so the CPU that takes over its
	 * callbacks and reuses its stack sees its last stores.
	 */
	smp_store_release(&cpu_dead[cpu], true);
	for (;;)
		__asm__ __volatile__("cli; hlt" ::: "memory");
}

/* Left out at boot: halt; only INIT (add_cpu()'s INIT-SIPI-SIPI) gets us out. */
void arch_cpu_left_out(int cpu)
{
	(void)cpu;
	for (;;)
		__asm__ __volatile__("cli; hlt" ::: "memory");
}

bool arch_cpu_is_dead(int cpu)
{
	/* [cpu_dead_acquire] pairs [cpu_dead_release]: or we might see "dead" and not its last stores. */
	return smp_load_acquire(&cpu_dead[cpu]);
}
