/*
 * The checks of the capability and IPC tests (tests/user/cap_*.c,
 * ipc_*.c): each failed check prints its line and counts; main returns
 * check_result(), so the test passes only if none failed.  Safe from any
 * thread of the program.
 */
#ifndef TESTS_USER_CHECK_H
#define TESTS_USER_CHECK_H

#include <stdio.h>
#include "qcap.h"

static int check_failures;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			printf("FAILED: %s (line %d)\n", #cond, __LINE__); \
			__atomic_add_fetch(&check_failures, 1, __ATOMIC_RELAXED); \
		}							\
	} while (0)

/* Compares as long and prints both values on failure. */
#define CHECK_EQ(a, b)							\
	do {								\
		long __a = (long)(a), __b = (long)(b);			\
		if (__a != __b) {					\
			printf("FAILED: %s == %s: %ld != %ld (line %d)\n", #a, #b, \
			       __a, __b, __LINE__);			\
			__atomic_add_fetch(&check_failures, 1, __ATOMIC_RELAXED); \
		}							\
	} while (0)

static inline int check_result(void)
{
	int n = __atomic_load_n(&check_failures, __ATOMIC_RELAXED);

	if (n)
		printf("%d check%s failed\n", n, n == 1 ? "" : "s");
	return n != 0;
}

#endif
