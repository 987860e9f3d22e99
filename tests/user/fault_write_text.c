/* Writing to the program's own text: killed (text is never writable). */
#include <stdio.h>

int main(void)
{
	volatile unsigned char *text = (volatile unsigned char *)(void *)main;

	printf("writing over main() at %p\n", (void *)text);
	*text = 0xc3;
	return 0;
}
