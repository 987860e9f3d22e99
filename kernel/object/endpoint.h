/*
 * Endpoints (kernel/object/endpoint.c): where synchronous IPC meets.  An
 * endpoint is two queues -- threads waiting to send (or call), threads
 * waiting to receive -- and never both at once: whoever comes second
 * takes the first of the other queue and the message passes (ipc.c).
 *
 * It also counts the capabilities that could send (SYS_CAP_WRITE) and
 * receive (SYS_CAP_READ).  When the last that could receive goes, no
 * sender can ever be served: every queued sender is woken with -EPIPE
 * and sends fail at once, as writes to a pipe whose reader closed; the
 * same for receivers when the last that could send goes.  That is what
 * wakes a server's clients when the server dies, and everyone when the
 * endpoint is deleted.
 */
#ifndef KERNEL_OBJECT_ENDPOINT_H
#define KERNEL_OBJECT_ENDPOINT_H

#include "object/thread.h"

struct endpoint {
	struct kobject base;
	spinlock_t lock;		/* the queues and the counts */
	struct list_head senders;	/* struct thread_obj, IPC_SEND_BLOCKED */
	struct list_head receivers;	/* struct thread_obj, IPC_RECV_BLOCKED */
	int send_caps, recv_caps;	/* capabilities with WRITE, with READ */
	unsigned long messages;		/* delivered (reports) */
};

static inline struct endpoint *to_endpoint(struct kobject *obj)
{
	return container_of(obj, struct endpoint, base);
}

void endpoint_init(void);

#endif
