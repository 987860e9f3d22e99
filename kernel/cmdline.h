/*
 * The kernel command line: space-separated `key=value` words (a bare `key`
 * means `key=1`).  Each key is declared next to the code it configures:
 *
 *	static int stall_timeout = 21;
 *	KPARAM_INT("rcu_cpu_stall_timeout", stall_timeout, 3, 300);
 *
 * An unknown key or a malformed value is reported and the default kept.
 */
#ifndef KERNEL_CMDLINE_H
#define KERNEL_CMDLINE_H

#include "types.h"
#include "compiler.h"

struct kparam;
typedef bool (*kparam_set_fn)(const struct kparam *p, const char *val);

struct kparam {
	const char *name;
	kparam_set_fn set;	/* false: value refused, default kept */
	void *var;
	long long min, max;	/* integers: the accepted range */
	size_t size;		/* strings: the buffer's size */
	const char *what;	/* what a good value looks like, for messages */
	const char *word;	/* KPARAM_FLAG: the one value that sets the flag */
};

bool kparam_set_int(const struct kparam *p, const char *val);
bool kparam_set_bool(const struct kparam *p, const char *val);
bool kparam_set_string(const struct kparam *p, const char *val);
bool kparam_set_flag(const struct kparam *p, const char *val);

/*
 * The linker script gathers the declarations between __kparam_start and
 * __kparam_end; a host build (tools/fuzz/) names a section its linker bounds.
 */
#ifndef KPARAM_SECTION
#define KPARAM_SECTION ".kparam"
#endif

#define __KPARAM_WORD(id, key, fn, v, lo, hi, sz, desc, w)		\
	static const struct kparam __kparam_##id			\
	__used __section(KPARAM_SECTION) __aligned(8) = {		\
		.name = key, .set = fn, .var = v, .min = lo, .max = hi,	\
		.size = sz, .what = desc, .word = w,			\
	}
#define __KPARAM(id, key, fn, v, lo, hi, sz, desc)			\
	__KPARAM_WORD(id, key, fn, v, lo, hi, sz, desc, NULL)

#define KPARAM_INT(key, var, lo, hi) \
	__KPARAM(var, key, kparam_set_int, &(var), lo, hi, sizeof(var), "an integer")
#define KPARAM_BOOL(key, var) \
	__KPARAM(var, key, kparam_set_bool, &(var), 0, 1, sizeof(var), "0, 1, y, n, on or off")
#define KPARAM_STRING(key, buf) \
	__KPARAM(buf, key, kparam_set_string, (buf), 0, 0, sizeof(buf), "a string")
/*
 * A fault injection's switch: key=word sets the bool var, any other value
 * is refused (KPARAM_FLAG("spinlock.inject", "broken", inject_broken,
 * "locks taken with interrupts on stop excluding: a fault to catch")).
 */
#define KPARAM_FLAG(key, w, var, desc) \
	__KPARAM_WORD(var, key, kparam_set_flag, &(var), 0, 0, sizeof(var), \
		      "'" w "' (" desc ")", w)
/* A key whose value a function interprets. */
#define KPARAM_CALL(key, fn, desc) \
	__KPARAM(fn, key, fn, NULL, 0, 0, 0, desc)

/*
 * Applies every word of line to the declared keys; returns how many words
 * were ignored (each reported on the console when report is true).
 */
int cmdline_parse(const char *line, bool report);
/* The command line the kernel was booted with. */
const char *saved_command_line(void);

#endif
