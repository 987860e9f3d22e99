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
/* x86 NMI (or its AArch64 stand-in): panic's stop and backtrace requests. */
void irq_nmi(const struct trap_frame *tf);

#endif
