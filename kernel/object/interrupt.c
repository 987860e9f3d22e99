/* Interrupt objects (interrupt.h). */
#include "object/interrupt.h"
#include "object/notification.h"
#include "object/cap.h"
#include "object/holds.h"
#include "irq.h"
#include <errno.h>

static struct interrupt_obj *to_intr(struct kobject *obj)
{
	return container_of(obj, struct interrupt_obj, base);
}

/*
 * The line's handler, in hard-interrupt context on the CPU the line is
 * routed to: mask the line until the driver acknowledges (a level line
 * would fire again at once; the driver has not served the device yet),
 * then signal.  request_irq() published the action after o->ntf and
 * o->bits were set, and free_irq() waits out every CPU still in here
 * before the unbind drops the notification.
 */
static void interrupt_handler(unsigned int line, void *data)
{
	struct interrupt_obj *o = data;

	spin_lock(&o->ack_lock);
	if (!o->unacked)
		disable_irq_nosync(line);
	o->unacked = true;
	spin_unlock(&o->ack_lock);
	atomic_long_inc(&o->delivered);
	notification_signal(o->ntf, o->bits);
}

/* The line's action names o: it holds a reference (put by the unbind). */
static const void *action_of(struct interrupt_obj *o)
{
	return (const void *)(uintptr_t)o->line;
}

/* o->lock held: lets the line go, and the notification. */
static void unbind_locked(struct interrupt_obj *o)
{
	if (!o->bound)
		return;
	free_irq(o->line, o);		/* a grace period: no CPU still in the handler */
	o->bound = false;
	o->unacked = false;	/* (free_irq() dropped the holder's masking) */
	notification_signaller_gone(o->ntf);
	holds_unlink(o, "ntf", o->ntf);
	kobject_put(o->ntf);
	o->ntf = NULL;
	holds_unlink(action_of(o), "data", o);
	kobject_put(&o->base);		/* (not the last: the caller has one) */
}

/* The last capability is gone: the driver let go, or died; no bind after this one. */
static void interrupt_last_cap(struct kobject *obj)
{
	struct interrupt_obj *o = to_intr(obj);

	mutex_lock(&o->lock);
	o->dead = true;
	unbind_locked(o);
	mutex_unlock(&o->lock);
}

static const struct kobj_ops interrupt_ops = {
	.name = "interrupt",
	.size = sizeof(struct interrupt_obj),
	.last_cap = interrupt_last_cap,
};

int interrupt_cap_grant(struct cspace *cs, long slot, unsigned int line)
{
	struct kobject *obj;
	struct interrupt_obj *o;
	int s;

	if (line >= ARCH_NR_IRQS)
		return -EINVAL;
	obj = kobject_create(KOBJ_INTERRUPT, cs->quota, 0);
	if (!obj)
		return -ENOMEM;
	o = to_intr(obj);
	o->line = line;
	mutex_init(&o->lock);
	o->ntf = NULL;
	o->bits = 0;
	o->bound = false;
	o->dead = false;
	spin_lock_init(&o->ack_lock);
	o->unacked = false;
	atomic_long_set(&o->delivered, 0);
	s = cap_insert_object(cs, slot, obj, SYS_CAP_ALL);
	kobject_put(obj);		/* the capability holds its own */
	return s;
}

/*
 * The binding: o's action and o's notification, each with its reference,
 * made under o->lock and only while o has a capability (interrupt.h).
 */
int interrupt_bind(struct kobject *obj, struct kobject *ntf, unsigned long bits)
{
	struct interrupt_obj *o = to_intr(obj);
	int err = -EBUSY;

	object_bind_hook_call(obj);
	mutex_lock(&o->lock);
	if (o->dead && !cap_injected(CAP_INJECT_BIND_UNCHECKED)) {
		err = -EBADF;		/* its last capability went as we looked it up */
	} else if (!o->bound) {
		kobject_get(ntf);
		o->ntf = ntf;
		o->bits = bits;
		kobject_get(&o->base);	/* the action's */
		err = request_irq(o->line, interrupt_handler, "user driver", o);
		if (err) {
			o->ntf = NULL;
			kobject_put(&o->base);
			kobject_put(ntf);
		} else {
			o->bound = true;
			holds_link(HOLD_LINE, action_of(o), "data", HOLD_OBJECT, o);
			holds_link(HOLD_OBJECT, o, "ntf", HOLD_OBJECT, ntf);
			notification_signaller_added(ntf);
		}
	}
	mutex_unlock(&o->lock);
	return err;
}

int interrupt_ack(struct kobject *obj)
{
	struct interrupt_obj *o = to_intr(obj);
	unsigned long flags;
	int err = 0;

	mutex_lock(&o->lock);
	if (!o->bound) {
		err = -EINVAL;
	} else {
		/* The handler's mask and our unmask in one order: never an unmask of nothing. */
		spin_lock_irqsave(&o->ack_lock, flags);
		if (o->unacked)
			enable_irq(o->line);
		o->unacked = false;
		spin_unlock_irqrestore(&o->ack_lock, flags);
	}
	mutex_unlock(&o->lock);
	return err;
}

void interrupt_obj_init(void)
{
	kobject_register(KOBJ_INTERRUPT, &interrupt_ops);
}
