/*
 * The few kernel functions the parsers call, for their host builds
 * (tools/fuzz/): printk into a capture buffer (and onto stderr when
 * FUZZ_VERBOSE is set, as the replay does), spinlocks that only check
 * they are balanced, panic as an abort the fuzzer reports.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"
#include "shim.h"

#define CAPTURE_SIZE	(1024 * 1024)	/* a report per word of the longest input, and more */

unsigned long host_irq_flags = 1;
static struct cpu host_cpu = { .self = &host_cpu };
void *host_cpu_self = &host_cpu;
struct cpu cpus[NR_CPUS];

static char captured[CAPTURE_SIZE];
static size_t captured_len;

void shim_reset(void)
{
	captured_len = 0;
	captured[0] = '\0';
}

const char *shim_output(void)
{
	return captured;
}

int shim_count_lines(const char *prefix)
{
	size_t n = strlen(prefix);
	int count = 0;

	for (const char *line = captured; *line; ) {
		const char *nl = strchr(line, '\n');

		count += !strncmp(line, prefix, n);
		if (!nl)
			break;
		line = nl + 1;
	}
	return count;
}

void shim_summary(const char *fmt, ...)
{
	va_list ap;

	if (!getenv("FUZZ_VERBOSE"))
		return;
	fprintf(stderr, "harness: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

void *shim_exact(void *buf, size_t len)
{
	void *exact = malloc(len);

	memcpy(exact, buf, len);
	free(buf);
	return exact;
}

void shim_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\n==== property failed: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n==== console output of this input:\n%s\n====\n", captured);
	abort();
}

int vprintk(const char *fmt, va_list ap)
{
	char line[1024];
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	size_t len = strlen(line);

	if (getenv("FUZZ_VERBOSE"))
		fputs(line, stderr);
	if (len > CAPTURE_SIZE - 1 - captured_len)
		len = CAPTURE_SIZE - 1 - captured_len;
	memcpy(captured + captured_len, line, len);
	captured_len += len;
	captured[captured_len] = '\0';
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

void panic(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "\n==== kernel panic: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

/* One CPU: a lock is free or held, never contended. */
void spin_lock(spinlock_t *lock)
{
	if (lock->holder != -1)
		panic("shim: spinlock '%s' taken twice", lock->name);
	lock->holder = 0;
}

void spin_unlock(spinlock_t *lock)
{
	if (lock->holder != 0)
		panic("shim: spinlock '%s' released but not held", lock->name);
	lock->holder = -1;
}
