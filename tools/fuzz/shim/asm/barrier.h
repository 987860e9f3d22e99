/* The host's stand-in for asm/barrier.h (tools/fuzz/): one thread, so compiler barriers. */
#ifndef ASM_BARRIER_H
#define ASM_BARRIER_H

#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)

/* Around a read-modify-write atomic (lib/atomic.h) and after taking a spinlock. */
#define smp_mb__before_atomic()	smp_mb()
#define smp_mb__after_atomic()	smp_mb()
#define smp_mb__after_spinlock()	smp_mb()

static inline void cpu_relax(void) { }

#endif
