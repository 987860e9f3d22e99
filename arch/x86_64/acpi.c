/*
 * ACPI, just enough to find the CPUs and the device interrupts: RSDP ->
 * RSDT/XSDT -> MADT, whose "processor local APIC" (type 0) and "processor
 * local x2APIC" (type 9) entries list every CPU with its APIC ID, its
 * "I/O APIC" entries (type 1) the interrupt controllers of the devices,
 * and its "interrupt source overrides" (type 2) the ISA interrupts that
 * do not arrive on the I/O APIC pin of their number, or not with ISA's
 * signal (edge-triggered, active high).
 *
 * The tables are firmware's, not ours: every length is checked before the
 * bytes it covers are read, and every physical address goes through the
 * accessor (struct acpi_mem), which refuses what cannot be read.  The walk
 * fills the struct acpi_madt it is handed and nothing else, so the host
 * fuzzer (tools/fuzz/) runs this file as it is.
 */
#include "x86.h"
#include "acpi.h"
#include "multiboot.h"
#include "unaligned.h"

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

#define RSDP_V1_SIZE		20	/* the bytes the first checksum covers */
#define RSDP_V2_SIZE		sizeof(struct acpi_rsdp)
#define MADT_HEADER		(sizeof(struct acpi_header) + 8)	/* + APIC address, flags */
#define MADT_ENTRY_HEADER	2	/* u8 type, u8 length */
#define MADT_LOCAL_APIC		0	/* u8 uid, u8 apic_id, u32 flags */
#define MADT_LOCAL_APIC_SIZE	8
#define MADT_LOCAL_X2APIC	9	/* u16 reserved, u32 x2apic_id, u32 flags, u32 uid */
#define MADT_LOCAL_X2APIC_SIZE	16
#define MADT_CPU_ENABLED	1
#define MADT_IOAPIC		1	/* u8 id, u8 reserved, u32 address, u32 gsi_base */
#define MADT_IOAPIC_SIZE	12
#define MADT_OVERRIDE		2	/* u8 bus, u8 source, u32 gsi, u16 flags */
#define MADT_OVERRIDE_SIZE	10
#define ISA_BUS			0

u32 cpu_apic_id[NR_CPUS];
int acpi_ncpus;
u64 lapic_base_phys = LAPIC_DEFAULT_BASE;

static bool checksum_ok(const void *p, size_t n)
{
	const u8 *b = p;
	u8 sum = 0;

	while (n--)
		sum += *b++;
	return sum == 0;
}

/*
 * The table at phys, if its header can be read and says sig; then its
 * length and checksum must hold too, or it is reported and refused.
 * Returns the whole table (*len bytes), or NULL.
 */
static const u8 *map_table(const struct acpi_mem *mem, u64 phys, const char *sig, u32 *len)
{
	const struct acpi_header *h;
	u32 n;

	h = phys ? mem->map(mem->ctx, phys, sizeof(*h)) : NULL;
	if (!h || (sig && memcmp(h->signature, sig, 4)))
		return NULL;
	n = h->length;
	if (n < sizeof(*h) || n > ACPI_TABLE_MAX) {
		printk("acpi: %.4s at %#llx has length %u (expected %zu to %u): ignored\n",
		       h->signature, (unsigned long long)phys, n, sizeof(*h), ACPI_TABLE_MAX);
		return NULL;
	}
	h = mem->map(mem->ctx, phys, n);
	if (!h) {
		printk("acpi: %.4s at %#llx (%u bytes) is outside readable memory: ignored\n",
		       sig ? sig : "table", (unsigned long long)phys, n);
		return NULL;
	}
	if (!checksum_ok(h, n)) {
		printk("acpi: %.4s at %#llx has a bad checksum: ignored\n",
		       h->signature, (unsigned long long)phys);
		return NULL;
	}
	*len = n;
	return (const u8 *)h;
}

/* The first valid table called sig that the root (RSDT or XSDT) lists. */
static const u8 *find_table(const struct acpi_mem *mem, const u8 *root, u32 root_len,
			    size_t entry_size, const char *sig, u32 *len)
{
	size_t n = (root_len - sizeof(struct acpi_header)) / entry_size;
	const u8 *entries = root + sizeof(struct acpi_header);

	for (size_t i = 0; i < n; i++) {
		const u8 *e = entries + i * entry_size;
		u64 addr = entry_size == 8 ? get_unaligned_le64(e) : get_unaligned_le32(e);
		const u8 *t = map_table(mem, addr, sig, len);

		if (t)
			return t;
	}
	return NULL;
}

static void add_cpu(struct acpi_madt *out, u32 id)
{
	if (id >= XAPIC_ID_LIMIT) {
		if (!out->unreachable++)
			out->first_unreachable = id;
		return;
	}
	if (out->seen[id / 32] & (1U << (id % 32))) {
		out->duplicates++;
		return;
	}
	out->seen[id / 32] |= 1U << (id % 32);
	out->found++;
	if (out->ncpus < NR_CPUS)
		out->apic_id[out->ncpus++] = id;
}

/*
 * Registers are believed only where they can be: page-aligned, above the
 * legacy first MiB and outside RAM (the kernel maps everything else below
 * 4 GiB uncached: arch/x86_64/mmu.c).  NULL, or why not.
 */
static const char *device_address_problem(const struct acpi_mem *mem, u64 a, u64 size)
{
	if (a % PAGE_SIZE)
		return "is not page-aligned";
	if (a < LEGACY_AREA_END)
		return "is in the first MiB (BIOS, video memory, the kernel's trampoline)";
	for (int i = 0; i < mem->nram; i++)
		if (a < mem->ram[i].end && a + size > mem->ram[i].start)
			return "is RAM in the memory map";
	return NULL;
}

/*
 * The first few refused I/O APIC and override entries are each said on a
 * line of their own; report() counts the rest (a hostile table may hold
 * thousands).
 */
#define REFUSALS_SAID		8

static bool say_refusal(const struct acpi_madt *out)
{
	return out->ioapics_refused + out->overrides_refused < REFUSALS_SAID;
}

static void add_ioapic(struct acpi_madt *out, const struct acpi_mem *mem, const u8 *e)
{
	u64 base = get_unaligned_le32(e + 4);
	const char *why = device_address_problem(mem, base, IOAPIC_SIZE);

	if (!why && out->nioapics == MAX_IOAPICS)
		why = "is one more than the kernel keeps (MAX_IOAPICS)";
	if (why) {
		if (say_refusal(out))
			printk("acpi: the MADT's I/O APIC %u at %#llx %s: not used\n", e[2],
			       (unsigned long long)base, why);
		out->ioapics_refused++;
		return;
	}
	out->ioapic[out->nioapics++] = (struct acpi_ioapic){
		.id = e[2], .base = base, .gsi_base = get_unaligned_le32(e + 8),
	};
}

/* An interrupt source override: ISA interrupt `source` arrives on `gsi`, with `flags`. */
static void add_override(struct acpi_madt *out, const u8 *e)
{
	u8 bus = e[2], source = e[3];
	u32 gsi = get_unaligned_le32(e + 4);
	u16 flags = get_unaligned_le16(e + 8);
	const char *why = NULL;

	if (bus != ISA_BUS)
		why = "is not for the ISA bus";
	else if (source >= ISA_IRQS)
		why = "names an ISA interrupt above 15";
	else if ((flags & INTI_POLARITY_MASK) == 2 || (flags & INTI_TRIGGER_MASK) == 8)
		why = "has reserved polarity or trigger bits";
	else if (out->isa[source].overridden)
		why = "repeats an interrupt already overridden (the first one counts)";
	if (why) {
		if (say_refusal(out))
			printk("acpi: the MADT's override of bus %u IRQ %u (to GSI %u, flags %#x) %s: "
			       "ignored\n", bus, source, gsi, flags, why);
		out->overrides_refused++;
		return;
	}
	out->isa[source] = (struct acpi_isa_irq){
		.gsi = gsi, .overridden = true,
		.level = (flags & INTI_TRIGGER_MASK) == INTI_TRIGGER_LEVEL,
		.active_low = (flags & INTI_POLARITY_MASK) == INTI_POLARITY_LOW,
	};
}

/* An I/O APIC or override entry, len bytes. */
static void irq_entry(struct acpi_madt *out, const struct acpi_mem *mem, const u8 *e, u8 len)
{
	bool ioapic = e[0] == MADT_IOAPIC;

	if (len >= (ioapic ? MADT_IOAPIC_SIZE : MADT_OVERRIDE_SIZE)) {
		if (ioapic)
			add_ioapic(out, mem, e);
		else
			add_override(out, e);
		return;
	}
	if (say_refusal(out))
		printk("acpi: a MADT %s entry of %u bytes is too short for its fields: ignored\n",
		       ioapic ? "I/O APIC" : "override", len);
	if (ioapic)
		out->ioapics_refused++;
	else
		out->overrides_refused++;
}

/* One MADT entry, len bytes (at least its header), already inside the table. */
static void madt_entry(struct acpi_madt *out, const struct acpi_mem *mem, const u8 *e, u8 len)
{
	if (e[0] == MADT_IOAPIC || e[0] == MADT_OVERRIDE) {
		irq_entry(out, mem, e, len);
	} else if (e[0] == MADT_LOCAL_APIC) {
		if (len < MADT_LOCAL_APIC_SIZE)
			out->short_entries++;
		else if (get_unaligned_le32(e + 4) & MADT_CPU_ENABLED)
			add_cpu(out, e[3]);
	} else if (e[0] == MADT_LOCAL_X2APIC) {
		if (len < MADT_LOCAL_X2APIC_SIZE)
			out->short_entries++;
		else if (get_unaligned_le32(e + 8) & MADT_CPU_ENABLED)
			add_cpu(out, get_unaligned_le32(e + 4));
	}
}

static void parse_madt(struct acpi_madt *out, const struct acpi_mem *mem, const u8 *madt,
		       u32 len)
{
	u32 off = MADT_HEADER;

	if (len < MADT_HEADER) {
		printk("acpi: MADT of %u bytes is shorter than its header: using the boot CPU only\n",
		       len);
		return;
	}
	out->madt_found = true;
	out->lapic_base = get_unaligned_le32(madt + sizeof(struct acpi_header));
	while (len - off >= MADT_ENTRY_HEADER) {
		u8 elen = madt[off + 1];

		if (elen < MADT_ENTRY_HEADER || elen > len - off) {
			printk("acpi: MADT entry at offset %u has length %u (%u bytes left): "
			       "ignoring the rest of the table\n", off, elen, len - off);
			break;
		}
		madt_entry(out, mem, madt + off, elen);
		off += elen;
	}
}

/*
 * The MADT's local APIC address is believed only where registers can be.
 * (At 0x100000 the kernel once read its own text as the boot CPU's APIC ID.)
 */
static void check_lapic_base(struct acpi_madt *out, const struct acpi_mem *mem)
{
	u64 a = out->lapic_base;
	const char *why = device_address_problem(mem, a, PAGE_SIZE);

	if (!why)
		return;
	printk("acpi: the MADT's local APIC address %#llx %s: using the architectural %#llx\n",
	       (unsigned long long)a, why, LAPIC_DEFAULT_BASE);
	out->lapic_base = LAPIC_DEFAULT_BASE;
	out->lapic_refused = true;
}

/* What the walk found that the kernel will not use, one line each. */
static void report(const struct acpi_madt *out)
{
	if (out->short_entries)
		printk("acpi: %d MADT CPU entries are too short for their fields: ignored\n",
		       out->short_entries);
	if (out->duplicates)
		printk("acpi: %d MADT CPU entries repeat an APIC ID already listed: "
		       "each CPU counted once\n", out->duplicates);
	if (out->unreachable)
		printk("acpi: %d CPUs have x2APIC IDs the xAPIC cannot reach (%u and up; "
		       "the first: %u): not used\n", out->unreachable, XAPIC_ID_LIMIT,
		       out->first_unreachable);
	if (out->ioapics_refused + out->overrides_refused > REFUSALS_SAID)
		printk("acpi: %d more I/O APIC and override entries refused (not listed)\n",
		       out->ioapics_refused + out->overrides_refused - REFUSALS_SAID);
	if (out->found > NR_CPUS)
		printk("smp: firmware lists %d CPUs, this kernel supports NR_CPUS=%d: "
		       "bringing up the first %d\n", out->found, NR_CPUS, NR_CPUS);
}

/*
 * The root table: the XSDT when an ACPI 2.0 RSDP names one and its own
 * length and checksum hold, else the RSDT.
 */
static const u8 *map_root(const struct acpi_mem *mem, const struct acpi_rsdp *rsdp,
			  size_t rsdp_len, u32 *len, size_t *entry_size)
{
	if (rsdp->revision >= 2) {
		if (rsdp_len >= RSDP_V2_SIZE && rsdp->length >= RSDP_V2_SIZE &&
		    checksum_ok(rsdp, RSDP_V2_SIZE) && rsdp->xsdt) {
			const u8 *x = map_table(mem, rsdp->xsdt, "XSDT", len);

			*entry_size = 8;
			if (x)
				return x;
			printk("acpi: the XSDT cannot be used: trying the RSDT\n");
		} else {
			printk("acpi: ACPI 2.0 RSDP without a valid XSDT part: using the RSDT\n");
		}
	}
	*entry_size = 4;
	return map_table(mem, rsdp->rsdt, "RSDT", len);
}

void acpi_parse(struct acpi_madt *out, const struct acpi_mem *mem,
		const void *rsdp_copy, size_t rsdp_len)
{
	const struct acpi_rsdp *rsdp = rsdp_copy;
	const u8 *root, *madt;
	size_t entry_size;
	u32 root_len, madt_len;

	memset(out, 0, sizeof(*out));
	out->lapic_base = LAPIC_DEFAULT_BASE;
	for (int i = 0; i < ISA_IRQS; i++)
		out->isa[i].gsi = i;	/* ISA's signal, on the pin of its number */
	if (!rsdp || rsdp_len < RSDP_V1_SIZE || memcmp(rsdp->signature, "RSD PTR ", 8) ||
	    !checksum_ok(rsdp, RSDP_V1_SIZE)) {
		printk("acpi: no valid RSDP from the boot loader: using the boot CPU only\n");
		return;
	}
	root = map_root(mem, rsdp, rsdp_len, &root_len, &entry_size);
	if (!root) {
		printk("acpi: no valid RSDT or XSDT: using the boot CPU only\n");
		return;
	}
	madt = find_table(mem, root, root_len, entry_size, "APIC", &madt_len);
	if (!madt) {
		printk("acpi: no MADT: using the boot CPU only\n");
		return;
	}
	parse_madt(out, mem, madt, madt_len);
	if (out->madt_found)
		check_lapic_base(out, mem);
	report(out);
	if (out->madt_found && !out->ncpus)
		printk("acpi: the MADT lists no enabled CPU we can use: using the boot CPU only\n");
}

/*
 * The boot page tables map the first 4 GiB one to one; page 0 is never a
 * table (and is unmapped later), so an address in it is a wrong one.
 */
#define IDENTITY_MAPPED		(1ULL << 32)

static const void *map_identity(void *ctx, u64 phys, size_t len)
{
	(void)ctx;
	if (phys < PAGE_SIZE || phys >= IDENTITY_MAPPED || len > IDENTITY_MAPPED - phys)
		return NULL;
	return (const void *)(uintptr_t)phys;
}

static struct acpi_madt boot_madt;

const struct acpi_madt *acpi_boot_madt(void)
{
	return &boot_madt;
}

void acpi_init(u64 rsdp_phys, size_t rsdp_len)
{
	static struct mem_region ram[64];
	struct acpi_madt *found = &boot_madt;
	const struct acpi_mem identity = {
		.map = map_identity, .ram = ram, .nram = arch_mem_regions(ram, ARRAY_SIZE(ram)),
	};

	acpi_parse(found, &identity, (const void *)(uintptr_t)rsdp_phys, rsdp_len);
	memcpy(cpu_apic_id, found->apic_id, sizeof(cpu_apic_id));
	acpi_ncpus = found->ncpus;
	lapic_base_phys = found->lapic_base;
}

/* The tables a root lists, each dumped whole when its header can be believed. */
static void dump_listed(const struct acpi_mem *mem, const u8 *root, u32 len, size_t entry_size)
{
	for (size_t off = sizeof(struct acpi_header); off + entry_size <= len; off += entry_size) {
		u64 addr = entry_size == 8 ? get_unaligned_le64(root + off) : get_unaligned_le32(root + off);
		const struct acpi_header *h = addr ? mem->map(mem->ctx, addr, sizeof(*h)) : NULL;
		char what[16];

		if (!h || h->length < sizeof(*h) || h->length > ACPI_TABLE_MAX ||
		    !mem->map(mem->ctx, addr, h->length))
			continue;
		snprintf(what, sizeof(what), "acpi-%.4s", h->signature);
		bootdata_dump(what, addr, h, h->length);
	}
}

void acpi_dump(const void *rsdp_copy, size_t rsdp_len)
{
	const struct acpi_mem identity = { .map = map_identity };
	const struct acpi_rsdp *rsdp = rsdp_copy;
	const u8 *root;
	u32 len;

	if (!rsdp || rsdp_len < RSDP_V1_SIZE)
		return;
	bootdata_dump("acpi-rsdp", (uintptr_t)rsdp, rsdp, min(rsdp_len, RSDP_V2_SIZE));
	root = map_table(&identity, rsdp->rsdt, "RSDT", &len);
	if (root) {
		bootdata_dump("acpi-RSDT", rsdp->rsdt, root, len);
		dump_listed(&identity, root, len, 4);
	}
	if (rsdp->revision >= 2 && rsdp_len >= RSDP_V2_SIZE &&
	    (root = map_table(&identity, rsdp->xsdt, "XSDT", &len))) {
		bootdata_dump("acpi-XSDT", rsdp->xsdt, root, len);
		dump_listed(&identity, root, len, 8);
	}
}
