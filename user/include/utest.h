/*
 * A little help for the programs of tests/user/ (none needs it: a test
 * passes by exiting with status 0).  CHECK(cond) prints the condition
 * that failed, with its file and line, and counts it; CHECK_EQ(a, b)
 * also prints both values (as long); both are safe from any thread of
 * the program.  The file tells a test's failure from its helper's when
 * both print to the same console.  main() returns
 * utest_result(what), which always prints the count, or check_result(),
 * which speaks only of failures: either is its exit status.
 */
#ifndef UTEST_H
#define UTEST_H

#include <stdio.h>

static int utest_failures;

#define utest_failed()	__atomic_add_fetch(&utest_failures, 1, __ATOMIC_RELAXED)

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("FAILED: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
			utest_failed();					\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		long __a = (long)(a), __b = (long)(b);			\
		if (__a != __b) {					\
			printf("FAILED: %s == %s: %ld != %ld (%s:%d)\n", #a, #b, \
			       __a, __b, __FILE__, __LINE__);		\
			utest_failed();					\
		}							\
	} while (0)

static inline int utest_result(const char *what)
{
	int n = __atomic_load_n(&utest_failures, __ATOMIC_RELAXED);

	printf("%s: %d failure%s\n", what, n, n == 1 ? "" : "s");
	return n != 0;
}

static inline int check_result(void)
{
	int n = __atomic_load_n(&utest_failures, __ATOMIC_RELAXED);

	if (n)
		printf("%d check%s failed\n", n, n == 1 ? "" : "s");
	return n != 0;
}

#endif
