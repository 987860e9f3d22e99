/* AArch64: what a user address space needs of the arch (kernel/user/mm.h). */
#ifndef ASM_MM_H
#define ASM_MM_H

#include "types.h"

struct arch_mm {
	u64 *l0;		/* its level-0 table: entry 0 is the kernel's */
	long table_pages;	/* page tables it holds, the L0 included */
};

#endif
