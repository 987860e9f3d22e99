/* The console object (console.h). */
#include "object/console.h"
#include "object/cap.h"
#include "user/user.h"
#include <errno.h>

static const struct kobj_ops console_ops = {
	.name = "console",
	.size = sizeof(struct console_obj),
};

static struct console_obj *to_console(struct kobject *obj)
{
	return container_of(obj, struct console_obj, base);
}

int console_cap_grant(struct cspace *cs, long slot)
{
	struct kobject *obj = kobject_create(KOBJ_CONSOLE, cs->quota, 0);
	int s;

	if (!obj)
		return -ENOMEM;
	atomic_long_set(&to_console(obj)->lines, 0);
	s = cap_insert_object(cs, slot, obj, SYS_CAP_ALL);
	kobject_put(obj);		/* the capability holds its own */
	return s;
}

void console_obj_print(struct kobject *obj, const char *buf, size_t n)
{
	atomic_long_add(console_print_program_lines(buf, n), &to_console(obj)->lines);
}

long console_obj_lines(struct kobject *obj)
{
	return atomic_long_read(&to_console(obj)->lines);
}

void console_obj_init(void)
{
	kobject_register(KOBJ_CONSOLE, &console_ops);
}
