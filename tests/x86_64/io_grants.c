/*
 * x86-64: one I/O port range granted to an address space by two device
 * objects (kernel/object/device.c, arch/x86_64/user_mm.c) stays open
 * until both let go: the range is stored once, with a count of the
 * grants it stands for.  Shown failing before the count: the first
 * device's last capability closed the second's ports too.
 */
#include "../cap_test.h"
#include "object/device.h"
#include "user/task.h"
#include "object/lookup.h"

static bool range_open(struct user_task *t, const struct device_regs *r)
{
	u32 want = r->base | r->size << 16;

	for (int i = 0; i < IO_RANGES; i++)
		if (READ_ONCE(t->mm->arch.io_ports[i]) == want)
			return true;
	return false;
}

/* A device in slot of ts, mapped into t. */
static bool map_one(struct test_space *ts, long slot, const struct device_regs *r,
		    struct user_task *t)
{
	struct cap_ref ref;
	long got;

	if (device_cap_grant(ts->cs, slot, r) != slot ||
	    cap_lookup(ts->cs, slot, KOBJ_DEVICE, SYS_CAP_WRITE, &ref))
		return false;
	got = device_map(ref.obj, t->mm, 0);
	kobject_put(ref.obj);
	return got == (long)r->base;
}

KTEST(x86_io_range_of_two_devices_stays_until_both_let_go)
{
	struct device_regs r;
	struct test_space ts;
	struct user_task *t;

	arch_console_regs(&r);
	KASSERT(r.ports);
	KASSERT(test_space_make(&ts));
	t = user_task_create("tests/io_grants", NULL, NULL);	/* an address space */
	KASSERT(t);
	KEXPECT(map_one(&ts, 0, &r, t));
	KEXPECT(map_one(&ts, 1, &r, t));	/* the same ports, another device */
	KEXPECT(range_open(t, &r));
	KEXPECT_EQ(cap_delete(ts.cs, 0), 0);	/* the first device's grant goes */
	KEXPECT(range_open(t, &r));		/* the second's stays */
	KEXPECT_EQ(cap_delete(ts.cs, 1), 0);
	KEXPECT(!range_open(t, &r));
	user_task_put(t);
	test_space_free(&ts);
}
