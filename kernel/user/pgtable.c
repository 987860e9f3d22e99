/*
 * Walking, growing and freeing the user page tables of both
 * architectures (pgtable.h).  The tables are reached through the
 * kernel's identity map: an entry's address is the table's.  Each table
 * page is charged to the address space's quota, and a walk that would
 * go past it fails as one without memory does; it is charged with
 * mm->lock held, so the charge never waits (quota_try_charge(): mm.c
 * reclaims once it has let go).
 */
#include "user/pgtable.h"
#include "user_layout.h"
#include "object/quota.h"

#define LEVELS		4
#define ENTRIES		512
#define TOP_SHIFT	39	/* 512 GiB per top-level entry */

static atomic_long_t table_pages;

u64 *pt_alloc_table(long *pages, struct quota *q)
{
	u64 *t;

	if (q && !quota_try_charge(q, QUOTA_TABLES, PAGE_SIZE))
		return NULL;
	t = page_alloc(1);
	if (!t) {
		if (q)
			quota_uncharge(q, QUOTA_TABLES, PAGE_SIZE);
		return NULL;
	}
	memset(t, 0, PAGE_SIZE);
	(*pages)++;
	atomic_long_inc(&table_pages);
	return t;
}

static void free_table(u64 *t, long *pages, struct quota *q)
{
	page_free(t, 1);
	if (q)
		quota_uncharge(q, QUOTA_TABLES, PAGE_SIZE);
	(*pages)--;
	atomic_long_dec(&table_pages);
}

u64 *pt_walk(u64 *top, uintptr_t va, bool create, const struct pt_bits *b, long *pages,
	     struct quota *q)
{
	u64 *table = top;

	if (va < USER_BASE || va >= USER_TOP)
		panic("BUG: user page table walk for %#lx, outside user space", (unsigned long)va);
	for (int shift = TOP_SHIFT; shift > PAGE_SHIFT; shift -= 9) {
		u64 *e = &table[(va >> shift) % ENTRIES];

		if (!(*e & b->valid)) {
			u64 *next = create ? pt_alloc_table(pages, q) : NULL;

			if (!next)
				return NULL;
			/*
			 * [pt_table_wmb] pairs [hw_table_walk]: the new
			 * table's zeroes are visible to a table walker before
			 * the entry that leads to it, or it could take
			 * garbage for entries (a compiler barrier on x86-64,
			 * whose stores are seen in order; dmb ishst on AArch64).
			 */
			smp_wmb();
			WRITE_ONCE(*e, (uintptr_t)next | b->table);
		}
		table = (u64 *)(uintptr_t)(*e & b->addr);
	}
	return &table[(va >> PAGE_SHIFT) % ENTRIES];
}

/* Frees the tables under a table at `level` (1: its entries are pages), then it. */
static void free_level(u64 *table, int level, const struct pt_bits *b, long *pages,
		       struct quota *q)
{
	for (int i = 0; i < ENTRIES; i++) {
		if (!(table[i] & b->valid))
			continue;
		if (level == 1)
			panic("BUG: freeing a user page table that still maps %#llx",
			      (unsigned long long)(table[i] & b->addr));
		free_level((u64 *)(uintptr_t)(table[i] & b->addr), level - 1, b, pages, q);
	}
	free_table(table, pages, q);
}

void pt_free(u64 *top, int first, int end, const struct pt_bits *b, long *pages,
	     struct quota *q)
{
	for (int i = first; i < end; i++)
		if (top[i] & b->valid)
			free_level((u64 *)(uintptr_t)(top[i] & b->addr), LEVELS - 1, b, pages, q);
	free_table(top, pages, q);
	if (*pages)
		panic("BUG: user page tables: %ld pages unaccounted for", *pages);
}

long pt_table_pages(void)
{
	return atomic_long_read(&table_pages);
}
