/* A NULL pointer read in user mode: the kernel kills the task, nothing else. */
#include <stdio.h>

int main(void)
{
	volatile int *p = NULL;

	printf("reading *NULL\n");
	return *p;
}
