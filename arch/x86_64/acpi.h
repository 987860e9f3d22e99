/*
 * The ACPI walk that finds the CPUs and the I/O APICs (acpi.c): RSDP ->
 * RSDT/XSDT -> MADT.
 * It reads physical memory only through the accessor it is handed, which
 * refuses what it cannot map, and fills the struct it is handed: the
 * kernel passes its identity map, the host fuzzer (tools/fuzz/) a buffer.
 */
#ifndef ARCH_X86_64_ACPI_H
#define ARCH_X86_64_ACPI_H

#include "types.h"
#include "param.h"	/* NR_CPUS (the host fuzzer passes its own) */
#include "arch.h"	/* struct mem_region */

/* How the walk reads physical memory, and which of it is RAM. */
struct acpi_mem {
	/* len bytes at phys, or NULL when they are not all readable */
	const void *(*map)(void *ctx, u64 phys, size_t len);
	void *ctx;
	const struct mem_region *ram;	/* the memory map's RAM, nram regions */
	int nram;
};

/* Where the local APIC is unless the MADT says otherwise (and it is believed). */
#define LAPIC_DEFAULT_BASE	0xfee00000ULL
/* Below this: BIOS, video memory, the kernel's trampoline; never the APIC. */
#define LEGACY_AREA_END		0x100000ULL

/* The largest table believed: QEMU's are a few KiB, real firmware's tens. */
#define ACPI_TABLE_MAX		(256U * 1024)
/* x2APIC IDs from this one up cannot be addressed by the xAPIC (255: broadcast). */
#define XAPIC_ID_LIMIT		255

/* I/O APICs kept: QEMU has one, servers a handful. */
#define MAX_IOAPICS		8
/* The ISA interrupts (IRQ 0-15), which the MADT's overrides may move. */
#define ISA_IRQS		16
/* An I/O APIC's registers: the index at +0, the window at +0x10. */
#define IOAPIC_SIZE		0x20

/* MPS INTI flags (an override's): polarity in bits 0-1, trigger mode in bits 2-3. */
#define INTI_POLARITY_MASK	0x3
#define INTI_POLARITY_HIGH	0x1
#define INTI_POLARITY_LOW	0x3
#define INTI_TRIGGER_MASK	0xc
#define INTI_TRIGGER_EDGE	0x4
#define INTI_TRIGGER_LEVEL	0xc

struct acpi_ioapic {
	u32 id;			/* its I/O APIC ID */
	u64 base;		/* its registers (checked as the local APIC's) */
	u32 gsi_base;		/* the global system interrupt of its pin 0 */
};

/* Where an ISA interrupt arrives: the MADT's override, or pin IRQ with ISA's signal. */
struct acpi_isa_irq {
	u32 gsi;
	bool level;		/* level-triggered (ISA: edge) */
	bool active_low;	/* (ISA: active high) */
	bool overridden;	/* an override said so */
};

struct acpi_madt {
	u32 apic_id[NR_CPUS];	/* the enabled CPUs, in the MADT's order */
	int ncpus;		/* kept: at most NR_CPUS */
	int found;		/* enabled, reachable and distinct CPUs listed */
	int unreachable;	/* enabled CPUs with an x2APIC ID >= XAPIC_ID_LIMIT */
	u32 first_unreachable;
	int duplicates;		/* entries repeating an APIC ID already listed */
	int short_entries;	/* CPU entries too short for their fields */
	u64 lapic_base;		/* the MADT's local APIC address, once believed */
	bool lapic_refused;	/* the MADT's was not: LAPIC_DEFAULT_BASE instead */
	bool madt_found;
	u32 seen[(XAPIC_ID_LIMIT + 31) / 32];	/* APIC IDs listed so far */
	/* The device interrupts' side (arch/x86_64/ioapic.c). */
	struct acpi_ioapic ioapic[MAX_IOAPICS];
	int nioapics;		/* kept: at most MAX_IOAPICS */
	int ioapics_refused;	/* I/O APIC entries not kept (short, bad address, too many) */
	struct acpi_isa_irq isa[ISA_IRQS];
	int overrides_refused;	/* overrides not used (short, not ISA, bad flags, repeated) */
};

/* rsdp: the RSDP copy the boot loader handed over, rsdp_len bytes of it. */
void acpi_parse(struct acpi_madt *out, const struct acpi_mem *mem,
		const void *rsdp, size_t rsdp_len);

/* The kernel's boot: parses with the identity map, fills the globals of x86.h. */
void acpi_init(u64 rsdp_phys, size_t rsdp_len);
/* What the MADT said of I/O APICs and ISA interrupts, for ioapic.c (after acpi_init()). */
const struct acpi_madt *acpi_boot_madt(void);

#endif
