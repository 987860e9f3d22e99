/* A privileged instruction in user mode (x86-64 hlt, AArch64 msr to an EL1 register): killed. */
#include <stdio.h>

int main(void)
{
	printf("executing a privileged instruction\n");
#if defined(__aarch64__)
	__asm__ __volatile__("msr daifset, #2");	/* trapped at EL0 unless SCTLR.UMA */
	__asm__ __volatile__("mrs x0, sctlr_el1" ::: "x0");
#else
	__asm__ __volatile__("hlt");
#endif
	return 0;
}
