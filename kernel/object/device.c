/* Device objects (device.h). */
#include "object/device.h"
#include "object/cap.h"
#include "user/mm.h"
#include <errno.h>

static const struct kobj_ops device_ops = {
	.name = "device",
	.size = sizeof(struct device_obj),
};

int device_cap_grant(struct cspace *cs, long slot, const struct device_regs *regs)
{
	struct kobject *obj;
	int s;

	if (!regs->size || (!regs->ports && (regs->base % PAGE_SIZE || regs->size % PAGE_SIZE)))
		return -EINVAL;
	obj = kobject_create(KOBJ_DEVICE, cs->quota, 0);
	if (!obj)
		return -ENOMEM;
	container_of(obj, struct device_obj, base)->regs = *regs;
	s = cap_insert_object(cs, slot, obj, SYS_CAP_ALL);
	kobject_put(obj);		/* the capability holds its own */
	return s;
}

long device_map(struct kobject *obj, struct mm_struct *mm, uintptr_t addr)
{
	const struct device_regs *r = &container_of(obj, struct device_obj, base)->regs;
	long ret;

	if (!r->ports)
		return mm_map_device(mm, addr, r->base, r->size / PAGE_SIZE);
	mutex_lock(&mm->lock);
	ret = arch_io_grant(&mm->arch, r->base, r->size);
	mutex_unlock(&mm->lock);
	return ret ? ret : (long)r->base;
}

void device_obj_init(void)
{
	kobject_register(KOBJ_DEVICE, &device_ops);
}
