/* Jumping into the kernel's code from user mode: killed (the page is supervisor-only). */
#include <stdio.h>

int main(void)
{
	void (*kernel_code)(void) = (void (*)(void))0x100000;

	printf("calling the kernel at %p\n", (void *)kernel_code);
	kernel_code();
	return 0;
}
