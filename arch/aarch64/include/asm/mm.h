/* AArch64: what a user address space needs of the arch (kernel/user/mm.h, arch/aarch64/user_mm.c). */
#ifndef ASM_MM_H
#define ASM_MM_H

#include "types.h"
#include "cpumask.h"

struct quota;

struct arch_mm {
	u64 *l0;		/* its level-0 table: entry 0 is the kernel's */
	long table_pages;	/* page tables it holds, the L0 included */
	struct quota *quota;	/* what they are charged to (kernel/user/pgtable.c; NULL: nobody) */
	u16 asid;		/* its address-space ID (user_mm.c) */
	bool asid_shared;	/* the last ASID, shared: flushed at every load */
	struct cpumask stale;	/* CPUs to drop its ASID's TLB entries before they load it */
};

#endif
