/*
 * Fuzz target: kernel/user/elf.c, the ELF loader's checks of a program
 * from a boot module.
 *
 * The input is the file.  It sits in an allocation of exactly its size, so
 * ASan catches a read past its end.  Properties:
 *   - a refusal says why: one line of text, no newline, not empty;
 *   - an accepted file has 1 to ELF_MAX_SEGMENTS segments, each inside
 *     user space [lo, hi), its file bytes inside the file, no more file
 *     bytes than memory, readable, never writable and executable, no two
 *     sharing a page, at most ELF_MAX_MEMSZ in all; and its entry point
 *     lies in an executable segment;
 *   - a second parse of the same bytes says the same (nothing carried over);
 *   - nothing is read or written out of bounds (ASan, UBSan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "user/elf.h"
#include "syscall.h"
#include "user_layout.h"
#include "shim/shim.h"

#define MACHINE		62	/* EM_X86_64: the seeds are x86-64 programs */
#define PAGE		4096ULL

static void check_image(const struct elf_image *img, size_t size)
{
	u64 total = 0;
	bool entry_ok = false;

	CHECK(img->nsegs >= 1 && img->nsegs <= ELF_MAX_SEGMENTS, "%d segments", img->nsegs);
	for (int i = 0; i < img->nsegs; i++) {
		const struct elf_segment *s = &img->segs[i];

		CHECK(s->memsz && s->vaddr >= USER_BASE && s->vaddr < USER_TOP &&
		      s->memsz <= USER_TOP - s->vaddr, "segment %d outside user space", i);
		CHECK(s->filesz <= s->memsz, "segment %d: more file than memory", i);
		CHECK(s->offset <= size && s->filesz <= size - s->offset,
		      "segment %d: file bytes outside the file", i);
		CHECK(s->prot & SYS_PROT_READ, "segment %d not readable", i);
		CHECK((s->prot & (SYS_PROT_WRITE | SYS_PROT_EXEC)) !=
		      (SYS_PROT_WRITE | SYS_PROT_EXEC), "segment %d is W+X", i);
		for (int j = 0; j < i; j++) {
			const struct elf_segment *o = &img->segs[j];
			u64 a0 = s->vaddr / PAGE, a1 = (s->vaddr + s->memsz - 1) / PAGE;
			u64 b0 = o->vaddr / PAGE, b1 = (o->vaddr + o->memsz - 1) / PAGE;

			CHECK(a1 < b0 || b1 < a0, "segments %d and %d share a page", j, i);
		}
		total += s->memsz;
		if ((s->prot & SYS_PROT_EXEC) && img->entry >= s->vaddr &&
		    img->entry - s->vaddr < s->memsz)
			entry_ok = true;
	}
	CHECK(total <= ELF_MAX_MEMSZ, "%llu bytes of segments", (unsigned long long)total);
	CHECK(entry_ok, "the entry point is in no executable segment");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u8 *file = malloc(size ? size : 1);
	struct elf_image img, again;
	char why[128], why2[128];
	int r, r2;

	memcpy(file, data, size);
	shim_reset();
	r = elf_parse(file, size, MACHINE, USER_BASE, USER_TOP, &img, why, sizeof(why));
	if (r) {
		CHECK(r == -1, "elf_parse() returned %d", r);
		CHECK(why[0] && !strchr(why, '\n'), "a refusal without a one-line reason: '%s'", why);
		shim_summary("refused: %s", why);
	} else {
		check_image(&img, size);
		shim_summary("accepted: %d segments, entry %#llx", img.nsegs,
			     (unsigned long long)img.entry);
	}
	r2 = elf_parse(file, size, MACHINE, USER_BASE, USER_TOP, &again, why2, sizeof(why2));
	CHECK(r2 == r && (r ? !strcmp(why, why2) : !memcmp(&img, &again, sizeof(img))),
	      "a second parse disagrees");
	free(file);
	return 0;
}
