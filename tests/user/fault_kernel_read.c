/* Reading the kernel's memory from user mode (its first 512 GiB, supervisor-only): killed. */
#include <stdint.h>
#include <stdio.h>

int main(void)
{
	volatile uint64_t *kernel = (volatile uint64_t *)0x100000;	/* where it is linked */

	printf("reading the kernel at %p\n", (void *)kernel);
	return (int)*kernel;
}
