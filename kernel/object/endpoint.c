/* Endpoints (endpoint.h): the object, its queues, and what its capabilities' counts decide. */
#include "object/endpoint.h"
#include "object/types.h"
#include <errno.h>

/* Every thread on queue q gets -EPIPE: nobody can ever take its message. ep->lock held. */
static void fail_all(struct list_head *q)
{
	struct thread_obj *th, *n;

	list_for_each_entry_safe(th, n, q, wait_node) {
		spin_lock(&th->lock);
		ipc_dequeue_locked(th);
		ipc_complete_locked(th, -EPIPE, NULL);
		spin_unlock(&th->lock);
		kobject_put(&th->base);		/* the queue's */
	}
}

static void endpoint_cap_added(struct kobject *obj, unsigned int rights)
{
	struct endpoint *ep = to_endpoint(obj);
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	ep->send_caps += !!(rights & SYS_CAP_WRITE);
	ep->recv_caps += !!(rights & SYS_CAP_READ);
	spin_unlock_irqrestore(&ep->lock, flags);
}

static void endpoint_cap_removed(struct kobject *obj, unsigned int rights)
{
	struct endpoint *ep = to_endpoint(obj);
	unsigned long flags;

	spin_lock_irqsave(&ep->lock, flags);
	if ((rights & SYS_CAP_WRITE) && --ep->send_caps == 0)
		fail_all(&ep->receivers);
	if ((rights & SYS_CAP_READ) && --ep->recv_caps == 0)
		fail_all(&ep->senders);
	spin_unlock_irqrestore(&ep->lock, flags);
}

static const struct kobj_ops endpoint_ops = {
	.name = "endpoint",
	.size = sizeof(struct endpoint),
	.cap_added = endpoint_cap_added,
	.cap_removed = endpoint_cap_removed,
};

struct kobject *endpoint_create(struct quota *q, int *err)
{
	struct kobject *obj = kobject_create(KOBJ_ENDPOINT, q, 0);
	struct endpoint *ep;

	if (!obj) {
		*err = -ENOMEM;
		return NULL;
	}
	ep = to_endpoint(obj);
	spin_lock_init(&ep->lock);
	ep->lock.name = "endpoint";
	INIT_LIST_HEAD(&ep->senders);
	INIT_LIST_HEAD(&ep->receivers);
	return obj;
}

void endpoint_init(void)
{
	kobject_register(KOBJ_ENDPOINT, &endpoint_ops);
}
