/*
 * Bitmaps of any length in arrays of unsigned long, with Linux's names
 * (<linux/bitops.h>, <linux/bitmap.h>, <linux/find.h>).  Bit n lives in
 * word n / BITS_PER_LONG, at position n % BITS_PER_LONG.
 *
 * Ordering follows Linux's:
 *  - set_bit()/clear_bit() are atomic and order nothing (relaxed): two
 *    CPUs changing different bits of one word never lose each other's;
 *  - test_and_set_bit()/test_and_clear_bit() return a value and are
 *    FULLY ordered, like the value-returning atomics of atomic.h: a caller
 *    that relies on it tags the call with the barrier it pairs with;
 *  - the __ forms (__set_bit(), ...) are plain read-modify-writes, for a
 *    bitmap only one CPU writes (or one a lock protects);
 *  - test_bit() and the searches read each word once (READ_ONCE), so a
 *    reader that takes no lock sees each word whole, never torn.
 */
#ifndef LIB_BITOPS_H
#define LIB_BITOPS_H

#include <stdbool.h>
#include "compiler.h"
#include "atomic.h"

#define BITS_PER_LONG		(8 * (int)sizeof(long))
#define BITS_TO_LONGS(n)	(((n) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define BIT_WORD(n)		((n) / BITS_PER_LONG)
#define BIT_MASK(n)		(1UL << ((n) % BITS_PER_LONG))

static inline bool test_bit(int n, const unsigned long *addr)
{
	return READ_ONCE(addr[BIT_WORD(n)]) & BIT_MASK(n);
}

static inline void set_bit(int n, unsigned long *addr)
{
	__atomic_fetch_or(&addr[BIT_WORD(n)], BIT_MASK(n), __ATOMIC_RELAXED);
}

static inline void clear_bit(int n, unsigned long *addr)
{
	__atomic_fetch_and(&addr[BIT_WORD(n)], ~BIT_MASK(n), __ATOMIC_RELAXED);
}

static inline bool test_and_set_bit(int n, unsigned long *addr)
{
	return __atomic_fully_ordered(__atomic_fetch_or(&addr[BIT_WORD(n)], BIT_MASK(n),
							__ATOMIC_RELAXED)) & BIT_MASK(n);
}

static inline bool test_and_clear_bit(int n, unsigned long *addr)
{
	return __atomic_fully_ordered(__atomic_fetch_and(&addr[BIT_WORD(n)], ~BIT_MASK(n),
							 __ATOMIC_RELAXED)) & BIT_MASK(n);
}

static inline void __set_bit(int n, unsigned long *addr)
{
	WRITE_ONCE(addr[BIT_WORD(n)], addr[BIT_WORD(n)] | BIT_MASK(n));
}

static inline void __clear_bit(int n, unsigned long *addr)
{
	WRITE_ONCE(addr[BIT_WORD(n)], addr[BIT_WORD(n)] & ~BIT_MASK(n));
}

/* The first set bit at or after n, or size when there is none. */
static inline int find_next_bit(const unsigned long *addr, int size, int n)
{
	unsigned long word;

	if (n >= size)
		return size;
	word = READ_ONCE(addr[BIT_WORD(n)]) & (~0UL << (n % BITS_PER_LONG));
	for (;;) {
		if (word) {
			n = BIT_WORD(n) * BITS_PER_LONG + __builtin_ctzl(word);
			return n < size ? n : size;
		}
		n = (BIT_WORD(n) + 1) * BITS_PER_LONG;
		if (n >= size)
			return size;
		word = READ_ONCE(addr[BIT_WORD(n)]);
	}
}

static inline int find_first_bit(const unsigned long *addr, int size)
{
	return find_next_bit(addr, size, 0);
}

/*
 * The whole-bitmap operations take size a multiple of BITS_PER_LONG or
 * keep the bits past size clear (every cpumask does: nothing sets them).
 */
static inline int bitmap_weight(const unsigned long *addr, int size)
{
	int w = 0;

	for (int i = 0; i < BITS_TO_LONGS(size); i++)
		w += __builtin_popcountl(READ_ONCE(addr[i]));
	return w;
}

static inline bool bitmap_empty(const unsigned long *addr, int size)
{
	for (int i = 0; i < BITS_TO_LONGS(size); i++)
		if (READ_ONCE(addr[i]))
			return false;
	return true;
}

static inline bool bitmap_equal(const unsigned long *a, const unsigned long *b, int size)
{
	for (int i = 0; i < BITS_TO_LONGS(size); i++)
		if (READ_ONCE(a[i]) != READ_ONCE(b[i]))
			return false;
	return true;
}

static inline void bitmap_zero(unsigned long *dst, int size)
{
	for (int i = 0; i < BITS_TO_LONGS(size); i++)
		WRITE_ONCE(dst[i], 0);
}

/* Word by word: each word is copied whole, the bitmap as a whole is not atomic. */
static inline void bitmap_copy(unsigned long *dst, const unsigned long *src, int size)
{
	for (int i = 0; i < BITS_TO_LONGS(size); i++)
		WRITE_ONCE(dst[i], READ_ONCE(src[i]));
}

static inline void bitmap_and(unsigned long *dst, const unsigned long *a,
			      const unsigned long *b, int size)
{
	for (int i = 0; i < BITS_TO_LONGS(size); i++)
		WRITE_ONCE(dst[i], READ_ONCE(a[i]) & READ_ONCE(b[i]));
}

static inline void bitmap_or(unsigned long *dst, const unsigned long *a,
			     const unsigned long *b, int size)
{
	for (int i = 0; i < BITS_TO_LONGS(size); i++)
		WRITE_ONCE(dst[i], READ_ONCE(a[i]) | READ_ONCE(b[i]));
}

static inline void bitmap_andnot(unsigned long *dst, const unsigned long *a,
				 const unsigned long *b, int size)
{
	for (int i = 0; i < BITS_TO_LONGS(size); i++)
		WRITE_ONCE(dst[i], READ_ONCE(a[i]) & ~READ_ONCE(b[i]));
}

#endif
