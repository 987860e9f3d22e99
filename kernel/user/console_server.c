/*
 * Starting the console server (user/console_server.c, docs/drivers.md):
 * the kernel lets the UART's receive line go and starts the program with
 * what it needs, the root-task way -- the line's interrupt capability in
 * its slot 0, the UART's registers in 1, a new endpoint to serve in 2,
 * the kernel's console in 3.  While no program holds the console, the
 * server hands the keys back to the kernel (SYS_console_push), so the
 * monitor and the demos' pacing get them through it.  tests/console_server.c
 * starts it, and the boot does with console.server=1 (make run carries
 * the module).
 */
#include "user/task.h"
#include "user/module.h"
#include "user/user.h"
#include "object/cap.h"
#include "object/console.h"
#include "object/device.h"
#include "object/interrupt.h"
#include "user/console_server.h"
#include <errno.h>

static bool at_boot;
KPARAM_BOOL("console.server", at_boot);

static int setup(struct user_task *t, void *arg)
{
	struct console_server *cs = arg;
	struct device_regs regs;
	struct cap_ref ref;
	int s;

	arch_console_regs(&regs);
	s = interrupt_cap_grant(t->cspace, 0, console_input_irq());
	if (s >= 0)
		s = device_cap_grant(t->cspace, 1, &regs);
	if (s >= 0)
		s = cap_create(t->cspace, KOBJ_ENDPOINT, CONSOLE_SERVER_EP, 0);
	if (s >= 0)
		s = console_cap_grant(t->cspace, CONSOLE_SERVER_CONS);
	if (s >= 0)
		s = cap_lookup(t->cspace, CONSOLE_SERVER_CONS, KOBJ_CONSOLE, 0, &ref);
	if (s < 0)
		return s;
	cs->cons = ref.obj;
	s = cap_lookup(t->cspace, CONSOLE_SERVER_EP, KOBJ_ENDPOINT, 0, &ref);
	if (s < 0)
		return s;
	cs->ep = ref.obj;
	return 0;
}

int console_server_start(struct console_server *cs)
{
	int err = 0;

	*cs = (struct console_server){ 0 };
	if (console_input_irq() < 0)
		return -ENODEV;
	if (!boot_module_find(CONSOLE_SERVER))
		return -ENOENT;
	console_input_release();
	cs->task = user_spawn_with(CONSOLE_SERVER, NULL, &err, setup, cs);
	if (!cs->task) {
		console_server_put(cs);
		console_input_reclaim();
		return err;
	}
	return 0;
}

void console_server_put(struct console_server *cs)
{
	if (cs->ep)
		kobject_put(cs->ep);
	if (cs->cons)
		kobject_put(cs->cons);
	if (cs->task)
		user_task_put(cs->task);
	*cs = (struct console_server){ 0 };
}

void console_server_boot(void)
{
	struct console_server cs;
	int err;

	if (!at_boot)
		return;
	err = console_server_start(&cs);
	if (err) {
		printk("console: console.server=1, but the console server did not start "
		       "(error %d): the kernel keeps the console's input\n", err);
		return;
	}
	printk("console: input served from user mode by %s[%d]\n", cs.task->name, cs.task->id);
	console_server_put(&cs);	/* it runs on for the rest of the boot */
}
