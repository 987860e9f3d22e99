/*
 * Memory-ordering primitives with Linux's names.  The full and one-sided
 * fences are per architecture (asm/barrier.h); release and acquire are the
 * C11 orderings, which compile to plain moves on x86-64 and to stlr/ldar on
 * AArch64.
 */
#ifndef LIB_BARRIER_H
#define LIB_BARRIER_H

#include "compiler.h"
#include <asm/barrier.h>

/* Every access before it is visible before the store itself. */
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* Every access after it happens after the load itself. */
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)

#endif
