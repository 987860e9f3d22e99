/*
 * The kernel's own symbol table, for symbolized backtraces.  The build
 * links the kernel twice: the second link embeds the function addresses
 * and names of the first (tools/ksyms.py writes them as .ksyms).
 */
#include "kernel.h"

struct ksym {
	u64 addr;
	u32 size;
	u32 name;	/* offset into ksym_names */
};

extern const struct ksym ksym_table[];
extern const u64 ksym_count;
extern const char ksym_names[];

const char *ksym_lookup(uintptr_t addr, uintptr_t *offset, uintptr_t *size)
{
	u64 lo = 0, hi = ksym_count;

	/* Binary search for the last symbol at or below addr. */
	while (lo < hi) {
		u64 mid = (lo + hi) / 2;

		if (ksym_table[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct ksym *s = &ksym_table[lo - 1];
	if (addr >= s->addr + s->size)
		return NULL;	/* past the function: not code we know */
	*offset = addr - s->addr;
	*size = s->size;
	return ksym_names + s->name;
}
