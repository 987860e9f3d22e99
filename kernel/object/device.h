/*
 * Device objects (kernel/object/device.c, docs/drivers.md): a device's
 * registers (kernel/arch.h's struct device_regs) as a capability names
 * them.  SYS_dev_map gives them to the caller's address space: on
 * AArch64 its MMIO pages mapped uncached and never executable, on x86-64
 * its I/O ports opened in the task's I/O permission bitmap (never IOPL
 * 3).  Nothing else: another register or port faults, and the task is
 * killed with the fault named.  Like an interrupt, a device is granted
 * by the kernel (device_cap_grant()), never created by a system call.
 * What SYS_dev_map gave stays until the object's last capability goes
 * (deleted, revoked, or its task's space emptied): then every address
 * space it was given to loses it, the ports closed or the pages unmapped
 * on every CPU before the deletion returns.  A grant outlives the system
 * call that made it, so it is made only under d->lock, the lock the last
 * capability takes, and only while a capability is left (d->dead): a
 * SYS_dev_map whose lookup found the object just before its last
 * capability went gets -EBADF, as a lookup after it would.  Each grant
 * holds a reference on its address space, and one on the device (its
 * address space reaches the device's registers through it).
 */
#ifndef KERNEL_OBJECT_DEVICE_H
#define KERNEL_OBJECT_DEVICE_H

#include "object/object.h"
#include "mutex.h"

struct cspace;
struct mm_struct;

#define DEVICE_GRANTS	4	/* SYS_dev_map calls one object answers (-ENOSPC beyond) */

struct device_obj {
	struct kobject base;
	struct device_regs regs;
	struct mutex lock;		/* the grants, dead */
	bool dead;			/* its last capability went: no grant any more */
	int ngrants;
	struct device_grant {
		struct mm_struct *mm;	/* a reference */
		uintptr_t addr;		/* where the registers are mapped (MMIO) */
	} grants[DEVICE_GRANTS];
};

/* A device object for regs and its capability in cs at slot: the slot, or -errno. */
int device_cap_grant(struct cspace *cs, long slot, const struct device_regs *regs);
/* SYS_dev_map: the address its registers are mapped at, or its first port; or -errno. */
long device_map(struct kobject *obj, struct mm_struct *mm, uintptr_t addr);
void device_obj_init(void);

#endif
