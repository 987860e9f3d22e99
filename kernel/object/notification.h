/*
 * Notifications (kernel/object/notification.c): a word of signal bits,
 * seL4's asynchronous half of IPC.  signal ORs bits (and the signalling
 * capability's badge) into the word and never blocks; wait takes the
 * whole word, blocking while it is zero; poll takes it without blocking.
 * When the last capability that could signal is gone, waiters wake with
 * -EPIPE, as on an endpoint -- unless an interrupt line bound to it
 * (interrupt.h) still can: a binding counts as a signaller.
 */
#ifndef KERNEL_OBJECT_NOTIFICATION_H
#define KERNEL_OBJECT_NOTIFICATION_H

#include "object/thread.h"

struct notification {
	struct kobject base;
	spinlock_t lock;
	unsigned long word;		/* bits signalled and not yet taken */
	struct list_head waiters;	/* struct thread_obj, IPC_NTF_WAIT */
	int signal_caps;		/* capabilities with SYS_CAP_WRITE, and lines bound to it */
};

int notification_signal(struct kobject *obj, unsigned long bits);
/* The bits (never 0), or -errno. */
long notification_wait(struct thread_obj *me, struct kobject *obj);
/* The bits, 0 if none. */
long notification_poll(struct kobject *obj);
/* An interrupt line bound to it signals it from now on, or no longer (interrupt.c). */
void notification_signaller_added(struct kobject *obj);
void notification_signaller_gone(struct kobject *obj);
void notification_init(void);

#endif
