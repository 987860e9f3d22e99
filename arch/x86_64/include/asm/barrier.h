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

static inline void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

#endif
