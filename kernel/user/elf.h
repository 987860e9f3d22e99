/*
 * The ELF loader's checks (kernel/user/elf.c): an ELF64 executable is
 * read from a boot module, which is input the kernel did not write, so
 * nothing in it is believed before it is checked.  elf_parse() reads only
 * the bytes it is handed and fills a struct elf_image, or says in words
 * why it refuses: tools/fuzz/ runs this same code on arbitrary bytes.
 * Loading the checked segments into an address space is exec.c's.
 */
#ifndef KERNEL_USER_ELF_H
#define KERNEL_USER_ELF_H

#include "types.h"

#define ELF_MAX_SEGMENTS	8	/* loadable segments a program may have */
#define ELF_MAX_MEMSZ		(64UL << 20)	/* a program's segments, in all */

struct elf_segment {
	u64 vaddr, memsz;		/* where, how much: [vaddr, vaddr + memsz) */
	u64 offset, filesz;		/* what of the file fills its start */
	int prot;			/* SYS_PROT_* */
};

struct elf_image {
	u64 entry;
	int nsegs;
	struct elf_segment segs[ELF_MAX_SEGMENTS];
};

/*
 * Checks image (size bytes) is an ELF64 executable for machine that fits
 * in [lo, hi): 0 and *out filled, or -1 with why (a sentence, no newline).
 */
int elf_parse(const void *image, size_t size, u16 machine, u64 lo, u64 hi,
	      struct elf_image *out, char *why, size_t why_len);

#endif
