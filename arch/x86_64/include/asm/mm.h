/* x86-64: what a user address space needs of the arch (kernel/user/mm.h). */
#ifndef ASM_MM_H
#define ASM_MM_H

#include "types.h"

#define IO_RANGES	4	/* port ranges one address space may be granted */

struct quota;

struct arch_mm {
	u64 *pml4;		/* its top-level table: entry 0 is the kernel's (arch/x86_64/user_mm.c) */
	long table_pages;	/* page tables it holds, the PML4 included */
	struct quota *quota;	/* what they are charged to (kernel/user/pgtable.c; NULL: nobody) */
	/*
	 * The I/O port ranges user mode may use (arch_io_grant()): each first
	 * port | count << 16, one word so a CPU loading it never sees half a
	 * range; 0: none.  Each CPU's TSS bitmap is rewritten from them when
	 * the CPU switches to this address space (cpu_tables.c x86_io_load()).
	 */
	u32 io_ports[IO_RANGES];
	/*
	 * How many grants each range stands for (mm->lock): two devices with
	 * the same ports, or one mapped twice, share a range, and it goes
	 * with the last of their revokes, not the first.
	 */
	unsigned int io_grants[IO_RANGES];
};

#endif
