/* Device objects (device.h). */
#include "object/device.h"
#include "object/cap.h"
#include "object/holds.h"
#include "user/mm.h"
#include <errno.h>

/*
 * The last capability is gone: each grant is taken back.  Ports: the
 * range leaves the address space, and the shootdown reloads the bitmap of
 * every CPU that has it loaded (tlb_shootdown()'s barrier orders the cleared grant
 * before the read of which CPUs those are; a CPU that loads the space
 * later reads the cleared grant).  Registers: the region is unmapped,
 * waiting for the TLB shootdown.
 */
static void device_last_cap(struct kobject *obj)
{
	struct device_obj *d = container_of(obj, struct device_obj, base);

	mutex_lock(&d->lock);
	d->dead = true;
	for (int i = 0; i < d->ngrants; i++) {
		struct mm_struct *mm = d->grants[i].mm;

		if (d->regs.ports) {
			mutex_lock(&mm->lock);
			arch_io_revoke(&mm->arch, d->regs.base, d->regs.size);
			tlb_shootdown(mm, 0, 0);
			mutex_unlock(&mm->lock);
		} else {
			mm_unmap_device(mm, d->grants[i].addr);
		}
		holds_unlink(d, "grants[].mm", mm);
		mm_put(mm);
		holds_unlink(mm, "device grant", d);
		kobject_put(&d->base);	/* (not the last: the deleted capability's is still held) */
	}
	d->ngrants = 0;
	mutex_unlock(&d->lock);
}

static const struct kobj_ops device_ops = {
	.name = "device",
	.size = sizeof(struct device_obj),
	.last_cap = device_last_cap,
};

int device_cap_grant(struct cspace *cs, long slot, const struct device_regs *regs)
{
	struct device_obj *d;
	struct kobject *obj;
	int s;

	if (!regs->size || (!regs->ports && (regs->base % PAGE_SIZE || regs->size % PAGE_SIZE)))
		return -EINVAL;
	obj = kobject_create(KOBJ_DEVICE, cs->quota, 0);
	if (!obj)
		return -ENOMEM;
	d = container_of(obj, struct device_obj, base);
	d->regs = *regs;
	mutex_init(&d->lock);
	d->dead = false;
	d->ngrants = 0;
	s = cap_insert_object(cs, slot, obj, SYS_CAP_ALL);
	kobject_put(obj);		/* the capability holds its own */
	return s;
}

/*
 * Each grant is remembered, so that the last capability's end takes it
 * back; none is made once that end ran (device.h).
 */
long device_map(struct kobject *obj, struct mm_struct *mm, uintptr_t addr)
{
	struct device_obj *d = container_of(obj, struct device_obj, base);
	const struct device_regs *r = &d->regs;
	bool retried = false;
	long ret;

	object_bind_hook_call(obj);
again:
	mutex_lock(&d->lock);
	if (d->dead && !cap_injected(CAP_INJECT_BIND_UNCHECKED)) {
		mutex_unlock(&d->lock);
		return -EBADF;		/* its last capability went as we looked it up */
	}
	if (d->ngrants == DEVICE_GRANTS) {
		mutex_unlock(&d->lock);
		return -ENOSPC;
	}
	if (!r->ports) {
		ret = mm_map_device(mm, addr, r->base, r->size / PAGE_SIZE);
	} else {
		mutex_lock(&mm->lock);
		ret = arch_io_grant(&mm->arch, r->base, r->size);
		mutex_unlock(&mm->lock);
		ret = ret ? ret : (long)r->base;
	}
	if (ret >= 0) {
		mm_get(mm);
		holds_link(HOLD_OBJECT, d, "grants[].mm", HOLD_MM, mm);
		kobject_get(&d->base);
		holds_link(HOLD_MM, mm, "device grant", HOLD_OBJECT, d);
		d->grants[d->ngrants++] = (struct device_grant){ mm, r->ports ? 0 : ret };
	}
	mutex_unlock(&d->lock);
	/* A page table refused under d->lock: reclaim with it let go, and once more. */
	if (quota_retry_after_reclaim(ret, mm->quota, &retried))
		goto again;
	return ret;
}

void device_obj_init(void)
{
	kobject_register(KOBJ_DEVICE, &device_ops);
}
