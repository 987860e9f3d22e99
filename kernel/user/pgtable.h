/*
 * The radix tree both architectures' user page tables are (pgtable.c):
 * four levels of 512 eight-byte entries over 4 KiB pages (x86-64's
 * PML4, PDPT, PD and PT; AArch64's levels 0 to 3).  Only what the bits of
 * an entry mean differs: the arch says it (struct pt_bits) and writes the
 * last level's entries itself (arch/<arch>/user_mm.c); this walks the
 * levels, adds the tables a walk needs and frees them, counts every
 * table page for the leak check, and charges each to the address
 * space's quota (q; NULL: nobody's, a kernel test's own address space).
 */
#ifndef KERNEL_USER_PGTABLE_H
#define KERNEL_USER_PGTABLE_H

#include "kernel.h"

struct pt_bits {
	u64 valid;		/* set in every valid entry */
	u64 addr;		/* where the next table, or the page, is */
	u64 table;		/* an entry we write for a new table: its bits besides the address */
};

struct quota;

/*
 * A zeroed table, counted in *pages and in pt_table_pages() and charged
 * to q, never waiting for it; NULL: no memory, or q is spent.
 */
u64 *pt_alloc_table(long *pages, struct quota *q);
/*
 * The last-level entry of user address va under top; with create, the
 * missing tables are added (NULL: no memory, or q is spent); without,
 * NULL if one is missing.  A va outside user space is a kernel bug.
 */
u64 *pt_walk(u64 *top, uintptr_t va, bool create, const struct pt_bits *b, long *pages,
	     struct quota *q);
/*
 * Frees the tables under top's entries [first, end), then top: every page
 * unmapped first (one still mapped is a kernel bug).
 */
void pt_free(u64 *top, int first, int end, const struct pt_bits *b, long *pages,
	     struct quota *q);
/* The table pages of every user address space now. */
long pt_table_pages(void);

#endif
