/*
 * The radix tree both architectures' user page tables are (pgtable.c):
 * four levels of 512 eight-byte entries over 4 KiB pages (x86-64's
 * PML4, PDPT, PD and PT; AArch64's levels 0 to 3).  Only what the bits of
 * an entry mean differs: the arch says it (struct pt_bits) and writes the
 * last level's entries itself (arch/<arch>/user_mm.c); this walks the
 * levels, adds the tables a walk needs and frees them, and counts every
 * table page for the leak check.
 */
#ifndef KERNEL_USER_PGTABLE_H
#define KERNEL_USER_PGTABLE_H

#include "kernel.h"

struct pt_bits {
	u64 valid;		/* set in every valid entry */
	u64 addr;		/* where the next table, or the page, is */
	u64 table;		/* an entry we write for a new table: its bits besides the address */
};

/* A zeroed table, counted in *pages and in pt_table_pages(); NULL: no memory. */
u64 *pt_alloc_table(long *pages);
/*
 * The last-level entry of user address va under top; with create, the
 * missing tables are added (NULL: no memory); without, NULL if one is
 * missing.  A va outside user space is a kernel bug.
 */
u64 *pt_walk(u64 *top, uintptr_t va, bool create, const struct pt_bits *b, long *pages);
/*
 * Frees the tables under top's entries [first, end), then top: every page
 * unmapped first (one still mapped is a kernel bug).
 */
void pt_free(u64 *top, int first, int end, const struct pt_bits *b, long *pages);
/* The table pages of every user address space now. */
long pt_table_pages(void);

#endif
