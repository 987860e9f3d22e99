/*
 * GIC SPIs: the devices' interrupts, in the distributor (docs/drivers.md).
 * The kernel's line number is the SPI's INTID (32 and up).  Each line the
 * kernel sets up is group 1, the kernel's one priority, triggered as the
 * device tree says (the console UART's) or as the distributor was left,
 * routed to one CPU by affinity (GICD_IROUTER, never "any CPU"), masked
 * until someone holds it.  End of interrupt is the CPU interface's, as
 * for the SGIs and the timer (gic.c).
 *
 * Distributor writes are read-modify-write of shared words (priority,
 * configuration): gicd_lock, interrupts off.  A clear-enable is waited
 * for (GICD_CTLR.RWP): once arch_irq_mask() returns, the GIC delivers no
 * new interrupt of that line.
 */
#include <errno.h>
#include "aarch64.h"

#define GICD_TYPER		0x0004
#define GICD_TYPER_LINES(t)	(32 * (((t) & 0x1f) + 1))	/* INTIDs below this */
#define GICD_IGROUPR		0x0080
#define GICD_ISENABLER		0x0100
#define GICD_ICENABLER		0x0180
#define GICD_ICPENDR		0x0280
#define GICD_IPRIORITYR		0x0400
#define GICD_ICFGR		0x0c00
#define GICD_IROUTER		0x6000
#define ICFGR_EDGE		0x2		/* in each line's two bits */
#define SPI_BASE		32

static DEFINE_SPINLOCK(gicd_lock);

/* The word holding irq's bit in a one-bit-per-line register bank. */
static uintptr_t bank32(u32 reg, unsigned int irq)
{
	return dt.gicd_base + reg + 4 * (irq / 32);
}

static void gicd_rmw(uintptr_t a, u32 clear, u32 set)
{
	mmio_write32(a, (mmio_read32(a) & ~clear) | set);
}

/* The INTIDs the distributor has (its TYPER), at most ARCH_NR_IRQS. */
static unsigned int nr_lines(void)
{
	unsigned int n = GICD_TYPER_LINES(mmio_read32(dt.gicd_base + GICD_TYPER));

	return n < ARCH_NR_IRQS ? n : ARCH_NR_IRQS;
}

static bool is_spi(unsigned int irq)
{
	return irq >= SPI_BASE && irq < nr_lines();
}

static void route(unsigned int irq, int cpu)
{
	mmio_write64(dt.gicd_base + GICD_IROUTER + 8 * irq, mpidr_affinity(dt.cpu_mpidr[cpu]));
}

int arch_irq_setup(unsigned int irq, bool *level)
{
	unsigned int shift = 2 * (irq % 16);
	uintptr_t cfg = dt.gicd_base + GICD_ICFGR + 4 * (irq / 16);
	unsigned long flags;

	if (!is_spi(irq))
		return -EINVAL;
	spin_lock_irqsave(&gicd_lock, flags);
	mmio_write32(bank32(GICD_ICENABLER, irq), 1U << (irq % 32));
	gicd_wait_rwp();
	gicd_rmw(bank32(GICD_IGROUPR, irq), 0, 1U << (irq % 32));
	gicd_rmw(dt.gicd_base + GICD_IPRIORITYR + (irq & ~3U), 0xffU << 8 * (irq % 4),
		 (u32)GIC_IRQ_PRIORITY << 8 * (irq % 4));
	if (irq == dt.uart_intid)	/* the device tree says how it signals */
		gicd_rmw(cfg, ICFGR_EDGE << shift, dt.uart_irq_edge ? ICFGR_EDGE << shift : 0);
	*level = !((mmio_read32(cfg) >> shift) & ICFGR_EDGE);
	mmio_write32(bank32(GICD_ICPENDR, irq), 1U << (irq % 32));	/* nothing stale */
	route(irq, 0);
	spin_unlock_irqrestore(&gicd_lock, flags);
	return 0;
}

void arch_irq_route(unsigned int irq, int cpu)
{
	unsigned long flags;

	if (!is_spi(irq))
		return;
	spin_lock_irqsave(&gicd_lock, flags);
	route(irq, cpu);
	spin_unlock_irqrestore(&gicd_lock, flags);
}

void arch_irq_mask(unsigned int irq)
{
	unsigned long flags;

	if (!is_spi(irq))
		return;
	spin_lock_irqsave(&gicd_lock, flags);
	mmio_write32(bank32(GICD_ICENABLER, irq), 1U << (irq % 32));
	gicd_wait_rwp();	/* the clear has taken effect */
	spin_unlock_irqrestore(&gicd_lock, flags);
}

void arch_irq_unmask(unsigned int irq)
{
	if (is_spi(irq))
		mmio_write32(bank32(GICD_ISENABLER, irq), 1U << (irq % 32));
}

bool arch_irq_masked(unsigned int irq)
{
	/* (GICD_ISENABLER reads back the enable bits: clear is masked) */
	return !is_spi(irq) || !(mmio_read32(bank32(GICD_ISENABLER, irq)) & (1U << (irq % 32)));
}

void arch_irq_eoi(unsigned int irq)
{
	write_sysreg(S3_0_C12_C12_1, irq);		/* ICC_EOIR1_EL1 */
}

void arch_irq_describe(unsigned int irq, char *buf, size_t size)
{
	if (irq >= SPI_BASE)
		snprintf(buf, size, "SPI %u (GIC INTID %u)", irq - SPI_BASE, irq);
	else
		snprintf(buf, size, "INTID %u", irq);
}
