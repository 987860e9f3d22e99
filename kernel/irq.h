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
 * An offline CPU takes no work (false), nor one going down past its last
 * interrupt: what it accepted before runs there in cpu_die(), before it
 * goes offline (irq_work_cpu_dying()), and its slots stay closed until it
 * comes back (irq_work_cpu_starting()).
 */
struct irq_work {
	void (*func)(struct irq_work *work);
	bool lazy;		/* in the next tick instead of an IPI */
};
bool irq_work_queue_on(struct irq_work *work, int cpu);
/* The CPU going down, interrupts off for good (cpu_die()): runs what waits, then takes none. */
void irq_work_cpu_dying(int cpu);
/* The CPU coming up, before it is online (ap_main()): its slots take work again. */
void irq_work_cpu_starting(int cpu);

/*
 * Device interrupts (kernel/irqdesc.c), with Linux's names.  irq is the
 * arch's line number (kernel/arch.h).  request_irq(): handler(irq, data)
 * runs in hard-interrupt context on the CPU the line is routed to (the
 * boot CPU until irq_set_affinity()), one line, one holder: 0, -EBUSY
 * (held), -EINVAL, -ENODEV (no controller serves it), -ENOMEM.
 * free_irq(): the holder (data) lets go; when it returns, no CPU runs
 * its handler any more (a grace period).  The line stays routed and
 * open: an interrupt nobody holds is counted and said once.
 * irq_set_affinity(): routes to an online cpu (0, -ENODEV, -EINVAL).
 * disable_irq_nosync()/enable_irq(): mask and unmask, nesting; the
 * handler may already be running elsewhere.
 */
typedef void (*irq_handler_t)(unsigned int irq, void *data);
int request_irq(unsigned int irq, irq_handler_t handler, const char *name, void *data);
void free_irq(unsigned int irq, void *data);
int irq_set_affinity(unsigned int irq, int cpu);
void disable_irq_nosync(unsigned int irq);
void enable_irq(unsigned int irq);

/* From the arch's interrupt entry: the whole path of one device interrupt, EOI included. */
void handle_device_irq(unsigned int irq);

/* A line's state, for tests and the monitor (false: never set up). */
struct irq_stats {
	unsigned long count;		/* arrivals */
	unsigned long unclaimed;	/* arrivals nobody held */
	int cpu;			/* routed to */
	int last_cpu;			/* where the last one arrived (-1: none yet) */
	bool level, held, masked;
};
bool irq_get_stats(unsigned int irq, struct irq_stats *st);
unsigned long irq_stray_count(void);
void irq_show(void);

/* x86 NMI (or its AArch64 stand-in): panic's stop and backtrace requests. */
void irq_nmi(const struct trap_frame *tf);

#endif
