/*
 * More of the C library a dropped-in test may use: time and sleeping,
 * stderr, atexit, getenv, strerror, realloc, rand, a large stack frame.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "utest.h"
#include <time.h>
#include <unistd.h>


static void goodbye(void)
{
	printf("atexit handler ran\n");
}

static int big_frame(int n)
{
	volatile char buf[96 * 1024];	/* more than a thread's 64 KiB: the first thread has 128 */

	buf[0] = (char)n;
	buf[sizeof(buf) - 1] = (char)n;
	return buf[0] + buf[sizeof(buf) - 1];
}

int main(void)
{
	time_t t0 = time(NULL);
	clock_t c0 = clock();
	char *p;

	CHECK(t0 != (time_t)-1);
	CHECK(usleep(2000) == 0);
	CHECK(clock() >= c0);
	CHECK(getenv("NO_SUCH_VARIABLE") == NULL);
	CHECK(strlen(strerror(ENOMEM)) > 0);
	p = malloc(10);
	p = realloc(p, 100000);
	CHECK(p != NULL);
	free(p);
	srand(42);
	CHECK(rand() != rand() || rand() != rand());
	CHECK(big_frame(3) == 6);
	assert(utest_failures == 0);
	fprintf(stderr, "stderr works\n");
	CHECK(atexit(goodbye) == 0);
	return utest_result("libc");
}
