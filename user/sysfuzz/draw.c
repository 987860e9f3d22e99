/*
 * sysfuzz's pools (user/sysfuzz/main.c): the numbers, pointers, slots and
 * message words that find bugs, from each thread's own random stream.
 */
#include "sysfuzz.h"

/* splitmix64: each thread its own stream, from the seed. */
uint64_t next(struct fuzzer *f)
{
	uint64_t z = (f->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t below(struct fuzzer *f, uint64_t n)
{
	return n ? next(f) % n : 0;
}

/* A pointer the kernel must refuse: outside user space, or in a page just unmapped. */
long bad_pointer(struct fuzzer *f)
{
	static const long bad[] = {
		0, 8, 0x1000, 0x100000, 0x7fffff, (long)USER_BASE - 8, (long)USER_TOP,
		(long)USER_TOP + 4096, 0x0000800000000000L, (long)0xffff800000000000UL,
		(long)0xffffffff80000000UL, -4096L, -1L,
	};

	return bad[below(f, sizeof(bad) / sizeof(bad[0]))];
}

bool outside_user(long p)
{
	return (unsigned long)p < USER_BASE || (unsigned long)p >= USER_TOP;
}

long number(struct fuzzer *f)
{
	static const long edge[] = {
		0, 1, 2, 3, 7, 8, 15, 16, 63, 64, 255, 256, 4095, 4096, 4097, 65536,
		0x7fffffffL, 0x80000000L, 0xffffffffL, 0x100000000L, -1, -2, -4095, -4096,
		(long)0x7fffffffffffffffUL, (long)0x8000000000000000UL,
	};

	switch (below(f, 3)) {
	case 0:
		return edge[below(f, sizeof(edge) / sizeof(edge[0]))];
	case 1:
		return (long)below(f, 64);
	default:
		return (long)next(f);
	}
}

/* An address in the arena, page-aligned or not, and a length. */
long arena_addr(struct fuzzer *f)
{
	long a = ARENA + below(f, ARENA_PAGES) * PAGE;

	return below(f, 8) ? a : a + (long)below(f, PAGE);
}

long arena_len(struct fuzzer *f)
{
	return below(f, 8) ? (long)((1 + below(f, 8)) * PAGE) : number(f);
}

/*
 * A capability slot: mostly the few fuzzed, now and then any number at
 * all, or one of them with garbage in the register's upper half (a slot
 * is an int: the kernel must read the low 32 bits alone).
 */
long cap_slot(struct fuzzer *f)
{
	switch (below(f, 8)) {
	case 0:
		return below(f, 2) ? number(f) :
		       (long)((next(f) << 32) | below(f, CAP_SLOTS));
	case 1:
		return SYS_CAP_ANY_SLOT;
	default:
		return (long)below(f, CAP_SLOTS);
	}
}

/* A message's info word: a label, perhaps a capability (moved or not), flags valid or not. */
long msg_info(struct fuzzer *f)
{
	long info = (long)below(f, 1000);

	if (below(f, 4) == 0)
		info |= SYS_MSG_CAP(below(f, CAP_SLOTS));
	if (below(f, 8) == 0)
		info |= SYS_MSG_MOVE;
	if (below(f, 16) == 0)
		info = number(f);
	return info;
}
