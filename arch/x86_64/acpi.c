/*
 * ACPI, just enough to find the CPUs: RSDP -> RSDT/XSDT -> MADT, whose
 * "processor local APIC" entries list every CPU with its APIC ID.
 */
#include "x86.h"

struct acpi_header {
	char signature[4];
	u32 length;
	u8 revision, checksum;
	char oem_id[6], oem_table_id[8];
	u32 oem_revision, creator_id, creator_revision;
} __attribute__((packed));

struct acpi_rsdp {
	char signature[8];
	u8 checksum;
	char oem_id[6];
	u8 revision;
	u32 rsdt;
	u32 length;	/* ACPI 2.0 from here */
	u64 xsdt;
	u8 xchecksum, reserved[3];
} __attribute__((packed));

#define MADT_LOCAL_APIC		0
#define MADT_CPU_ENABLED	1

u32 cpu_apic_id[NR_CPUS];
int acpi_ncpus;
u64 lapic_base_phys = 0xfee00000;
static int acpi_cpus_found;

static bool checksum_ok(const void *p, size_t n)
{
	const u8 *b = p;
	u8 sum = 0;

	while (n--)
		sum += *b++;
	return sum == 0;
}

static void parse_madt(const struct acpi_header *madt)
{
	const u8 *p = (const u8 *)madt + sizeof(*madt) + 8;
	const u8 *end = (const u8 *)madt + madt->length;

	lapic_base_phys = *(const u32 *)((const u8 *)madt + sizeof(*madt));
	while (p + 2 <= end && p[1] >= 2) {
		if (p[0] == MADT_LOCAL_APIC && (*(const u32 *)(p + 4) & MADT_CPU_ENABLED)) {
			if (acpi_ncpus < NR_CPUS)
				cpu_apic_id[acpi_ncpus++] = p[3];
			acpi_cpus_found++;
		}
		p += p[1];
	}
}

static const struct acpi_header *find_table(const struct acpi_rsdp *rsdp, const char *sig)
{
	bool x = rsdp->revision >= 2 && rsdp->xsdt;
	const struct acpi_header *root = (const void *)(uintptr_t)(x ? rsdp->xsdt : rsdp->rsdt);
	size_t n = (root->length - sizeof(*root)) / (x ? 8 : 4);
	const u8 *entries = (const u8 *)root + sizeof(*root);

	if (!checksum_ok(root, root->length)) {
		printk("acpi: %.4s has a bad checksum\n", root->signature);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		u64 addr = x ? ((const u64 *)entries)[i] : ((const u32 *)entries)[i];
		const struct acpi_header *h = (const void *)(uintptr_t)addr;

		if (!memcmp(h->signature, sig, 4) && checksum_ok(h, h->length))
			return h;
	}
	return NULL;
}

void acpi_init(u64 rsdp_phys)
{
	const struct acpi_rsdp *rsdp = (const void *)(uintptr_t)rsdp_phys;
	const struct acpi_header *madt;

	if (!rsdp || memcmp(rsdp->signature, "RSD PTR ", 8) || !checksum_ok(rsdp, 20)) {
		printk("acpi: no valid RSDP from the boot loader: using the boot CPU only\n");
		return;
	}
	madt = find_table(rsdp, "APIC");
	if (!madt) {
		printk("acpi: no MADT: using the boot CPU only\n");
		return;
	}
	parse_madt(madt);
	if (acpi_cpus_found > NR_CPUS)
		printk("smp: firmware lists %d CPUs, this kernel supports NR_CPUS=%d: "
		       "bringing up the first %d\n", acpi_cpus_found, NR_CPUS, NR_CPUS);
}
