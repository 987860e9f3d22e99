/*
 * A little help for the programs of tests/user/ (none needs it: a test
 * passes by exiting with status 0).  CHECK(cond) prints the condition
 * that failed and counts it; utest_result(what) prints the count and
 * gives main() its exit status.
 */
#ifndef UTEST_H
#define UTEST_H

#include <stdio.h>

static int utest_failures;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("FAILED: %s (line %d)\n", #cond, __LINE__); \
			utest_failures++;				\
		}							\
	} while (0)

static inline int utest_result(const char *what)
{
	printf("%s: %d failure%s\n", what, utest_failures, utest_failures == 1 ? "" : "s");
	return utest_failures != 0;
}

#endif
