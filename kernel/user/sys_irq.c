/*
 * System calls of drivers (lib/syscall.h, docs/drivers.md): on interrupt
 * capabilities (kernel/object/interrupt.h), bind a line to a
 * notification and acknowledge it once served; on device capabilities
 * (kernel/object/device.h), get the device's registers.
 */
#include "user/syscalls.h"
#include "object/cap.h"
#include "object/interrupt.h"
#include "object/device.h"
#include "object/lookup.h"
#include <errno.h>

/* (irq, ntf, bits): each interrupt masks the line and signals bits to ntf. */
long sys_irq_bind(const struct syscall_args *a)
{
	struct cspace *cs = current_user_task()->cspace;
	unsigned long bits = a->arg[2];
	struct cap_ref irq, ntf;
	long err;

	if (!bits || bits > SYS_BADGE_MAX)
		return -EINVAL;
	/* Both hold references: the binding takes the interrupt's mutex and stores ntf. */
	err = cap_lookup(cs, arg_int(a->arg[0]), KOBJ_INTERRUPT, SYS_CAP_WRITE, &irq);
	if (err)
		return err;
	err = cap_lookup(cs, arg_int(a->arg[1]), KOBJ_NOTIFICATION, SYS_CAP_WRITE, &ntf);
	if (!err) {
		err = interrupt_bind(irq.obj, ntf.obj, bits);
		kobject_put(ntf.obj);
	}
	kobject_put(irq.obj);
	return err;
}

long sys_irq_ack(const struct syscall_args *a)
{
	struct cap_ref irq;
	/* Holds a reference: the acknowledgement takes the interrupt's mutex, which may sleep. */
	long err = cap_lookup(current_user_task()->cspace, arg_int(a->arg[0]), KOBJ_INTERRUPT,
			      SYS_CAP_WRITE, &irq);

	if (err)
		return err;
	err = interrupt_ack(irq.obj);
	kobject_put(irq.obj);
	return err;
}

/* (dev, addr or 0): the registers' address, or the first I/O port. */
long sys_dev_map(const struct syscall_args *a)
{
	struct user_task *t = current_user_task();
	struct cap_ref dev;
	/* Holds a reference: the mapping takes mm->lock and the device's lock, and may sleep. */
	long ret = cap_lookup(t->cspace, arg_int(a->arg[0]), KOBJ_DEVICE, SYS_CAP_WRITE, &dev);

	if (ret)
		return ret;
	ret = device_map(dev.obj, t->mm, a->arg[1]);
	kobject_put(dev.obj);
	return ret;
}
