/*
 * newlib built for user mode works: formatted output with every length
 * modifier, malloc of small and large blocks (the heap grows by mapping),
 * qsort, strtod, setjmp/longjmp, errno.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "utest.h"


static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static void check_printf(void)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%lld %llu %zu %lx %s %5.2f", -5LL, 18446744073709551615ULL,
		 (size_t)42, 0xabcdefUL, "str", 3.14159);
	CHECK(!strcmp(buf, "-5 18446744073709551615 42 abcdef str  3.14"));
	snprintf(buf, sizeof(buf), "%e %g", 12345.678, 0.0001);
	CHECK(!strcmp(buf, "1.234568e+04 0.0001"));
}

static void check_malloc(void)
{
	char *small[64], *big = malloc(1 << 20);

	CHECK(big != NULL);
	if (big) {
		memset(big, 0x5a, 1 << 20);
		CHECK(big[(1 << 20) - 1] == 0x5a);
	}
	for (int i = 0; i < 64; i++) {
		small[i] = malloc(16 + i * 8);
		CHECK(small[i] != NULL);
		if (small[i])
			memset(small[i], i, 16 + i * 8);
	}
	for (int i = 0; i < 64; i++) {
		if (small[i])
			CHECK(small[i][15 + i * 8] == (char)i);
		free(small[i]);
	}
	free(big);
}

static void check_qsort_strtod(void)
{
	int v[100];
	char *end;

	for (int i = 0; i < 100; i++)
		v[i] = (i * 7919) % 100;
	qsort(v, 100, sizeof(v[0]), cmp_int);
	for (int i = 0; i < 100; i++)
		CHECK(v[i] == i);
	CHECK(fabs(strtod("2.5e3xyz", &end) - 2500.0) < 1e-9 && !strcmp(end, "xyz"));
	errno = 0;
	strtol("99999999999999999999999", NULL, 10);
	CHECK(errno == ERANGE);
}

static jmp_buf env;

static void jump_back(int depth)
{
	if (depth < 0)
		return;		/* (never: the jump comes first) */
	if (depth == 0)
		longjmp(env, 42);
	jump_back(depth - 1);
}

static void check_setjmp(void)
{
	volatile int passes = 0;
	int r = setjmp(env);

	passes++;
	if (r == 0)
		jump_back(10);
	CHECK(r == 42 && passes == 2);
}

int main(void)
{
	check_printf();
	check_malloc();
	check_qsort_strtod();
	check_setjmp();
	return utest_result("newlib in user mode");
}
