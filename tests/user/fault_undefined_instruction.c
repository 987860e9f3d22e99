/* An undefined instruction in user mode: killed ("invalid opcode"/"undefined instruction"). */
#include <stdio.h>

int main(void)
{
	printf("executing an undefined instruction\n");
#if defined(__aarch64__)
	__asm__ __volatile__("udf #0");
#else
	__asm__ __volatile__("ud2");
#endif
	return 0;
}
