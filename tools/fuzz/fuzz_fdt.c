/*
 * Fuzz target: arch/aarch64/fdt.c, the flattened device tree.
 *
 * The input is the blob.  Its totalsize word is all the kernel has to know
 * where the blob ends, so the harness makes it true (no larger than the
 * input) and gives the blob an allocation of exactly that size: ASan
 * catches any read past what the kernel may trust.  Each input is parsed
 * into a fresh copy of QEMU virt's defaults (the kernel's `dt`); one input
 * in eight (chosen by its bytes, so a replay does the same) is parsed a
 * second time, and both results must agree: no state carries over.
 * Properties:
 *   - at most NR_CPUS CPUs kept, none twice, no more than were found;
 *   - the memory range taken is non-empty and does not wrap;
 *   - the UART, the GIC distributor and its redistributor region lie in
 *     the device window the kernel maps, whatever the tree says; a device
 *     refused is reported and replaced by QEMU virt's; no more CPUs are
 *     kept than the redistributor region has frames for, and a cut below
 *     what the tree lists (and NR_CPUS allows) is reported;
 *   - the command line is a terminated string, marked truncated only when
 *     it fills its buffer;
 *   - nothing is read or written out of bounds (ASan, UBSan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "aarch64.h"
#include "shim/shim.h"

#define HEADER_WORDS	8	/* magic and totalsize are read first */

static bool in_window(u64 base, u64 size)
{
	return base >= DEVICE_WINDOW_START && base < DEVICE_WINDOW_END &&
	       size <= DEVICE_WINDOW_END - base;
}

static void check(const struct dt_info *d)
{
	CHECK(d->ncpus >= 0 && d->ncpus <= NR_CPUS && d->ncpus <= d->cpus_found,
	      "%d CPUs kept of %d found", d->ncpus, d->cpus_found);
	for (int i = 0; i < d->ncpus; i++)
		for (int j = 0; j < i; j++)
			CHECK(d->cpu_mpidr[i] != d->cpu_mpidr[j], "MPIDR %#llx kept twice",
			      (unsigned long long)d->cpu_mpidr[i]);
	CHECK(d->ram_size && d->ram_start + d->ram_size > d->ram_start,
	      "memory %#llx + %#llx", (unsigned long long)d->ram_start,
	      (unsigned long long)d->ram_size);
	CHECK(in_window(d->uart_base, UART_SIZE), "UART at %#llx", (unsigned long long)d->uart_base);
	CHECK(in_window(d->gicd_base, GICD_SIZE), "GICD at %#llx", (unsigned long long)d->gicd_base);
	CHECK(in_window(d->gicr_base, d->gicr_size) && d->gicr_size >= GICR_FRAME_SIZE,
	      "GICR region at %#llx, %#llx bytes", (unsigned long long)d->gicr_base,
	      (unsigned long long)d->gicr_size);
	CHECK((u64)d->ncpus <= d->gicr_size / GICR_FRAME_SIZE,
	      "%d CPUs kept, the redistributor region has frames for %llu", d->ncpus,
	      (unsigned long long)(d->gicr_size / GICR_FRAME_SIZE));
	CHECK(!shim_count_lines("fdt: the UART at ") || d->uart_base == dt.uart_base,
	      "a UART refused, yet not QEMU virt's");
	CHECK(!shim_count_lines("fdt: the GIC distributor at ") || d->gicd_base == dt.gicd_base,
	      "a GIC distributor refused, yet not QEMU virt's");
	CHECK(!shim_count_lines("fdt: the GIC redistributor region at ") ||
	      (d->gicr_base == dt.gicr_base && d->gicr_size == dt.gicr_size),
	      "a redistributor region refused, yet not QEMU virt's");
	CHECK(d->ncpus == (d->cpus_found < NR_CPUS ? d->cpus_found : NR_CPUS) ||
	      shim_count_lines("fdt: the GIC's first redistributor region has frames for "),
	      "%d CPUs kept of %d found, and no word of a cut", d->ncpus, d->cpus_found);
	CHECK(memchr(d->bootargs, '\0', sizeof(d->bootargs)), "bootargs not terminated");
	CHECK(!d->bootargs_truncated || strlen(d->bootargs) == sizeof(d->bootargs) - 1,
	      "short bootargs marked truncated");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = size < HEADER_WORDS ? HEADER_WORDS : size;
	u8 *blob = calloc(1, len);
	struct dt_info *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	u32 total;

	memcpy(blob, data, size);
	total = (u32)blob[4] << 24 | blob[5] << 16 | blob[6] << 8 | blob[7];
	if (total > len || total < HEADER_WORDS) {
		total = total > len ? len : HEADER_WORDS;
		blob[4] = total >> 24, blob[5] = total >> 16, blob[6] = total >> 8, blob[7] = total;
	}
	if (total < len)
		blob = shim_exact(blob, total);
	shim_reset();
	*a = dt;
	fdt_parse(a, blob);
	check(a);
	shim_summary("%d CPUs kept of %d found, RAM %#llx + %#llx, UART %#llx INTID %u %s, "
		     "GIC %#llx %#llx, PSCI %s, bootargs '%s'", a->ncpus, a->cpus_found,
		     (unsigned long long)a->ram_start, (unsigned long long)a->ram_size,
		     (unsigned long long)a->uart_base, a->uart_intid,
		     a->uart_irq_edge ? "edge" : "level", (unsigned long long)a->gicd_base,
		     (unsigned long long)a->gicr_base,
		     a->psci_found ? (a->psci_smc ? "smc" : "hvc") : "none", a->bootargs);
	if (size && data[size / 2] % 8 == 0) {
		*b = dt;
		fdt_parse(b, blob);
		CHECK(!memcmp(a, b, sizeof(*a)),
		      "a second parse of the same blob gave another result");
	}
	free(a);
	free(b);
	free(blob);
	return 0;
}
