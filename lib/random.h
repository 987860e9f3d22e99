/*
 * The pseudo-random numbers of tests, benchmarks and demos: Marsaglia's
 * xorshift32.  Each user keeps its own 32-bit state, so threads on
 * different CPUs draw without sharing a cache line.  Good for spreading
 * keys and delays; never for anything that must be unpredictable.
 */
#ifndef LIB_RANDOM_H
#define LIB_RANDOM_H

#include <stdint.h>

/* A state to start a stream from seed (xorshift's state must never be 0). */
static inline uint32_t prandom_seed(uint32_t seed)
{
	return seed ? seed : 0x12345678u;
}

/* The next number of the stream whose state is *state. */
static inline uint32_t prandom_u32(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

#endif
