/* Notifications (notification.h). */
#include "object/notification.h"
#include "object/types.h"
#include <errno.h>

static struct notification *to_ntf(struct kobject *obj)
{
	return container_of(obj, struct notification, base);
}

static void ntf_cap_added(struct kobject *obj, unsigned int rights)
{
	struct notification *n = to_ntf(obj);
	unsigned long flags;

	spin_lock_irqsave(&n->lock, flags);
	n->signal_caps += !!(rights & SYS_CAP_WRITE);
	spin_unlock_irqrestore(&n->lock, flags);
}

static void ntf_cap_removed(struct kobject *obj, unsigned int rights)
{
	struct notification *n = to_ntf(obj);
	struct thread_obj *th, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&n->lock, flags);
	if ((rights & SYS_CAP_WRITE) && --n->signal_caps == 0) {
		list_for_each_entry_safe(th, tmp, &n->waiters, wait_node) {
			spin_lock(&th->lock);
			ipc_dequeue_locked(th);
			ipc_complete_locked(th, -EPIPE, NULL);	/* nobody can ever signal */
			spin_unlock(&th->lock);
			kobject_put(&th->base);		/* the queue's */
		}
	}
	spin_unlock_irqrestore(&n->lock, flags);
}

void notification_signaller_added(struct kobject *obj)
{
	ntf_cap_added(obj, SYS_CAP_WRITE);
}

void notification_signaller_gone(struct kobject *obj)
{
	ntf_cap_removed(obj, SYS_CAP_WRITE);
}

static const struct kobj_ops ntf_ops = {
	.name = "notification",
	.size = sizeof(struct notification),
	.cap_added = ntf_cap_added,
	.cap_removed = ntf_cap_removed,
};

struct kobject *notification_create(struct quota *q, int *err)
{
	struct kobject *obj = kobject_create(KOBJ_NOTIFICATION, q, 0);
	struct notification *n;

	if (!obj) {
		*err = -ENOMEM;
		return NULL;
	}
	n = to_ntf(obj);
	spin_lock_init(&n->lock);
	n->lock.name = "notification";
	INIT_LIST_HEAD(&n->waiters);
	return obj;
}

int notification_signal(struct kobject *obj, unsigned long bits)
{
	struct notification *n = to_ntf(obj);
	struct thread_obj *w;
	unsigned long flags;

	spin_lock_irqsave(&n->lock, flags);
	n->word |= bits;
	w = list_first_entry_or_null(&n->waiters, struct thread_obj, wait_node);
	if (w) {
		spin_lock(&w->lock);
		ipc_dequeue_locked(w);
		w->ntf_bits = n->word;
		n->word = 0;
		ipc_complete_locked(w, 0, NULL);
		spin_unlock(&w->lock);
		kobject_put(&w->base);		/* the queue's */
	}
	spin_unlock_irqrestore(&n->lock, flags);
	return 0;
}

long notification_poll(struct kobject *obj)
{
	struct notification *n = to_ntf(obj);
	unsigned long flags, bits;

	spin_lock_irqsave(&n->lock, flags);
	bits = n->word;
	n->word = 0;
	spin_unlock_irqrestore(&n->lock, flags);
	return bits;
}

long notification_wait(struct thread_obj *me, struct kobject *obj)
{
	struct notification *n = to_ntf(obj);
	unsigned long flags, bits;
	int ret;

	spin_lock_irqsave(&n->lock, flags);
	bits = n->word;
	n->word = 0;
	if (bits || !n->signal_caps) {
		spin_unlock_irqrestore(&n->lock, flags);
		return bits ? (long)bits : -EPIPE;
	}
	ipc_enqueue_locked(me, obj, &n->lock, &n->waiters, IPC_NTF_WAIT);
	spin_unlock_irqrestore(&n->lock, flags);
	ret = ipc_wait(me, NULL);
	return ret ? ret : (long)me->ntf_bits;
}

void notification_init(void)
{
	kobject_register(KOBJ_NOTIFICATION, &ntf_ops);
}
