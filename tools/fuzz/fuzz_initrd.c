/*
 * Fuzz target: arch/aarch64/initrd.c, the initrd of boot modules (the
 * format tools/arm64_image.py writes).
 *
 * The input is the initrd, in an allocation of exactly its size (ASan
 * catches a read past it), handed to initrd_parse() with room for
 * MAX_MODULES modules, and once more with room for one.  Properties:
 *   - no more modules than room, nor than the header's count; with room
 *     for one, the first module alone, and the rest reported;
 *   - each module's bytes and its command line lie inside the initrd, the
 *     command line a string ending inside it; no two modules' bytes, nor a
 *     module and any command line, overlap; they come in the initrd's order;
 *   - every module the count promised but that was not kept, and any byte
 *     after the last one, is reported by an "initrd:" line, and an initrd
 *     read whole says nothing;
 *   - written back in the format (as tools/arm64_image.py would) and read
 *     again, the modules come back the same, with nothing reported: a
 *     well-formed initrd is always taken;
 *   - nothing is read or written out of bounds (ASan, UBSan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "aarch64.h"
#include "shim/shim.h"

#define MAX_MODULES	16

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* The modules written in the format; *len its size. */
static u8 *repack(const struct boot_module_desc *m, int n, size_t *len)
{
	size_t size = 16, off = 16;
	u8 *out;

	for (int i = 0; i < n; i++)
		size += 16 + pad8(strlen(m[i].cmdline) + 1) + pad8(m[i].end - m[i].start);
	out = calloc(1, size);
	memcpy(out, "QMODULES", 8);
	out[8] = 1;
	memcpy(out + 12, &n, 4);	/* (little-endian host) */
	for (int i = 0; i < n; i++) {
		u32 c = strlen(m[i].cmdline) + 1;
		u64 f = m[i].end - m[i].start;

		memcpy(out + off, &c, 4);
		memcpy(out + off + 8, &f, 8);
		off += 16;
		memcpy(out + off, m[i].cmdline, c);
		off += pad8(c);
		memcpy(out + off, (const void *)m[i].start, f);
		off += pad8(f);
	}
	*len = size;
	return out;
}

static void check(const u8 *buf, size_t size, const struct boot_module_desc *m, int n, int max)
{
	uintptr_t lo = (uintptr_t)buf, hi = lo + size;

	CHECK(n >= 0 && n <= max, "%d modules kept with room for %d", n, max);
	for (int i = 0; i < n; i++) {
		uintptr_t c = (uintptr_t)m[i].cmdline;

		CHECK(m[i].start >= lo && m[i].start <= m[i].end && m[i].end <= hi,
		      "module %d's bytes are not inside the initrd", i);
		CHECK(c >= lo && c < hi && memchr(m[i].cmdline, '\0', hi - c),
		      "module %d's command line does not end inside the initrd", i);
		CHECK(c + strlen(m[i].cmdline) < m[i].start, "module %d: cmdline after its bytes", i);
		if (i)
			CHECK(m[i - 1].end <= c, "module %d overlaps module %d", i - 1, i);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u8 *buf = malloc(size ? size : 1);
	struct boot_module_desc m[MAX_MODULES], again[MAX_MODULES];
	int max = MAX_MODULES;
	u32 count = 0;
	size_t len;
	u8 *packed;
	int n, n2, said;

	memcpy(buf, data, size);
	if (size >= 16)
		memcpy(&count, buf + 12, 4);
	shim_reset();
	n = initrd_parse(buf, size, m, max);
	check(buf, size, m, n, max);
	said = shim_count_lines("initrd:");
	shim_summary("%d modules kept (room for %d, count %u)", n, max, count);
	if (size >= 16 && !memcmp(buf, "QMODULES", 8) && buf[8] == 1 && !buf[9] && !buf[10] &&
	    !buf[11]) {
		CHECK((u32)n <= count, "%d modules kept of %u", n, count);
		CHECK((u32)n == count || said,
		      "%d of %u modules kept, nothing said", n, count);
	} else {
		CHECK(n == 0 && said == 1, "a refused header, but %d modules", n);
	}
	if (n > 1) {
		shim_reset();
		CHECK(initrd_parse(buf, size, again, 1) == 1 && again[0].start == m[0].start &&
		      shim_count_lines("initrd:"), "room for one: not the first module alone, reported");
	}
	packed = repack(m, n, &len);
	if (len == size && !memcmp(packed, buf, size))
		CHECK(!said, "a well-formed initrd was reported on");
	shim_reset();
	n2 = initrd_parse(packed, len, again, MAX_MODULES);
	CHECK(n2 == n && !shim_count_lines("initrd:"), "the repacked initrd gave %d modules, not %d",
	      n2, n);
	for (int i = 0; i < n; i++)
		CHECK(!strcmp(again[i].cmdline, m[i].cmdline) &&
		      again[i].end - again[i].start == m[i].end - m[i].start &&
		      !memcmp((const void *)again[i].start, (const void *)m[i].start,
			      m[i].end - m[i].start), "module %d differs once repacked", i);
	free(packed);
	free(buf);
	return 0;
}
