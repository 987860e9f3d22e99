/* Writing the kernel's memory from user mode: killed, and the kernel goes on unharmed. */
#include <stdint.h>
#include <stdio.h>

int main(void)
{
	volatile uint64_t *kernel = (volatile uint64_t *)0x200000;

	printf("writing the kernel at %p\n", (void *)kernel);
	*kernel = 0xbad;
	return 0;
}
