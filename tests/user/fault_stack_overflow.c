/*
 * Unbounded recursion runs the stack into the unmapped guard page below
 * it: killed, and the report says "stack overflow".
 */
#include <stdio.h>

static int limit = 1 << 30;	/* never reached: the stack ends first */

static int deeper(volatile char *prev, int depth)
{
	volatile char frame[512];

	frame[0] = prev ? prev[0] + 1 : 0;
	if (depth == limit)
		return frame[0];
	return deeper(frame, depth + 1) + frame[1];
}

int main(void)
{
	printf("recursing without end\n");
	return deeper(NULL, 0);
}
