/* Program objects (program.h): one per boot module, the originals in the kernel's boot space. */
#include "object/program.h"
#include "object/cap.h"
#include "user/module.h"
#include "object/lookup.h"
#include <errno.h>

_Static_assert(SYS_BOOT_PROGRAMS_MAX == MAX_BOOT_MODULES &&
	       SYS_BOOT_SLOT_PROGRAMS + SYS_BOOT_PROGRAMS_MAX <= SYS_CAP_MAX_SLOTS &&
	       SYS_BOOT_SLOT_QUOTA < SYS_BOOT_SLOT_PROGRAMS,
	       "lib/ipc.h's boot slots do not fit the boot modules");

struct program_obj {
	struct kobject base;
	const struct boot_module *module;
};

/* The kernel's: what the program objects and the boot space's nodes are charged to. */
static struct quota *boot_quota;
/* Slot i: the original capability to boot module i. */
static struct cspace *boot_space;

const struct boot_module *program_module(struct kobject *obj)
{
	return container_of(obj, struct program_obj, base)->module;
}

static void program_describe(struct kobject *obj, char *buf, size_t size)
{
	snprintf(buf, size, "%s", program_module(obj)->name);
}

static const struct kobj_ops program_ops = {
	.name = "program",
	.size = sizeof(struct program_obj),
	.describe = program_describe,
};

int program_caps_grant(struct cspace *cs)
{
	for (int i = 0; boot_space && i < boot_module_count(); i++) {
		int s = cap_transfer(boot_space, i, cs, SYS_BOOT_SLOT_PROGRAMS + i, false);

		if (s < 0)
			return s;
	}
	return 0;
}

struct kobject *program_get(const char *name)
{
	struct cap_ref ref;

	for (int i = 0; boot_space && i < boot_module_count(); i++)
		if (!strcmp(boot_module(i)->name, name) &&
		    !cap_lookup(boot_space, i, KOBJ_PROGRAM, SYS_CAP_EXEC, &ref))
			return ref.obj;
	return NULL;
}

static int make_program(int i)
{
	struct kobject *obj = kobject_create(KOBJ_PROGRAM, boot_quota, 0);
	int s;

	if (!obj)
		return -ENOMEM;
	container_of(obj, struct program_obj, base)->module = boot_module(i);
	s = cap_insert_object(boot_space, i, obj, SYS_CAP_READ | SYS_CAP_EXEC);
	kobject_put(obj);	/* (the capability holds it for ever) */
	return s < 0 ? s : 0;
}

void program_objects_init(void)
{
	boot_quota = quota_create(LONG_MAX);
	boot_space = boot_quota ? cspace_create(boot_quota, NULL) : NULL;
	if (!boot_space)
		panic("user: no memory for the boot modules' program objects");
	for (int i = 0; i < boot_module_count(); i++)
		if (make_program(i))
			panic("user: no memory for boot module %d's program object", i);
}

void program_obj_init(void)
{
	kobject_register(KOBJ_PROGRAM, &program_ops);
}
