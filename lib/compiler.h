/* Compiler helpers shared by the whole kernel (Linux names and meanings). */
#ifndef LIB_COMPILER_H
#define LIB_COMPILER_H

#include <stddef.h>
#include <sys/cdefs.h>	/* libc's versions of some names below come first */

/* Stops the compiler from moving memory accesses across this point. */
#define barrier()		__asm__ __volatile__("" ::: "memory")

/*
 * One untorn access that the compiler may neither repeat, fuse nor elide.
 * READ_ONCE/WRITE_ONCE are how code says "another CPU touches this".
 */
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val)	do { *(volatile __typeof__(x) *)&(x) = (val); } while (0)

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#ifndef __always_inline
#define __always_inline	inline __attribute__((always_inline))
#endif
#ifndef __noreturn
#define __noreturn	__attribute__((noreturn))
#endif
#ifndef __used
#define __used	__attribute__((used))
#endif
#ifndef __aligned
#define __aligned(n)	__attribute__((aligned(n)))
#endif
#ifndef __section
#define __section(s)	__attribute__((section(s)))
#endif
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif
#ifndef __maybe_unused
#define __maybe_unused	__attribute__((unused))
#endif

/* Sparse's address-space marker in Linux; here documentation only. */
#define __rcu

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define ALIGN_UP(x, a)		(((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a)	((x) & ~((__typeof__(x))(a) - 1))

#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))

#endif
