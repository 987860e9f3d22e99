/*
 * membarrier(): a full memory barrier on every CPU that runs one of the
 * caller's threads, so that user-space RCU's readers need only compiler
 * barriers (membarrier.c; SYS_membarrier in lib/syscall.h; docs/user.md).
 */
#ifndef KERNEL_USER_MEMBARRIER_H
#define KERNEL_USER_MEMBARRIER_H

#include "kernel.h"

struct mm_struct;

/*
 * membarrier.inject=NAME: breaks it on purpose, so that a test shows it
 * catches the break (CI runs each as an expected failure; docs/user.md).
 */
#define MEMBARRIER_INJECTIONS(X)					\
	X(MEMBARRIER_INJECT_SKIP_CPU, "skip_cpu",			\
	  "membarrier() interrupts no thread on the online CPU after the caller's") \
	X(MEMBARRIER_INJECT_SWITCH_NO_MB, "switch_no_mb",		\
	  "a CPU loading an address space registered for membarrier() runs it with no full barrier after")

#define __MEMBARRIER_INJECTION_ENUM(id, name, what)	id,
enum membarrier_injection {
	MEMBARRIER_INJECTIONS(__MEMBARRIER_INJECTION_ENUM)
	NR_MEMBARRIER_INJECTIONS
};
bool membarrier_injected(enum membarrier_injection which);
/* At boot: a loud line for each injection that is on. */
void membarrier_inject_announce(void);

/* SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED for the threads of mm (the caller's). */
void membarrier_private_expedited(struct mm_struct *mm);

/*
 * Checking build, from switch_mm(): cpu passed its full barrier with a
 * newly loaded address space ([switch_mm_mb]), the barrier membarrier()
 * counts on for a CPU it did not interrupt.
 */
#if CONFIG_RCU_CHECKING
void membarrier_note_barrier(int cpu);
#else
static inline void membarrier_note_barrier(int cpu) { (void)cpu; }
#endif

/* How many membarrier() IPIs cpu has taken (tests: which CPUs were asked). */
unsigned long membarrier_ipis_taken(int cpu);

#endif
