/*
 * The GICv3 interrupt controller: the distributor (shared), one
 * redistributor per CPU (its SGIs and PPIs) and the CPU interface through
 * system registers.  The kernel's own are SGIs (the IPIs) and one PPI
 * (the generic timer); the devices' SPIs are gic_spi.c's.  All group 1,
 * one priority; no LPIs.
 */
#include "aarch64.h"
#include "irq.h"

#define GICD_CTLR		0x0000
#define GICD_CTLR_RWP		(1U << 31)
#define GICD_CTLR_ARE		(1U << 4)	/* affinity routing */
#define GICD_CTLR_GRP1A		(1U << 1)
#define GICD_CTLR_GRP1		(1U << 0)	/* group 1 (NS view) or 0 (DS=1) */

#define GICR_VLPI_FRAME_SIZE	0x40000		/* GICv4: two more frames */
#define GICR_TYPER		0x0008
#define GICR_TYPER_VLPIS	(1ULL << 1)
#define GICR_TYPER_LAST		(1ULL << 4)
#define GICR_WAKER		0x0014
#define GICR_WAKER_SLEEP	(1U << 1)
#define GICR_WAKER_ASLEEP	(1U << 2)
#define GICR_SGI		0x10000
#define GICR_IGROUPR0		(GICR_SGI + 0x0080)
#define GICR_ISENABLER0		(GICR_SGI + 0x0100)
#define GICR_ICENABLER0		(GICR_SGI + 0x0180)
#define GICR_IPRIORITYR		(GICR_SGI + 0x0400)

#define INTID_SPURIOUS		1020
#define GIC_SPI_BASE		32
/*
 * SGIs 0..IPI_NR-1 are the kernel's IPIs (enum ipi_kind); the next one is
 * our stand-in for x86's NMI (arch_send_nmi).
 */
#define SGI_NMI			IPI_NR
/* The EL1 virtual timer's PPI (INTID 27 on every Arm system, SBSA). */
#define PPI_VTIMER		27

void gicd_wait_rwp(void)
{
	while (mmio_read32(dt.gicd_base + GICD_CTLR) & GICD_CTLR_RWP)
		;
}

/*
 * This CPU's redistributor: the frames of the first redistributor region
 * (the device tree's second reg entry; virt adds a second region only
 * beyond 123 CPUs, and fdt.c brings up no more CPUs than it has frames
 * for) are walked until one's affinity matches, never past its end.
 */
static uintptr_t find_redistributor(u64 aff)
{
	uintptr_t rd = dt.gicr_base, end = dt.gicr_base + dt.gicr_size;

	/* GICR_TYPER[63:32] is Aff3.Aff2.Aff1.Aff0; MPIDR has Aff3 at [39:32]. */
	u64 want = ((aff >> 32) << 24) | (aff & 0xffffff);

	while (rd < end && end - rd >= GICR_FRAME_SIZE) {
		u64 typer = mmio_read64(rd + GICR_TYPER);

		if ((typer >> 32) == want)
			return rd;
		if (typer & GICR_TYPER_LAST)
			break;
		rd += (typer & GICR_TYPER_VLPIS) ? GICR_VLPI_FRAME_SIZE : GICR_FRAME_SIZE;
	}
	return 0;
}

void gic_init(void)
{
	mmio_write32(dt.gicd_base + GICD_CTLR, 0);
	gicd_wait_rwp();
	mmio_write32(dt.gicd_base + GICD_CTLR, GICD_CTLR_ARE | GICD_CTLR_GRP1A | GICD_CTLR_GRP1);
	gicd_wait_rwp();
	gic_cpu_init();
}

/* Per CPU: wake our redistributor, enable our SGIs and the timer PPI, then the CPU interface. */
void gic_cpu_init(void)
{
	int cpu = smp_processor_id();
	uintptr_t rd = find_redistributor(mpidr_affinity(read_sysreg(mpidr_el1)));
	u32 enable = (1U << PPI_VTIMER) | (1U << SGI_NMI);

	if (!rd)
		panic("gic: no redistributor for CPU%d (MPIDR %#llx)", cpu,
		      (unsigned long long)read_sysreg(mpidr_el1));
	mmio_write32(rd + GICR_WAKER, mmio_read32(rd + GICR_WAKER) & ~GICR_WAKER_SLEEP);
	while (mmio_read32(rd + GICR_WAKER) & GICR_WAKER_ASLEEP)
		;
	for (int i = 0; i < IPI_NR; i++)
		enable |= 1U << i;
	mmio_write32(rd + GICR_ICENABLER0, 0xffffffff);
	mmio_write32(rd + GICR_IGROUPR0, 0xffffffff);		/* all group 1 */
	for (int i = 0; i < 32; i += 4)
		mmio_write32(rd + GICR_IPRIORITYR + i, GIC_IRQ_PRIORITY * 0x01010101U);
	mmio_write32(rd + GICR_ISENABLER0, enable);

	/* The CPU interface: system registers, all priorities, group 1 on. */
	write_sysreg(S3_0_C12_C12_5, read_sysreg(S3_0_C12_C12_5) | 1);	/* ICC_SRE_EL1.SRE */
	isb();
	write_sysreg(S3_0_C4_C6_0, 0xff);		/* ICC_PMR_EL1: nothing masked */
	write_sysreg(S3_0_C12_C12_3, 0);		/* ICC_BPR1_EL1: no preemption groups */
	write_sysreg(S3_0_C12_C12_4, 0);		/* ICC_CTLR_EL1: EOI drops and deactivates */
	write_sysreg(S3_0_C12_C12_7, 1);		/* ICC_IGRPEN1_EL1 */
	isb();
}

/*
 * Sends SGI `sgi` to `cpu` through ICC_SGI1R_EL1: the target's Aff3..Aff1
 * and a bit for its Aff0 in a 16-wide range (RS selects the range).
 */
static void gic_send_sgi(int cpu, int sgi)
{
	u64 aff = dt.cpu_mpidr[cpu];
	u64 aff0 = aff & 0xff;
	u64 v = (1ULL << (aff0 & 15)) | ((u64)sgi << 24) |
		(((aff >> 8) & 0xff) << 16) | (((aff >> 16) & 0xff) << 32) |
		((aff0 >> 4) << 44) | (((aff >> 32) & 0xff) << 48);

	/*
	 * [sgi_dsb] pairs [hw_irq_entry]: a system-register write is not
	 * ordered after earlier stores by a dmb, so without the dsb the
	 * target could take the IPI before the stores it announces (a queued
	 * task, a call request) are visible, find nothing, and halt again
	 * with the work pending.
	 */
	__asm__ __volatile__("dsb ishst" ::: "memory");
	write_sysreg(S3_0_C12_C11_5, v);		/* ICC_SGI1R_EL1 */
	isb();
}

void arch_send_ipi(int cpu, enum ipi_kind kind)
{
	gic_send_sgi(cpu, kind);
}

/*
 * Not a real NMI: a plain SGI, so it reaches a CPU only when that CPU has
 * interrupts enabled.  A CPU spinning with interrupts off does not answer
 * (panic then reports it did not stop; a stall report says it cannot be
 * interrupted).  GICv3 pseudo-NMIs (priority masking through ICC_PMR_EL1
 * instead of PSTATE.I) would fix that, but every irq save/restore would
 * then be a GIC register access, and under TCG those take QEMU's global
 * lock.
 */
bool arch_send_nmi(int cpu)
{
	gic_send_sgi(cpu, SGI_NMI);
	return true;
}

/*
 * [hw_irq_entry] pairs [sgi_dsb], [backtrace_req_mb]: the hardware side.
 * We acknowledge an SGI only after the sender's dsb completed the stores
 * it announces, so the handler's loads see them with no barrier here.
 * (On x86-64 the LAPIC's uncached ICR write is ordered after earlier
 * stores by the architecture: no dsb there.)
 */
void gic_handle_irq(struct trap_frame *tf)
{
	u32 intid = read_sysreg(S3_0_C12_C12_0) & 0xffffff;	/* ICC_IAR1_EL1: acknowledge */

	if (intid >= INTID_SPURIOUS && intid <= 1023)
		return;		/* nothing (any more) pending: no EOI */
	if (intid == SGI_NMI) {
		/*
		 * No irq_enter(), as for x86's NMI.  EOI only if irq_nmi()
		 * returns: a CPU a panic stops in it keeps the SGI active, so
		 * the running priority keeps the timer from waking its wfi.
		 */
		irq_nmi(tf);
		write_sysreg(S3_0_C12_C12_1, intid);	/* ICC_EOIR1_EL1 */
		return;
	}
	if (intid >= GIC_SPI_BASE) {
		handle_device_irq(intid);	/* irq_enter() to EOI, itself */
		return;
	}
	irq_enter();
	if (intid == PPI_VTIMER) {
		timer_handle();		/* re-arms: the level goes down before the EOI */
		irq_timer();
	} else if (intid < IPI_NR) {
		irq_ipi(intid);
	} else {
		printk("CPU%d: unexpected interrupt %u\n", smp_processor_id(), intid);
	}
	/*
	 * EOI after the handler, with interrupts still masked: an SGI of the
	 * same kind sent meanwhile stays pending and is taken after eret.
	 */
	write_sysreg(S3_0_C12_C12_1, intid);		/* ICC_EOIR1_EL1 */
	irq_exit();
}
