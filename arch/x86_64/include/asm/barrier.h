/*
 * x86-64 memory barriers.  x86 is TSO: loads are not reordered with older
 * loads, stores are not reordered with older stores or loads.  Only a store
 * followed by a load of another location can be reordered, so only smp_mb()
 * needs an instruction; the others just stop the compiler.
 */
#ifndef ASM_BARRIER_H
#define ASM_BARRIER_H

/* A locked add to the stack is a full barrier and cheaper than mfence. */
#define smp_mb()	__asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc")
#define smp_rmb()	barrier()
#define smp_wmb()	barrier()

/*
 * Around a read-modify-write atomic (lib/atomic.h) and after taking a
 * spinlock (whose ticket is a `lock xadd`): every locked instruction is
 * already a full barrier on x86, so only the compiler needs stopping.
 */
#define smp_mb__before_atomic()	barrier()
#define smp_mb__after_atomic()	barrier()
#define smp_mb__after_spinlock()	barrier()

/*
 * The body of every wait loop.  Only a compiler barrier, not `pause`:
 * under QEMU's TCG, `pause` takes the emulator's global lock, and with
 * more vCPUs than host cores a contended ticket lock then slowed ~400x
 * (spinlock_counts_every_cpu at -smp 8: 15 s with pause, 40 ms without).
 * On hardware `pause` would be kinder to a sibling hyperthread; here the
 * emulator is the machine.
 */
static inline void cpu_relax(void)
{
	__asm__ __volatile__("" ::: "memory");
}

#endif
