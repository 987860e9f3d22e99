/*
 * A small reader for the flattened device tree the boot loader hands
 * over (x0; QEMU's for an ELF kernel sits at the start of RAM): just what
 * the port needs (RAM, CPUs, PSCI conduit, command line, where the initrd
 * is, GIC and UART addresses).  The blob is big-endian; its structure
 * block is a stream of tokens (begin node, property, end node) we walk
 * keeping the path of the current node.  We copy what we keep: the page
 * allocator never hands out the blob's memory (arch_reserved_regions(),
 * initrd.c), but nothing reads it after boot.
 *
 * The blob is input the kernel did not write.  Its header's sizes and
 * offsets are checked against totalsize before anything is read; inside
 * the structure block every node name, property length and name offset is
 * checked against the block it points into; what does not fit is reported
 * and refused.  The walk's state lives in a struct fdt_walk, and the
 * results go to the struct dt_info the caller hands over, so the host
 * fuzzer (tools/fuzz/) runs this file on arbitrary bytes, one input after
 * another, with nothing carried over.
 */
#include "aarch64.h"

#define FDT_MAGIC	0xd00dfeed
#define FDT_BEGIN_NODE	1
#define FDT_END_NODE	2
#define FDT_PROP	3
#define FDT_NOP		4
#define FDT_END		9
#define FDT_TOKEN	4		/* tokens are 4 bytes, 4-byte aligned */
#define FDT_PROP_HEADER	8		/* u32 len, u32 nameoff */
#define FDT_VERSION	17		/* the first with size_dt_struct */
#define FDT_MAX_SIZE	(2U << 20)	/* QEMU's blob is at most 1 MiB */
#define MAX_DEPTH	8
#define PATH_SIZE	128

struct fdt_header {
	u32 magic, totalsize, off_dt_struct, off_dt_strings, off_mem_rsvmap;
	u32 version, last_comp_version, boot_cpuid_phys;
	u32 size_dt_strings, size_dt_struct;
};

/* QEMU virt's layout, for anything the tree does not say. */
#define VIRT_UART	0x09000000
#define VIRT_GICD	0x08000000
#define VIRT_GICR	0x080a0000
#define VIRT_GICR_SIZE	0xf60000	/* 123 CPUs' frames; virt puts more in a second region */
#define VIRT_UART_INTID	33		/* the PL011's SPI 1, level-triggered */

/* A GICv3 interrupt specifier: three cells, <type number flags> (the GIC binding). */
#define GIC_SPEC_SIZE	12
#define GIC_SPEC_SPI	0
#define GIC_SPEC_EDGE	0x3		/* flags 1, 2: rising, falling edge; 4, 8: level */
#define GIC_SPI_BASE	32
#define GIC_SPI_COUNT	988		/* INTIDs 32-1019 */

struct dt_info dt = {
	.ram_start = 0x40000000,
	.ram_size = 128 << 20,
	.uart_base = VIRT_UART,
	.gicd_base = VIRT_GICD,
	.gicr_base = VIRT_GICR,
	.gicr_size = VIRT_GICR_SIZE,
	.uart_intid = VIRT_UART_INTID,
};

struct node {
	char path[PATH_SIZE];
	int addr_cells, size_cells;	/* for this node's children */
	const u8 *reg;			/* its reg property, decoded at its end */
	u32 reg_len;
	const u8 *interrupts;		/* its interrupts property (the UART's) */
	u32 interrupts_len;
	bool gic, pl011, memory, cpu;
};

/* One walk's state. */
struct fdt_walk {
	struct dt_info *dt;		/* what we fill */
	const u8 *strings;		/* the strings block, strings_size bytes */
	u32 strings_size;
	bool find_stdout;		/* the first walk: only look for stdout-path */
	char stdout_path[PATH_SIZE];
	bool memory_found, uart_found;
	int cpu_duplicates;
	int initrd_seen;		/* bit 0: its start, bit 1: its end */
	bool initrd_bad;
};

/* Bytes, not a u32 load: offsets in a hostile blob need not be aligned. */
static u32 be32(const void *p)
{
	const u8 *b = p;

	return (u32)b[0] << 24 | (u32)b[1] << 16 | (u32)b[2] << 8 | b[3];
}

/* A cells-long big-endian number (1 or 2 cells). */
static u64 read_cells(const u8 *p, int cells)
{
	u64 v = 0;

	for (int i = 0; i < cells; i++)
		v = (v << 32) | be32(p + 4 * i);
	return v;
}

/* Is the property value (len bytes, maybe not NUL-terminated) the string want? */
static bool value_is(const u8 *val, u32 len, const char *want)
{
	size_t n = strlen(want);

	return strnlen((const char *)val, len) == n && !memcmp(val, want, n);
}

/* Is `want` one of the NUL-separated strings of a property (compatible)? */
static bool string_list_has(const u8 *list, u32 len, const char *want)
{
	for (u32 i = 0; i < len; ) {
		size_t n = strnlen((const char *)list + i, len - i);

		if (value_is(list + i, len - i, want))
			return true;
		i += n + 1;
	}
	return false;
}

static void copy_bootargs(struct dt_info *dt, const u8 *val, u32 len)
{
	u32 n = strnlen((const char *)val, len);

	dt->bootargs_truncated = n >= sizeof(dt->bootargs);
	if (dt->bootargs_truncated)
		n = sizeof(dt->bootargs) - 1;
	memcpy(dt->bootargs, val, n);
	dt->bootargs[n] = '\0';
}

/* "/pl011@9000000:115200n8": the path, without the options. */
static void copy_stdout_path(char *path, const u8 *val, u32 len)
{
	u32 i;

	for (i = 0; i < len && i < PATH_SIZE - 1 && val[i] && val[i] != ':'; i++)
		path[i] = val[i];
	path[i] = '\0';
}

/*
 * One end of the initrd: a 32- or 64-bit number, by its length (the
 * binding allows both).  initrd_found once both were seen.
 */
static void initrd_bound(struct fdt_walk *w, u64 *bound, const char *name, const u8 *val,
			 u32 len)
{
	if (len != 4 && len != 8) {
		printk("fdt: /chosen's %s is %u bytes long, not 4 or 8: no initrd\n", name, len);
		w->initrd_bad = true;
		return;
	}
	*bound = read_cells(val, len / 4);
	w->initrd_seen |= bound == &w->dt->initrd_start ? 1 : 2;
}

static void property(struct fdt_walk *w, struct node *n, const char *name,
		     const u8 *val, u32 len)
{
	bool chosen = !strcmp(n->path, "/chosen");

	if (w->find_stdout) {
		if (chosen && !strcmp(name, "stdout-path"))
			copy_stdout_path(w->stdout_path, val, len);
		return;
	}
	if (!strcmp(name, "#address-cells") && len == 4)
		n->addr_cells = be32(val);
	else if (!strcmp(name, "#size-cells") && len == 4)
		n->size_cells = be32(val);
	else if (!strcmp(name, "reg"))
		n->reg = val, n->reg_len = len;
	else if (!strcmp(name, "interrupts"))
		n->interrupts = val, n->interrupts_len = len;
	else if (!strcmp(name, "compatible")) {
		n->gic = string_list_has(val, len, "arm,gic-v3");
		n->pl011 = string_list_has(val, len, "arm,pl011");
	} else if (!strcmp(name, "device_type")) {
		n->memory = value_is(val, len, "memory");
		n->cpu = value_is(val, len, "cpu");
	} else if (chosen && !strcmp(name, "bootargs"))
		copy_bootargs(w->dt, val, len);
	else if (chosen && !strcmp(name, "linux,initrd-start"))
		initrd_bound(w, &w->dt->initrd_start, name, val, len);
	else if (chosen && !strcmp(name, "linux,initrd-end"))
		initrd_bound(w, &w->dt->initrd_end, name, val, len);
	else if (!strcmp(n->path, "/psci") && !strcmp(name, "method")) {
		w->dt->psci_found = true;
		w->dt->psci_smc = value_is(val, len, "smc");
	}
}

static void add_memory(struct fdt_walk *w, const struct node *n, u64 start, u64 size)
{
	if (!size || start + size < start) {
		printk("fdt: %s: %#llx bytes at %#llx is not a memory range: ignored\n",
		       n->path, (unsigned long long)size, (unsigned long long)start);
		return;
	}
	w->dt->ram_start = start;
	w->dt->ram_size = size;
	w->memory_found = true;
}

static void add_cpu(struct fdt_walk *w, u64 mpidr)
{
	struct dt_info *dt = w->dt;

	for (int i = 0; i < dt->ncpus; i++) {
		if (dt->cpu_mpidr[i] == mpidr) {
			w->cpu_duplicates++;
			return;
		}
	}
	if (dt->ncpus < NR_CPUS)
		dt->cpu_mpidr[dt->ncpus++] = mpidr;
	dt->cpus_found++;
}

/*
 * The console UART's interrupt: its first specifier, which must name an
 * SPI (the GIC is the only interrupt controller the kernel drives).
 * Anything else leaves the console polled (uart_intid 0), said once.
 */
static void uart_interrupt(struct fdt_walk *w, const struct node *n)
{
	u32 type, num, flags;

	w->dt->uart_intid = 0;
	if (!n->interrupts) {
		printk("fdt: %s has no interrupts property: console input polled\n", n->path);
		return;
	}
	if (n->interrupts_len < GIC_SPEC_SIZE) {
		printk("fdt: %s: interrupts is %u bytes, not a GIC specifier (12): console input "
		       "polled\n", n->path, n->interrupts_len);
		return;
	}
	type = be32(n->interrupts);
	num = be32(n->interrupts + 4);
	flags = be32(n->interrupts + 8);
	if (type != GIC_SPEC_SPI || num >= GIC_SPI_COUNT) {
		printk("fdt: %s: interrupt <%u %u %#x> is not an SPI the GIC has: console input "
		       "polled\n", n->path, type, num, flags);
		return;
	}
	w->dt->uart_intid = GIC_SPI_BASE + num;
	w->dt->uart_irq_edge = flags & GIC_SPEC_EDGE;
}

/*
 * A node is complete: interpret its reg with its parent's cells (a node's
 * properties come before its children, so the parent's are known).
 */
static void end_node(struct fdt_walk *w, const struct node *n, const struct node *parent)
{
	int ac = parent->addr_cells, sc = parent->size_cells;
	u32 entry;

	if (w->find_stdout)
		return;
	/* The cells come from the tree: check them before any arithmetic on them. */
	if (!n->reg || ac < 1 || ac > 2 || sc < 0 || sc > 2 || n->reg_len < 4U * ac)
		return;
	entry = 4U * (ac + sc);
	if (n->memory && !w->memory_found && n->reg_len >= entry) {
		add_memory(w, n, read_cells(n->reg, ac), read_cells(n->reg + 4 * ac, sc));
	} else if (n->cpu && !strcmp(parent->path, "/cpus")) {
		add_cpu(w, read_cells(n->reg, ac));
	} else if (n->gic && n->reg_len >= 2 * entry) {
		w->dt->gicd_base = read_cells(n->reg, ac);
		w->dt->gicr_base = read_cells(n->reg + entry, ac);
		w->dt->gicr_size = sc ? read_cells(n->reg + entry + 4 * ac, sc) : 0;
	} else if (n->pl011 && (!strcmp(n->path, w->stdout_path) ||
				(!w->uart_found && !w->stdout_path[0]))) {
		w->dt->uart_base = read_cells(n->reg, ac);
		w->uart_found = true;
		uart_interrupt(w, n);
	}
}

/* Reported once, by the second walk (the first sees the same blob). */
static void bad(const struct fdt_walk *w, const char *what, u32 off)
{
	if (!w->find_stdout)
		printk("fdt: %s at offset %u of the structure block: ignoring the rest\n",
		       what, off);
}

/* Advances *off by n bytes, or to the block's end when they are not there. */
static void skip(u32 *off, u32 n, u32 size)
{
	*off = n > size - *off ? size : *off + n;
}

static void begin_node(struct node *stack, int depth, const char *name)
{
	struct node *n = &stack[depth];

	memset(n, 0, sizeof(*n));
	snprintf(n->path, sizeof(n->path), "%s/%s",
		 depth > 1 ? stack[depth - 1].path : "", depth ? name : "");
	/* The spec's defaults when a node does not say. */
	n->addr_cells = 2;
	n->size_cells = 1;
}

/* The property at s + off (after its token); false ends the walk. */
static bool prop(struct fdt_walk *w, struct node *n, const u8 *s, u32 size, u32 *off)
{
	u32 len, nameoff;
	const char *name;

	if (size - *off < FDT_PROP_HEADER) {
		bad(w, "a property header runs past the end", *off);
		return false;
	}
	len = be32(s + *off);
	nameoff = be32(s + *off + 4);
	if (len > size - *off - FDT_PROP_HEADER) {
		bad(w, "a property's length runs past the end", *off);
		return false;
	}
	if (nameoff >= w->strings_size ||
	    strnlen((const char *)w->strings + nameoff, w->strings_size - nameoff) ==
	    w->strings_size - nameoff) {
		bad(w, "a property name is outside the strings block", *off);
		return false;
	}
	name = (const char *)w->strings + nameoff;
	if (n)
		property(w, n, name, s + *off + FDT_PROP_HEADER, len);
	skip(off, FDT_PROP_HEADER + ALIGN_UP(len, FDT_TOKEN), size);
	return true;
}

/* One walk over the structure block s, size bytes. */
static void walk(struct fdt_walk *w, const u8 *s, u32 size)
{
	struct node stack[MAX_DEPTH];
	int depth = -1;
	u32 off = 0;

	while (size - off >= FDT_TOKEN) {
		u32 tok = be32(s + off);

		off += FDT_TOKEN;
		if (tok == FDT_BEGIN_NODE) {
			const char *name = (const char *)s + off;
			size_t len = strnlen(name, size - off);

			if (len == size - off) {
				bad(w, "a node name runs past the end", off);
				return;
			}
			skip(&off, ALIGN_UP(len + 1, FDT_TOKEN), size);
			if (++depth >= MAX_DEPTH) {
				bad(w, "nodes nested too deep", off);
				return;
			}
			begin_node(stack, depth, name);
		} else if (tok == FDT_PROP) {
			if (!prop(w, depth >= 0 ? &stack[depth] : NULL, s, size, &off))
				return;
		} else if (tok == FDT_END_NODE) {
			if (depth > 0)
				end_node(w, &stack[depth], &stack[depth - 1]);
			if (--depth < 0)
				return;
		} else if (tok == FDT_END) {
			return;
		} else if (tok != FDT_NOP) {
			bad(w, "an unknown token", off - FDT_TOKEN);
			return;
		}
	}
	bad(w, "the structure block ends without its end token", off);
}

/* Is [off, off + size) inside the blob's total bytes? */
static bool inside(u32 off, u32 size, u32 total)
{
	return off <= total && size <= total - off;
}

/* NULL when the header can be believed, else what is wrong with it. */
static const char *check_header(const struct fdt_header *h)
{
	u32 total = be32(&h->totalsize);

	if (total < sizeof(*h) || total > FDT_MAX_SIZE)
		return "its totalsize is not between the header's size and 2 MiB";
	if (be32(&h->version) < FDT_VERSION)
		return "its version is older than 17";
	if (!inside(be32(&h->off_dt_struct), be32(&h->size_dt_struct), total) ||
	    be32(&h->off_dt_struct) % FDT_TOKEN)
		return "its structure block is not inside it";
	if (!inside(be32(&h->off_dt_strings), be32(&h->size_dt_strings), total))
		return "its strings block is not inside it";
	return NULL;
}

/* Is [base, base + size) inside the device window?  (size 0 is not a device.) */
static bool in_device_window(u64 base, u64 size)
{
	return size && base >= DEVICE_WINDOW_START && base < DEVICE_WINDOW_END &&
	       size <= DEVICE_WINDOW_END - base;
}

/*
 * A device the tree puts outside the device window is refused: the
 * kernel's first access would fault, and with the UART there even the
 * panic report would fault, again and again, with no output.  QEMU
 * virt's address is kept instead, and the kernel says so on it.
 */
/* why: NULL for "outside the device window". */
static void refuse_device(const char *what, u64 *base, u64 size, u64 virt_base,
			  const char *why)
{
	char window[80];

	snprintf(window, sizeof(window), "is outside the device window the kernel maps "
		 "(%#lx to %#lx)", DEVICE_WINDOW_START, DEVICE_WINDOW_END);
	printk("fdt: the %s at %#llx (%#llx bytes) %s: refused, using QEMU virt's at %#llx\n",
	       what, (unsigned long long)*base, (unsigned long long)size, why ? why : window,
	       (unsigned long long)virt_base);
	*base = virt_base;
}

/*
 * The devices, then the CPUs the first redistributor region has frames
 * for: QEMU virt puts the redistributors of CPUs beyond 123 in a second
 * region above 4 GiB, which the kernel does not map.
 */
static void check_devices(struct dt_info *dt)
{
	u64 frames;

	if (!in_device_window(dt->uart_base, UART_SIZE))
		refuse_device("UART", &dt->uart_base, UART_SIZE, VIRT_UART, NULL);
	if (!in_device_window(dt->gicd_base, GICD_SIZE))
		refuse_device("GIC distributor", &dt->gicd_base, GICD_SIZE, VIRT_GICD,
			      NULL);
	if (!in_device_window(dt->gicr_base, dt->gicr_size) || dt->gicr_size < GICR_FRAME_SIZE) {
		refuse_device("GIC redistributor region", &dt->gicr_base, dt->gicr_size, VIRT_GICR,
			      dt->gicr_size < GICR_FRAME_SIZE ? "holds no redistributor frame" :
			      NULL);
		dt->gicr_size = VIRT_GICR_SIZE;
	}
	frames = dt->gicr_size / GICR_FRAME_SIZE;
	if ((u64)dt->ncpus > frames) {
		printk("fdt: the GIC's first redistributor region has frames for %llu CPUs; the "
		       "other %llu need its second region, which this kernel does not map: "
		       "bringing up the first %llu\n", (unsigned long long)frames,
		       (unsigned long long)(dt->ncpus - frames), (unsigned long long)frames);
		dt->ncpus = frames;
	}
}

void fdt_parse(struct dt_info *dt, const void *blob)
{
	const struct fdt_header *h = blob;
	const u8 *base = blob;
	struct fdt_walk w = { .dt = dt };
	const char *why;

	if (!blob || be32(&h->magic) != FDT_MAGIC) {
		printk("fdt: no device tree at %p: assuming QEMU virt, one CPU, %llu MiB\n",
		       blob, (unsigned long long)(dt->ram_size >> 20));
		return;
	}
	why = check_header(h);
	if (why) {
		printk("fdt: the device tree at %p is refused: %s: assuming QEMU virt, "
		       "one CPU, %llu MiB\n", blob, why, (unsigned long long)(dt->ram_size >> 20));
		return;
	}
	w.strings = base + be32(&h->off_dt_strings);
	w.strings_size = be32(&h->size_dt_strings);
	/*
	 * Two walks: /chosen's stdout-path may come after the UART's node.
	 * The first finds it; the second reads everything else.
	 */
	w.find_stdout = true;
	walk(&w, base + be32(&h->off_dt_struct), be32(&h->size_dt_struct));
	w.find_stdout = false;
	walk(&w, base + be32(&h->off_dt_struct), be32(&h->size_dt_struct));
	if (w.cpu_duplicates)
		printk("fdt: %d CPU nodes repeat an MPIDR already listed: each CPU counted once\n",
		       w.cpu_duplicates);
	check_devices(dt);
	dt->fdt_start = (uintptr_t)blob;
	dt->fdt_size = max(be32(&h->off_dt_struct) + be32(&h->size_dt_struct),
			   be32(&h->off_dt_strings) + be32(&h->size_dt_strings));
	dt->initrd_found = w.initrd_seen == 3 && !w.initrd_bad;
	if (w.initrd_seen && w.initrd_seen != 3 && !w.initrd_bad)
		printk("fdt: /chosen has linux,initrd-%s but not linux,initrd-%s: no initrd\n",
		       w.initrd_seen == 1 ? "start" : "end", w.initrd_seen == 1 ? "end" : "start");
}
