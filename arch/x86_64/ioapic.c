/*
 * The I/O APICs: where the devices' interrupt lines arrive, each pin sent
 * on as a message to one local APIC with a vector (docs/drivers.md).  The
 * MADT lists them (acpi.c checked their addresses as the local APIC's);
 * an ISA interrupt arrives on the pin of its number unless an override
 * moved it (QEMU moves the timer's IRQ 0 to pin 2), with ISA's signal
 * (edge-triggered, active high) unless the override says otherwise.
 *
 * The kernel's lines are the ISA IRQs 0-15, each with a vector of its own
 * (VEC_IRQ_BASE + irq) so the entry knows the line without asking the
 * I/O APIC.  Every pin starts masked.  End of interrupt is the local
 * APIC's: for a level-triggered pin it is broadcast to the I/O APICs,
 * which then take the pin's next interrupt.
 *
 * Each I/O APIC is two registers, an index and a window: the pair is a
 * critical section (ioapic_lock), interrupts off.
 */
#include <errno.h>
#include "x86.h"
#include "acpi.h"

#define IOREGSEL	0x00
#define IOWIN		0x10
#define IOAPIC_VER	0x01
#define IOAPIC_REDTBL	0x10		/* + 2 * pin: low word, then high word */
#define VER_MAX_REDIR(v)	(((v) >> 16) & 0xff)	/* pins - 1 */
#define VER_FIRST_APIC		0x10	/* versions below are 82489DX or nothing at all */

#define RTE_POLARITY_LOW	(1U << 13)
#define RTE_LEVEL		(1U << 15)
#define RTE_MASKED		(1U << 16)
#define RTE_DEST_SHIFT		24	/* in the high word: the local APIC ID */

struct ioapic {
	uintptr_t base;
	u32 id, gsi_base, pins;
};

static struct ioapic ioapics[MAX_IOAPICS];
static int nr_ioapics;
static DEFINE_SPINLOCK(ioapic_lock);

/* Each ISA IRQ's pin, once found (arch_irq_setup()). */
static struct {
	struct ioapic *chip;	/* NULL: not set up */
	u32 pin;
	u32 low;		/* the low word as last written (vector, signal, mask) */
} lines[ISA_IRQS];

static u32 ioapic_read(const struct ioapic *io, u32 reg)
{
	*(volatile u32 *)(io->base + IOREGSEL) = reg;
	return *(volatile u32 *)(io->base + IOWIN);
}

static void ioapic_write(const struct ioapic *io, u32 reg, u32 v)
{
	*(volatile u32 *)(io->base + IOREGSEL) = reg;
	*(volatile u32 *)(io->base + IOWIN) = v;
}

/* Takes over each I/O APIC the MADT listed: every pin masked. */
void ioapic_init(void)
{
	const struct acpi_madt *m = acpi_boot_madt();
	unsigned long flags = arch_irq_save();

	for (int i = 0; i < m->nioapics; i++) {
		struct ioapic *io = &ioapics[nr_ioapics];
		u32 ver;

		io->base = m->ioapic[i].base;
		io->id = m->ioapic[i].id;
		io->gsi_base = m->ioapic[i].gsi_base;
		ver = ioapic_read(io, IOAPIC_VER);
		if (ver == 0xffffffff || (ver & 0xff) < VER_FIRST_APIC) {
			printk("ioapic: nothing answers at %#lx (the MADT's I/O APIC %u): not used\n",
			       (unsigned long)io->base, io->id);
			continue;
		}
		io->pins = VER_MAX_REDIR(ver) + 1;
		for (u32 pin = 0; pin < io->pins; pin++) {
			ioapic_write(io, IOAPIC_REDTBL + 2 * pin + 1, 0);
			ioapic_write(io, IOAPIC_REDTBL + 2 * pin, RTE_MASKED);
		}
		printk("ioapic: I/O APIC %u at %#lx: %u pins, GSIs %u-%u, all masked\n", io->id,
		       (unsigned long)io->base, io->pins, io->gsi_base, io->gsi_base + io->pins - 1);
		nr_ioapics++;
	}
	arch_irq_restore(flags);
	if (!nr_ioapics)
		printk("ioapic: no I/O APIC the kernel can use: device interrupts are off "
		       "(the console stays polled)\n");
}

/* The I/O APIC serving gsi, and its pin there; NULL if none does. */
static struct ioapic *chip_of(u32 gsi, u32 *pin)
{
	for (int i = 0; i < nr_ioapics; i++) {
		if (gsi >= ioapics[i].gsi_base && gsi - ioapics[i].gsi_base < ioapics[i].pins) {
			*pin = gsi - ioapics[i].gsi_base;
			return &ioapics[i];
		}
	}
	return NULL;
}

/* Another ISA IRQ an override moved onto irq's own pin (IRQ 0 onto pin 2), or -1. */
static int pin_taken_by(unsigned int irq, const struct acpi_madt *m)
{
	for (int other = 0; other < ISA_IRQS; other++)
		if ((unsigned int)other != irq && m->isa[other].overridden &&
		    m->isa[other].gsi == m->isa[irq].gsi)
			return other;
	return -1;
}

int arch_irq_setup(unsigned int irq, bool *level)
{
	const struct acpi_madt *m = acpi_boot_madt();
	const struct acpi_isa_irq *isa;
	struct ioapic *io;
	unsigned long flags;
	u32 pin;
	int other;

	if (irq >= ISA_IRQS)
		return -EINVAL;
	isa = &m->isa[irq];
	other = isa->overridden ? -1 : pin_taken_by(irq, m);
	if (other >= 0) {
		printk("ioapic: IRQ %u has no pin: the MADT moved IRQ %d onto GSI %u\n", irq,
		       other, isa->gsi);
		return -ENODEV;
	}
	io = chip_of(isa->gsi, &pin);
	if (!io)
		return -ENODEV;
	spin_lock_irqsave(&ioapic_lock, flags);
	lines[irq].chip = io;
	lines[irq].pin = pin;
	lines[irq].low = (VEC_IRQ_BASE + irq) | RTE_MASKED | (isa->level ? RTE_LEVEL : 0) |
			 (isa->active_low ? RTE_POLARITY_LOW : 0);
	ioapic_write(io, IOAPIC_REDTBL + 2 * pin + 1, cpu_apic_id[0] << RTE_DEST_SHIFT);
	ioapic_write(io, IOAPIC_REDTBL + 2 * pin, lines[irq].low);
	spin_unlock_irqrestore(&ioapic_lock, flags);
	*level = isa->level;
	return 0;
}

/* Rewrites irq's low word with mask set or clear. */
static void set_masked(unsigned int irq, bool masked)
{
	unsigned long flags;

	spin_lock_irqsave(&ioapic_lock, flags);
	if (lines[irq].chip) {
		lines[irq].low = (lines[irq].low & ~RTE_MASKED) | (masked ? RTE_MASKED : 0);
		ioapic_write(lines[irq].chip, IOAPIC_REDTBL + 2 * lines[irq].pin, lines[irq].low);
		/* A read completes the write: no delivery with the old mask after we return. */
		ioapic_read(lines[irq].chip, IOAPIC_VER);
	}
	spin_unlock_irqrestore(&ioapic_lock, flags);
}

void arch_irq_mask(unsigned int irq)
{
	if (irq < ISA_IRQS)
		set_masked(irq, true);
}

void arch_irq_unmask(unsigned int irq)
{
	if (irq < ISA_IRQS)
		set_masked(irq, false);
}

bool arch_irq_masked(unsigned int irq)
{
	unsigned long flags;
	bool masked = true;	/* a line with no pin is never delivered */

	spin_lock_irqsave(&ioapic_lock, flags);
	if (irq < ISA_IRQS && lines[irq].chip)
		masked = ioapic_read(lines[irq].chip, IOAPIC_REDTBL + 2 * lines[irq].pin) & RTE_MASKED;
	spin_unlock_irqrestore(&ioapic_lock, flags);
	return masked;
}

/* Physical destination: the message goes to cpu's local APIC alone. */
void arch_irq_route(unsigned int irq, int cpu)
{
	unsigned long flags;

	spin_lock_irqsave(&ioapic_lock, flags);
	if (irq < ISA_IRQS && lines[irq].chip) {
		ioapic_write(lines[irq].chip, IOAPIC_REDTBL + 2 * lines[irq].pin + 1,
			     cpu_apic_id[cpu] << RTE_DEST_SHIFT);
		ioapic_read(lines[irq].chip, IOAPIC_VER);
	}
	spin_unlock_irqrestore(&ioapic_lock, flags);
}

void arch_irq_eoi(unsigned int irq)
{
	(void)irq;
	lapic_eoi();
}

void arch_irq_describe(unsigned int irq, char *buf, size_t size)
{
	if (irq < ISA_IRQS && lines[irq].chip)
		snprintf(buf, size, "IRQ %u (I/O APIC %u pin %u, vector %#x)", irq,
			 lines[irq].chip->id, lines[irq].pin, VEC_IRQ_BASE + irq);
	else
		snprintf(buf, size, "IRQ %u", irq);
}
