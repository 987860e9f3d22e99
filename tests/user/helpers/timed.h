/*
 * make bench's loops, timed inside the program (docs/benchmarks.md):
 * TIMED_WARMUP rounds first (first touches of the stack and of the
 * pages, the server's start), then n rounds between two readings of the
 * clock (SYS_clock, ns since boot: under ICOUNT=1 one ns is one guest
 * instruction) and inside make profile's window (qprofile.h).  The
 * warm-up runs even when n is 0, so that the kernel's own timing (a run
 * of n rounds minus a run of none, tests/bench/) counts n rounds exactly.
 *
 * With n > 0 the result goes to the console as a make bench line in
 * tests/bench/bench.h's format (the kernel puts "# " before it under the
 * test runner), labels first, timed=loop, the mean in ns per round:
 *
 *	BENCH bench=user op=syscall timed=loop cpus=1 rep=0 metric=ns value=399.012 unit=ns
 *
 * round(i, arg) is one round; nonzero if its answer was wrong.
 * Returns how many rounds were wrong.  (Static inline with round a
 * constant: the compiler makes the loop call round's body directly.)
 */
#ifndef TESTS_USER_HELPERS_TIMED_H
#define TESTS_USER_HELPERS_TIMED_H

#include <stdio.h>
#include "quiescent.h"
#include "qprofile.h"

#define TIMED_WARMUP	16

static inline long timed_loop(long n, int (*round)(long i, void *arg), void *arg,
			      const char *labels)
{
	unsigned long long t0, ns, milli;
	long wrong = 0;

	for (long i = 0; i < TIMED_WARMUP; i++)
		wrong += round(i, arg) != 0;
	if (n <= 0)
		return wrong;
	t0 = q_clock_ns();
	q_profile_open();
	for (long i = 0; i < n; i++)
		wrong += round(i, arg) != 0;
	q_profile_close();
	ns = q_clock_ns() - t0;
	milli = ns * 1000 / n;
	printf("BENCH %s timed=loop cpus=%d rep=0 metric=ns value=%llu.%03llu unit=ns\n",
	       labels, q_nr_cpus(), milli / 1000, milli % 1000);
	fflush(stdout);
	return wrong;
}

#endif
