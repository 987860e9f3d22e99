/*
 * Interrupt objects (kernel/object/interrupt.c, docs/drivers.md): one
 * device interrupt line (kernel/irq.h) as a capability names it -- seL4's
 * IRQHandler.  Its holder binds it to a notification (SYS_irq_bind): the
 * kernel then holds the line for it, and each interrupt masks the line
 * and signals the notification's bits.  The driver serves the device and
 * acknowledges (SYS_irq_ack): the line opens again.  When the object's
 * last capability goes (the driver deleted it, or died), the kernel lets
 * the line go.
 *
 * No system call makes one: the kernel grants it (interrupt_cap_grant())
 * to the driver it starts, which may pass it on by IPC like any other
 * capability.  The line is held by one binding at a time: a second bind,
 * of the same object or another object of that line, gets -EBUSY.
 *
 * A binding outlives the system call that made it, so it is made only
 * under o->lock, the lock the last capability's unbind takes, and only
 * while the object still has a capability (o->dead): a bind whose lookup
 * found the object just before its last capability went gets -EBADF, as
 * if it had come after (docs/microkernel.md, "Rule 2").  While bound,
 * the line's action names the object and holds a reference on it, and
 * the object holds one on the notification, which counts the binding
 * as one that may signal it (a driver waiting through a read-only
 * capability is not told -EPIPE while its line can still signal).
 */
#ifndef KERNEL_OBJECT_INTERRUPT_H
#define KERNEL_OBJECT_INTERRUPT_H

#include "object/object.h"

struct cspace;

struct interrupt_obj {
	struct kobject base;
	unsigned int line;		/* kernel/irq.h's line number */
	struct mutex lock;		/* binding, unbinding */
	struct kobject *ntf;		/* the bound notification (a reference); NULL: unbound */
	unsigned long bits;		/* signalled on each interrupt */
	bool bound;			/* request_irq() holds the line for us (and a reference on us) */
	bool dead;			/* its last capability went: never bound again */
	spinlock_t ack_lock;		/* unacked, with the mask it stands for */
	bool unacked;			/* an interrupt masked the line; no ack yet */
	atomic_long_t delivered;	/* interrupts signalled */
};

/* A new interrupt object for line and its capability in cs at slot: the slot, or -errno. */
int interrupt_cap_grant(struct cspace *cs, long slot, unsigned int line);

/* SYS_irq_bind, SYS_irq_ack on an object: 0 or -errno. */
int interrupt_bind(struct kobject *obj, struct kobject *ntf, unsigned long bits);
int interrupt_ack(struct kobject *obj);

void interrupt_obj_init(void);

#endif
