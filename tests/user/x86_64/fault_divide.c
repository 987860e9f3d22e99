/* An integer division by zero (x86-64 raises #DE; AArch64 returns 0, so no test there): killed. */
#include <stdio.h>

int main(int argc, char **argv)
{
	volatile int zero = argc - 1;	/* 0, and the compiler cannot know it */

	(void)argv;
	printf("dividing by zero\n");
	return 100 / zero;
}
