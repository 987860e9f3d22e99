/*
 * What the fuzz targets (tools/fuzz/fuzz_NAME.c) ask of the host shim: the console
 * the parsers print on, captured so that a property can ask what was said.
 */
#ifndef FUZZ_SHIM_H
#define FUZZ_SHIM_H

#include <stddef.h>
#include <stdbool.h>

/* Forgets what was printed (call at the start of each input). */
void shim_reset(void);
/* Everything printed since shim_reset() (the first MiB of it), NUL-terminated. */
const char *shim_output(void);
/* How many printed lines begin with prefix. */
int shim_count_lines(const char *prefix);
/* With FUZZ_VERBOSE set (the replay): prints on stderr what the harness read. */
void shim_summary(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * buf's first len bytes (len > 0) moved into an allocation of exactly len, buf
 * freed: a size word the harness made true then ends where the memory does,
 * so ASan reports a read past it.
 */
void *shim_exact(void *buf, size_t len);
/* A property that does not hold: prints why, with the output so far, and aborts. */
void shim_fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#define CHECK(cond, ...)	do { if (!(cond)) shim_fail(__VA_ARGS__); } while (0)

#endif
