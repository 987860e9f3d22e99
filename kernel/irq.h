/* What the arch's interrupt entry calls in the kernel. */
#ifndef KERNEL_IRQ_H
#define KERNEL_IRQ_H

#include "kernel.h"

struct trap_frame;

/* Bracket every handler: the kernel knows it is in interrupt context. */
void irq_enter(void);
void irq_exit(void);

void irq_timer(void);
void irq_ipi(int kind);
/*
 * irq_work, as Linux's irq_work_queue_on(): runs work->func(work) in
 * hard-interrupt context on `cpu`, in the IPI it sends, or with
 * work->lazy in that CPU's next timer tick (no IPI).  An idle CPU runs
 * it too: the interrupt wakes it, and irq_enter() has left the idle
 * extended quiescent state before func runs.  One work item per CPU and
 * kind at a time: returns false if that slot is taken (try again).  For
 * tests that need RCU readers inside interrupt handlers; func must not
 * sleep.  An IPI to the calling CPU itself is refused (panic): use lazy.
 * An offline CPU takes no work (false); work queued just before its CPU
 * went down runs when that CPU comes back online.
 */
struct irq_work {
	void (*func)(struct irq_work *work);
	bool lazy;		/* in the next tick instead of an IPI */
};
bool irq_work_queue_on(struct irq_work *work, int cpu);

/* x86 NMI (or its AArch64 stand-in): panic's stop and backtrace requests. */
void irq_nmi(const struct trap_frame *tf);

#endif
