#ifndef KERNEL_KTEST_RUNNER_H
#define KERNEL_KTEST_RUNNER_H

#include "types.h"

/* True when the command line asked for tests (ktest.filter=GLOB). */
bool ktest_requested(void);
/* Runs the selected tests, prints KTAP, ends QEMU with the pass or fail code. */
void ktest_run_all(void) __attribute__((noreturn));
/* Runs the ordinary tests matching glob and returns; failures, or -1 if none matched. */
int ktest_run_glob(const char *glob, int *passed);
/* fnmatch-style '*' and '?' matching; patterns may be comma-separated. */
bool glob_match(const char *pattern, const char *name);

#endif
