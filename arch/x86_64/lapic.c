/*
 * The local APIC (xAPIC, memory-mapped): per-CPU timer, IPIs, NMIs and the
 * INIT/startup IPIs that wake the other CPUs.  The legacy 8259 PICs are
 * remapped out of the way and masked: nothing here uses them.
 *
 * Its registers are touched only once the kernel's page tables are loaded,
 * which map them uncached (mmu.c): the boot map's write-back pages would
 * let the CPU cache device registers.  Each CPU takes its APIC over in
 * xAPIC mode whatever mode firmware left it in (apic_mode.h).
 */
#include "x86.h"
#include "apic_mode.h"

#define LAPIC_ID	0x020
#define LAPIC_TPR	0x080
#define LAPIC_EOI	0x0b0
#define LAPIC_SVR	0x0f0
#define LAPIC_ESR	0x280
#define LAPIC_ICR_LO	0x300
#define LAPIC_ICR_HI	0x310
#define LAPIC_LVT_TIMER	0x320
#define LAPIC_LVT_LINT0	0x350
#define LAPIC_LVT_LINT1	0x360
#define LAPIC_LVT_ERR	0x370
#define LAPIC_TIMER_ICR	0x380
#define LAPIC_TIMER_CCR	0x390
#define LAPIC_TIMER_DCR	0x3e0

#define SVR_ENABLE	0x100
#define LVT_MASKED	0x10000
#define LVT_PERIODIC	0x20000
#define LVT_NMI		0x400
#define ICR_PENDING	0x1000
#define TIMER_DIV_16	0x3

u32 lapic_ticks_per_tick;
static void lapic_timer_start(void);

static inline u32 lapic_read(u32 reg)
{
	return *(volatile u32 *)(uintptr_t)(lapic_base_phys + reg);
}

static inline void lapic_write(u32 reg, u32 v)
{
	*(volatile u32 *)(uintptr_t)(lapic_base_phys + reg) = v;
}

u32 lapic_id(void)
{
	return lapic_read(LAPIC_ID) >> 24;
}

/* The APIC ID the CPU was given at reset, with no register read (CPUID). */
u32 cpu_initial_apic_id(void)
{
	u32 a, b, c, d;

	cpuid(1, &a, &b, &c, &d);
	return b >> 24;
}

void lapic_eoi(void)
{
	lapic_write(LAPIC_EOI, 0);
}

void pic_disable(void)
{
	/* Remap both PICs above the exception vectors, then mask every line. */
	outb(0x20, 0x11); outb(0xa0, 0x11);
	outb(0x21, VEC_PIC_BASE); outb(0xa1, VEC_PIC_BASE + 8);
	outb(0x21, 4); outb(0xa1, 2);
	outb(0x21, 1); outb(0xa1, 1);
	outb(0x21, 0xff); outb(0xa1, 0xff);
}

/* Counts how fast the APIC timer runs against the calibrated clock. */
static void lapic_timer_calibrate(void)
{
	u64 t0;

	lapic_write(LAPIC_TIMER_DCR, TIMER_DIV_16);
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);
	lapic_write(LAPIC_TIMER_ICR, 0xffffffff);
	t0 = ktime_get_ns();
	while (ktime_get_ns() - t0 < NSEC_PER_SEC / HZ)
		;
	lapic_ticks_per_tick = 0xffffffff - lapic_read(LAPIC_TIMER_CCR);
	lapic_write(LAPIC_TIMER_ICR, 0);
}

void lapic_init(void)
{
	u64 base = rdmsr(MSR_APIC_BASE) & APIC_BASE_ADDR;

	/* Where the CPU answers, whatever the MADT said (acpi.c checked that). */
	if (base != lapic_base_phys)
		printk("lapic: the MADT puts the local APIC at %#llx, the CPU at %#llx "
		       "(IA32_APIC_BASE): using the CPU's\n",
		       (unsigned long long)lapic_base_phys, (unsigned long long)base);
	lapic_base_phys = base;
	pic_disable();
	lapic_cpu_init();
	lapic_timer_calibrate();
	lapic_timer_start();
}

/* The periodic tick at HZ, once the boot CPU has calibrated it. */
static void lapic_timer_start(void)
{
	if (!lapic_ticks_per_tick)
		return;
	lapic_write(LAPIC_TIMER_DCR, TIMER_DIV_16);
	lapic_write(LAPIC_LVT_TIMER, VEC_TIMER | LVT_PERIODIC);
	lapic_write(LAPIC_TIMER_ICR, lapic_ticks_per_tick);
}

/* A CPU going down: no more ticks (lapic_cpu_init() starts them again). */
void lapic_timer_stop(void)
{
	lapic_write(LAPIC_LVT_TIMER, LVT_MASKED);
	lapic_write(LAPIC_TIMER_ICR, 0);
}

#define CPUID7_EDX_ARCH_CAPABILITIES	(1U << 29)
#define MSR_ARCH_CAPABILITIES		0x10a
#define ARCH_CAP_XAPIC_DISABLE		(1ULL << 21)
#define MSR_XAPIC_DISABLE_STATUS	0xbd
#define LEGACY_XAPIC_DISABLED		(1ULL << 0)

/* Has firmware locked this CPU's APIC in x2APIC mode (no way back to xAPIC)? */
static bool x2apic_locked(void)
{
	u32 a, b, c, d;

	cpuid(0, &a, &b, &c, &d);
	if (a < 7)
		return false;
	cpuid(7, &a, &b, &c, &d);
	return (d & CPUID7_EDX_ARCH_CAPABILITIES) &&
	       (rdmsr(MSR_ARCH_CAPABILITIES) & ARCH_CAP_XAPIC_DISABLE) &&
	       (rdmsr(MSR_XAPIC_DISABLE_STATUS) & LEGACY_XAPIC_DISABLED);
}

/* This CPU's APIC in xAPIC mode, enabled, whatever firmware or INIT left. */
static void lapic_take_over(void)
{
	u64 msr = rdmsr(MSR_APIC_BASE), writes[2];
	int n = apic_to_xapic(msr, writes);

	if (msr & APIC_BASE_EXTD) {
		if (x2apic_locked())
			panic("lapic: firmware locked CPU%d's local APIC in x2APIC mode "
			      "(IA32_XAPIC_DISABLE_STATUS): this kernel drives the xAPIC only",
			      smp_processor_id());
		printk("lapic: CPU%d: firmware handed the local APIC over in x2APIC mode: "
		       "switching it to xAPIC mode, which this kernel drives\n",
		       smp_processor_id());
	}
	for (int i = 0; i < n; i++)
		wrmsr(MSR_APIC_BASE, writes[i]);
}

/* Was each CPU's APIC set up through an uncached mapping?  (arch_cpu_control_ok()) */
static bool set_up_uncached[NR_CPUS];

bool lapic_set_up_uncached(int cpu)
{
	return set_up_uncached[cpu];
}

/* Per CPU: enable, mask the legacy lines, start the periodic tick. */
void lapic_cpu_init(void)
{
	lapic_take_over();
	set_up_uncached[smp_processor_id()] = mmu_uncached(lapic_base_phys);
	lapic_write(LAPIC_SVR, SVR_ENABLE | VEC_SPURIOUS);
	lapic_write(LAPIC_TPR, 0);
	lapic_write(LAPIC_LVT_LINT0, LVT_MASKED);
	lapic_write(LAPIC_LVT_LINT1, LVT_NMI);
	lapic_write(LAPIC_LVT_ERR, LVT_MASKED);
	lapic_write(LAPIC_ESR, 0);
	lapic_timer_start();
	lapic_eoi();
}

/*
 * Sends one interprocessor interrupt.  The ICR is two registers, so
 * interrupts stay off between the writes: a handler sending its own IPI
 * in between would mix the destinations.
 */
void lapic_send(u32 apic_id, u32 icr_low)
{
	unsigned long flags = arch_irq_save();

	while (lapic_read(LAPIC_ICR_LO) & ICR_PENDING)
		;
	lapic_write(LAPIC_ICR_HI, apic_id << 24);
	lapic_write(LAPIC_ICR_LO, icr_low);
	while (lapic_read(LAPIC_ICR_LO) & ICR_PENDING)
		;
	arch_irq_restore(flags);
}

#define ICR_FIXED	0x4000		/* fixed delivery, level assert */
#define ICR_NMI		0x4400
#define ICR_INIT	0x4500
#define ICR_STARTUP	0x4600

void arch_send_ipi(int cpu, enum ipi_kind kind)
{
	lapic_send(cpu_apic_id[cpu], ICR_FIXED | (VEC_IPI_BASE + kind));
}

bool arch_send_nmi(int cpu)
{
	lapic_send(cpu_apic_id[cpu], ICR_NMI);
	return true;
}

void lapic_send_init(u32 apic_id)
{
	lapic_send(apic_id, ICR_INIT);
}

void lapic_send_startup(u32 apic_id, u32 page)
{
	lapic_send(apic_id, ICR_STARTUP | page);
}
