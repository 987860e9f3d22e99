/*
 * A small reader for the flattened device tree QEMU leaves at the start
 * of RAM: just what the port needs (RAM, CPUs, PSCI conduit, command line,
 * GIC and UART addresses).  The blob is big-endian; its structure block is
 * a stream of tokens (begin node, property, end node) we walk keeping
 * the path of the current node.  We copy what we keep: the page
 * allocator never hands out the blob's memory (it is below the kernel),
 * but nothing reads it after boot.
 */
#include "aarch64.h"

#define FDT_MAGIC	0xd00dfeed
#define FDT_BEGIN_NODE	1
#define FDT_END_NODE	2
#define FDT_PROP	3
#define FDT_NOP		4
#define FDT_END		9
#define MAX_DEPTH	8

struct fdt_header {
	u32 magic, totalsize, off_dt_struct, off_dt_strings, off_mem_rsvmap;
	u32 version, last_comp_version, boot_cpuid_phys;
	u32 size_dt_strings, size_dt_struct;
};

/* QEMU virt's layout, for anything the tree does not say. */
struct dt_info dt = {
	.ram_start = 0x40000000,
	.ram_size = 128 << 20,
	.uart_base = 0x09000000,
	.gicd_base = 0x08000000,
	.gicr_base = 0x080a0000,
};

static inline u32 be32(const void *p)
{
	return __builtin_bswap32(*(const u32 *)p);
}

/* A cells-long big-endian number (1 or 2 cells). */
static u64 read_cells(const u8 *p, int cells)
{
	u64 v = 0;

	for (int i = 0; i < cells; i++)
		v = (v << 32) | be32(p + 4 * i);
	return v;
}

/* Is `want` one of the NUL-separated strings of a property (compatible)? */
static bool string_list_has(const char *list, u32 len, const char *want)
{
	for (u32 i = 0; i < len; i += strlen(list + i) + 1)
		if (!strcmp(list + i, want))
			return true;
	return false;
}

struct node {
	char path[128];
	int addr_cells, size_cells;	/* for this node's children */
	const u8 *reg;			/* its reg property, decoded at its end */
	u32 reg_len;
	bool gic, pl011, memory, cpu;
};

static char stdout_path[128];
static bool memory_found, uart_found;

static void copy_bootargs(const u8 *val, u32 len)
{
	u32 n = strnlen((const char *)val, len);

	dt.bootargs_truncated = n >= sizeof(dt.bootargs);
	if (dt.bootargs_truncated)
		n = sizeof(dt.bootargs) - 1;
	memcpy(dt.bootargs, val, n);
	dt.bootargs[n] = '\0';
}

/* "/pl011@9000000:115200n8": the path, without the options. */
static void copy_stdout_path(const u8 *val, u32 len)
{
	u32 i;

	for (i = 0; i < len && i < sizeof(stdout_path) - 1 && val[i] && val[i] != ':'; i++)
		stdout_path[i] = val[i];
	stdout_path[i] = '\0';
}

static void property(struct node *n, const char *name, const u8 *val, u32 len)
{
	if (!strcmp(name, "#address-cells") && len == 4)
		n->addr_cells = be32(val);
	else if (!strcmp(name, "#size-cells") && len == 4)
		n->size_cells = be32(val);
	else if (!strcmp(name, "reg"))
		n->reg = val, n->reg_len = len;
	else if (!strcmp(name, "compatible")) {
		n->gic = string_list_has((const char *)val, len, "arm,gic-v3");
		n->pl011 = string_list_has((const char *)val, len, "arm,pl011");
	} else if (!strcmp(name, "device_type")) {
		n->memory = !strcmp((const char *)val, "memory");
		n->cpu = !strcmp((const char *)val, "cpu");
	} else if (!strcmp(n->path, "/chosen") && !strcmp(name, "bootargs"))
		copy_bootargs(val, len);
	else if (!strcmp(n->path, "/chosen") && !strcmp(name, "stdout-path"))
		copy_stdout_path(val, len);
	else if (!strcmp(n->path, "/psci") && !strcmp(name, "method")) {
		dt.psci_found = true;
		dt.psci_smc = !strcmp((const char *)val, "smc");
	}
}

/*
 * A node is complete: interpret its reg with its parent's cells (a node's
 * properties come before its children, so the parent's are known).
 */
static void end_node(const struct node *n, const struct node *parent)
{
	int ac = parent->addr_cells, sc = parent->size_cells;
	u32 entry = 4U * (ac + sc);

	if (!n->reg || ac < 1 || ac > 2 || sc < 0 || sc > 2 || n->reg_len < 4U * ac)
		return;
	if (n->memory && !memory_found && n->reg_len >= entry) {
		dt.ram_start = read_cells(n->reg, ac);
		dt.ram_size = read_cells(n->reg + 4 * ac, sc);
		memory_found = true;
	} else if (n->cpu && !strcmp(parent->path, "/cpus")) {
		if (dt.ncpus < NR_CPUS)
			dt.cpu_mpidr[dt.ncpus++] = read_cells(n->reg, ac);
		dt.cpus_found++;
	} else if (n->gic && n->reg_len >= 2 * entry) {
		dt.gicd_base = read_cells(n->reg, ac);
		dt.gicr_base = read_cells(n->reg + entry, ac);
	} else if (n->pl011 && (!strcmp(n->path, stdout_path) ||
				(!uart_found && !stdout_path[0]))) {
		dt.uart_base = read_cells(n->reg, ac);
		uart_found = true;
	}
}

/* One walk over the structure block. */
static void walk(const u8 *p, const u8 *strings)
{
	struct node stack[MAX_DEPTH];
	int depth = -1;

	for (;;) {
		u32 tok = be32(p);

		p += 4;
		if (tok == FDT_BEGIN_NODE) {
			const char *name = (const char *)p;
			struct node *n;

			p += ALIGN_UP(strlen(name) + 1, 4);
			if (++depth >= MAX_DEPTH) {
				printk("fdt: nodes nested too deep: ignoring the rest\n");
				return;
			}
			n = &stack[depth];
			memset(n, 0, sizeof(*n));
			snprintf(n->path, sizeof(n->path), "%s/%s",
				 depth > 1 ? stack[depth - 1].path : "", depth ? name : "");
			/* The spec's defaults when a node does not say. */
			n->addr_cells = 2;
			n->size_cells = 1;
		} else if (tok == FDT_PROP) {
			u32 len = be32(p), nameoff = be32(p + 4);

			if (depth >= 0)
				property(&stack[depth], (const char *)strings + nameoff, p + 8, len);
			p += 8 + ALIGN_UP(len, 4);
		} else if (tok == FDT_END_NODE) {
			if (depth > 0)
				end_node(&stack[depth], &stack[depth - 1]);
			if (--depth < 0)
				return;
		} else if (tok != FDT_NOP) {
			return;		/* FDT_END, or garbage */
		}
	}
}

void fdt_parse(const void *blob)
{
	const struct fdt_header *h = blob;
	const u8 *base = blob;

	if (!blob || be32(&h->magic) != FDT_MAGIC) {
		printk("fdt: no device tree at %p: assuming QEMU virt, one CPU, %llu MiB\n",
		       blob, (unsigned long long)(dt.ram_size >> 20));
		return;
	}
	/*
	 * Two walks: /chosen's stdout-path may come after the UART's node.
	 * The first finds it; the second reads everything else.
	 */
	walk(base + be32(&h->off_dt_struct), base + be32(&h->off_dt_strings));
	dt.ncpus = dt.cpus_found = 0;
	memory_found = uart_found = false;
	walk(base + be32(&h->off_dt_struct), base + be32(&h->off_dt_strings));
}
