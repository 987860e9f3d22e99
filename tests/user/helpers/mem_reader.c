/*
 * mem_reader: maps the memory capability in slot 0 read-only, signals the
 * notification in slot 1, then reads the memory for ever -- until the
 * mapping goes (tests/user/cap_memory.c revokes it: a fault kills us).
 */
#include "qcap.h"

int main(void)
{
	long addr = q_memory_map(0, 0, SYS_PROT_READ);
	volatile unsigned long *p = (volatile unsigned long *)addr;
	unsigned long sum = 0;

	if (SYS_IS_ERROR(addr) || q_signal(1, 1))
		return 1;
	for (;;)
		sum += p[sum % 512];
	return 0;
}
