/*
 * AArch64: an exclusive load from an address that is not a multiple of
 * its size raises an alignment fault whatever SCTLR_EL1.A says: killed
 * ("alignment fault"), as Linux sends SIGBUS.
 */
#include <stdint.h>
#include <stdio.h>

static uint64_t words[2];

int main(void)
{
	uint64_t v;

	printf("an exclusive load from %p\n", (void *)((char *)words + 1));
	__asm__ __volatile__("ldxr %0, [%1]" : "=r"(v) : "r"((char *)words + 1) : "memory");
	printf("loaded %llx\n", (unsigned long long)v);
	return 0;
}
