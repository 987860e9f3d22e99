/* x86-64: what a user address space needs of the arch (kernel/user/mm.h). */
#ifndef ASM_MM_H
#define ASM_MM_H

#include "types.h"

struct arch_mm {
	u64 *pml4;		/* its top-level table: entry 0 is the kernel's (arch/x86_64/user_mm.c) */
	long table_pages;	/* page tables it holds, the PML4 included */
};

#endif
