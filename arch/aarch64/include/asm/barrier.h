/*
 * AArch64 memory barriers.
 *
 * Where AArch64 differs from x86-64: x86 is TSO (only a store followed by
 * a load of another location may be reordered), so there smp_rmb() and
 * smp_wmb() are compiler barriers.  AArch64 is weakly ordered: loads and
 * stores to different locations may become visible in any order, so every
 * barrier below is a real instruction.  The "ish" (inner shareable) domain
 * is all the CPUs of this machine, which is all a barrier between CPUs
 * needs; device accesses are ordered by their own dsb where needed.
 *
 * Why the RCU primitives stay correct here (kernel/rcu/rcupdate.h):
 *  - rcu_assign_pointer() is a C11 release store, which GCC emits as
 *    `stlr`: every store that initialised the object is visible before the
 *    pointer is.  It pairs with the address dependency below.
 *  - rcu_dereference() is a plain (READ_ONCE) load; the reader's later
 *    loads go through the pointer it returned, and AArch64 orders a load
 *    after the load that produced its address (address dependencies are
 *    respected; only Alpha breaks them), so the reader sees the
 *    initialised object without a barrier.
 *  - synchronize_rcu() and the context-switch path use smp_mb(), a full
 *    `dmb ish`: lock plus unlock (ldaxr/stlxr) is not a full barrier on
 *    AArch64, unlike a locked instruction on x86.
 * TCG on an x86 host runs guest accesses with the host's strong ordering,
 * so a missing barrier here rarely shows in a test: each is argued in its
 * comment instead.
 */
#ifndef ASM_BARRIER_H
#define ASM_BARRIER_H

/* Full barrier: earlier loads and stores before later loads and stores. */
#define smp_mb()	__asm__ __volatile__("dmb ish" ::: "memory")
/* Earlier loads before later loads and stores. */
#define smp_rmb()	__asm__ __volatile__("dmb ishld" ::: "memory")
/* Earlier stores before later stores. */
#define smp_wmb()	__asm__ __volatile__("dmb ishst" ::: "memory")

/*
 * Around a read-modify-write atomic (lib/atomic.h): an ldxr/stxr loop
 * orders nothing by itself, so a fully ordered atomic is a dmb on each
 * side.  After taking a spinlock: the lock's load-acquire keeps later
 * accesses after it, but an earlier store may still become visible after
 * a later load (acquire is one-way), so a full barrier is a real dmb.
 */
#define smp_mb__before_atomic()	smp_mb()
#define smp_mb__after_atomic()	smp_mb()
#define smp_mb__after_spinlock()	smp_mb()

/*
 * The body of every wait loop.  Only a compiler barrier, not `yield`: as
 * with x86's `pause` (see arch/x86_64/include/asm/barrier.h), under TCG
 * with more vCPUs than host cores a hint that ends the vCPU's time slice
 * or takes the emulator's global lock slows the lock holder we wait for.
 */
static inline void cpu_relax(void)
{
	__asm__ __volatile__("" ::: "memory");
}

#endif
