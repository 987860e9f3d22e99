/*
 * Fuzz target: arch/x86_64/acpi.c, the ACPI walk to the MADT's CPUs.
 *
 * The input: byte 0 holds flags (bit 0: make every checksum right first,
 * so that mutations reach past the checksum checks), bytes 1-3 are
 * unused, bytes 4-39 are the RSDP copy the boot loader handed over, and
 * the rest is physical memory from IMAGE_BASE up, where the RSDP's table
 * addresses point (tools/fuzz/bootdata.py lays QEMU's tables out so).
 * The accessor hands out each range it is asked for as its own exact
 * allocation, so ASan catches a read past what the walk asked for.
 * Properties:
 *   - at most NR_CPUS CPUs kept, all with APIC IDs the xAPIC can reach
 *     (below 255), none twice;
 *   - each thing refused is reported: more CPUs than NR_CPUS, x2APIC IDs
 *     out of reach, repeated IDs, short entries, and no usable CPU list;
 *   - the local APIC address kept is page-aligned, above the first MiB
 *     and outside RAM (QEMU's memory map with 128 MiB: 0 to 0x9fc00 and
 *     1 MiB to 0x7fe0000); the MADT's, when refused, is reported;
 *   - nothing is read or written out of bounds (ASan, UBSan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "x86.h"
#include "acpi.h"
#include "shim/shim.h"

#define HEADER		4
#define RSDP_SIZE	36
#define IMAGE_BASE	0x1000ULL	/* page 0 is never a table, as in the kernel */
#define FIX_CHECKSUMS	1
#define MAX_MAPS	4096

struct image {
	u8 *bytes;
	size_t len;
	void *maps[MAX_MAPS];
	int nmaps;
};

static const void *map_image(void *ctx, u64 phys, size_t len)
{
	struct image *im = ctx;
	void *copy;

	if (phys < IMAGE_BASE || phys - IMAGE_BASE > im->len || len > im->len - (phys - IMAGE_BASE))
		return NULL;
	CHECK(im->nmaps < MAX_MAPS, "the walk mapped more than %d ranges", MAX_MAPS);
	copy = malloc(len ? len : 1);
	memcpy(copy, im->bytes + (phys - IMAGE_BASE), len);
	im->maps[im->nmaps++] = copy;
	return copy;
}

static u8 *at(struct image *im, u64 phys, size_t len)
{
	if (phys < IMAGE_BASE || phys - IMAGE_BASE > im->len || len > im->len - (phys - IMAGE_BASE))
		return NULL;
	return im->bytes + (phys - IMAGE_BASE);
}

static void fix_sum(u8 *p, size_t len, size_t sum_at)
{
	u8 sum = 0;

	p[sum_at] = 0;
	for (size_t i = 0; i < len; i++)
		sum += p[i];
	p[sum_at] = -sum;
}

/* Makes the checksum of the table at phys right, when its bytes are there. */
static void fix_table(struct image *im, u64 phys)
{
	u8 *h = at(im, phys, 36);
	u32 len;

	if (!h)
		return;
	memcpy(&len, h + 4, 4);
	if (len >= 36 && at(im, phys, len))
		fix_sum(h, len, 9);
}

/* The entries first, then the root: fixing a table changes its own bytes only. */
static void fix_root(struct image *im, u64 phys, size_t entry)
{
	u8 *h = at(im, phys, 36);
	u32 len;

	if (!h)
		return;
	memcpy(&len, h + 4, 4);
	if (len >= 36 && at(im, phys, len)) {
		for (size_t off = 36; off + entry <= len; off += entry) {
			u64 addr = 0;

			memcpy(&addr, h + off, entry);
			if (addr != phys)
				fix_table(im, addr);
		}
	}
	fix_table(im, phys);
}

static void fix_checksums(struct image *im, u8 *rsdp, size_t rsdp_len)
{
	u32 rsdt;
	u64 xsdt;

	if (rsdp_len < 20)
		return;
	memcpy(&rsdt, rsdp + 16, 4);
	fix_root(im, rsdt, 4);
	if (rsdp_len >= RSDP_SIZE) {
		memcpy(&xsdt, rsdp + 24, 8);
		fix_root(im, xsdt, 8);
	}
	fix_sum(rsdp, 20, 8);
	if (rsdp_len >= RSDP_SIZE)
		fix_sum(rsdp, RSDP_SIZE, 32);
}

/* The memory map the walk is told about: QEMU pc's with 128 MiB. */
static const struct mem_region qemu_ram[] = { { 0, 0x9fc00 }, { 0x100000, 0x7fe0000 } };

/* The device interrupts' side: kept I/O APICs where registers can be, ISA IRQs sane. */
static void check_irqs(const struct acpi_madt *c)
{
	CHECK(c->nioapics >= 0 && c->nioapics <= MAX_IOAPICS, "%d I/O APICs kept", c->nioapics);
	for (int i = 0; i < c->nioapics; i++) {
		u64 b = c->ioapic[i].base;

		CHECK(b % 4096 == 0 && b >= LEGACY_AREA_END, "I/O APIC at %#llx",
		      (unsigned long long)b);
		for (size_t r = 0; r < sizeof(qemu_ram) / sizeof(qemu_ram[0]); r++)
			CHECK(b >= qemu_ram[r].end || b + IOAPIC_SIZE <= qemu_ram[r].start,
			      "I/O APIC at %#llx, in RAM", (unsigned long long)b);
	}
	for (int irq = 0; irq < ISA_IRQS; irq++)
		CHECK(c->isa[irq].overridden || (c->isa[irq].gsi == (u32)irq &&
		      !c->isa[irq].level && !c->isa[irq].active_low),
		      "ISA IRQ %d moved to GSI %u without an override", irq, c->isa[irq].gsi);
	CHECK(!(c->ioapics_refused + c->overrides_refused) || shim_count_lines("acpi: ") > 0,
	      "I/O APIC or override entries refused without a word");
}

static void check(const struct acpi_madt *c)
{
	CHECK(c->ncpus >= 0 && c->ncpus <= NR_CPUS, "%d CPUs kept", c->ncpus);
	CHECK(c->ncpus == (c->found < NR_CPUS ? c->found : NR_CPUS),
	      "%d CPUs kept of %d found", c->ncpus, c->found);
	for (int i = 0; i < c->ncpus; i++) {
		CHECK(c->apic_id[i] < XAPIC_ID_LIMIT, "APIC ID %u kept", c->apic_id[i]);
		for (int j = 0; j < i; j++)
			CHECK(c->apic_id[i] != c->apic_id[j], "APIC ID %u kept twice", c->apic_id[i]);
	}
	CHECK(c->found <= NR_CPUS || shim_count_lines("smp: firmware lists"),
	      "%d CPUs found, the cut to NR_CPUS not reported", c->found);
	CHECK(!c->unreachable || shim_count_lines("acpi: ") > 0, "unreachable CPUs not reported");
	CHECK(!c->duplicates || shim_count_lines("acpi: ") > 0, "repeated IDs not reported");
	CHECK(!c->short_entries || shim_count_lines("acpi: ") > 0, "short entries not reported");
	CHECK(c->ncpus || shim_count_lines("acpi: ") > 0, "no CPU found, and nothing said");
	CHECK(c->lapic_base % 4096 == 0 && c->lapic_base >= LEGACY_AREA_END &&
	      c->lapic_base < (1ULL << 32), "local APIC at %#llx", (unsigned long long)c->lapic_base);
	for (size_t i = 0; i < sizeof(qemu_ram) / sizeof(qemu_ram[0]); i++)
		CHECK(c->lapic_base >= qemu_ram[i].end || c->lapic_base + 4096 <= qemu_ram[i].start,
		      "local APIC at %#llx, in RAM", (unsigned long long)c->lapic_base);
	CHECK(!c->lapic_refused || shim_count_lines("acpi: the MADT's local APIC address "),
	      "the MADT's local APIC address refused without a word");
	check_irqs(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct image im;
	u8 rsdp_buf[RSDP_SIZE];
	size_t rsdp_len = size <= HEADER ? 0 : size - HEADER < RSDP_SIZE ? size - HEADER : RSDP_SIZE;
	size_t skip = HEADER + RSDP_SIZE;
	struct acpi_mem mem = { .map = map_image, .ctx = &im, .ram = qemu_ram, .nram = 2 };
	struct acpi_madt cpus;
	u8 *rsdp;

	im.len = size > skip ? size - skip : 0;
	im.bytes = malloc(im.len ? im.len : 1);
	im.nmaps = 0;
	if (im.len)
		memcpy(im.bytes, data + skip, im.len);
	memcpy(rsdp_buf, data + (size > HEADER ? HEADER : 0), rsdp_len);
	if (size && (data[0] & FIX_CHECKSUMS))
		fix_checksums(&im, rsdp_buf, rsdp_len);
	/* The RSDP too in an allocation of exactly its length. */
	rsdp = malloc(rsdp_len ? rsdp_len : 1);
	memcpy(rsdp, rsdp_buf, rsdp_len);
	shim_reset();
	acpi_parse(&cpus, &mem, rsdp_len ? rsdp : NULL, rsdp_len);
	check(&cpus);
	shim_summary("%d CPUs kept of %d found (first APIC ID %u, last %u), local APIC at %#llx",
		     cpus.ncpus, cpus.found, cpus.ncpus ? cpus.apic_id[0] : 0,
		     cpus.ncpus ? cpus.apic_id[cpus.ncpus - 1] : 0,
		     (unsigned long long)cpus.lapic_base);
	shim_summary("%d I/O APICs kept (the first at %#llx, GSI base %u), %d refused; "
		     "ISA IRQ 0 on GSI %u, IRQ 4 on GSI %u%s, %d overrides refused", cpus.nioapics,
		     cpus.nioapics ? (unsigned long long)cpus.ioapic[0].base : 0,
		     cpus.nioapics ? cpus.ioapic[0].gsi_base : 0, cpus.ioapics_refused,
		     cpus.isa[0].gsi, cpus.isa[4].gsi, cpus.isa[4].level ? " level" : "",
		     cpus.overrides_refused);
	for (int i = 0; i < im.nmaps; i++)
		free(im.maps[i]);
	free(rsdp);
	free(im.bytes);
	return 0;
}
