/*
 * Starting the console server (user/console_server.c, docs/drivers.md):
 * the kernel lets the UART's receive line go and starts the program,
 * through the boot space's program capability to it, with what it
 * needs, the root-task way -- the line's interrupt capability in
 * its slot 0, the UART's registers in 1, a new endpoint to serve in 2,
 * the kernel's console in 3.  While no program holds the console, the
 * server hands the keys back to the kernel (SYS_console_push), so the
 * monitor and the demos' pacing get them through it.  tests/console_server.c
 * starts it, and so does the boot when the module is there (make run
 * carries it; console.server=0 keeps the kernel's own input).  The boot's
 * server is published: every program started after it finds a capability
 * to its endpoint in SYS_CAP_CONSOLE_SLOT, and its runtime reads standard
 * input and writes standard output through it (user/lib/console.c).
 */
#include "user/task.h"
#include "user/module.h"
#include "user/user.h"
#include "object/cap.h"
#include "object/console.h"
#include "object/device.h"
#include "object/interrupt.h"
#include "object/program.h"
#include "user/console_server.h"
#include "object/lookup.h"
#include <errno.h>

static bool at_boot = true;
KPARAM_BOOL("console.server", at_boot);

/* The published server's endpoint (NULL: none), with a reference. */
static struct kobject *published;
static DEFINE_MUTEX(published_lock);

void console_server_publish(struct kobject *ep)
{
	struct kobject *old;

	if (ep)
		kobject_get(ep);
	mutex_lock(&published_lock);
	old = published;
	published = ep;
	mutex_unlock(&published_lock);
	if (old)
		kobject_put(old);
}

int console_server_published(void)
{
	int yes;

	mutex_lock(&published_lock);
	yes = published != NULL;
	mutex_unlock(&published_lock);
	return yes;
}

/*
 * user_spawn_program()'s: t's SYS_CAP_CONSOLE_SLOT gets the published
 * endpoint, to call and to give capabilities to (a client's hold sends one
 * to its own thread: user/console_server.c), with a badge of its own (the
 * server keeps each client's line and hold apart by it; t has no id yet).
 * Nothing if no server is published or the setup already filled the slot.
 */
void console_server_give(struct user_task *t)
{
	static atomic_long_t badges;	/* (only unique: relaxed) */
	struct kobject *ep;

	mutex_lock(&published_lock);
	ep = published;
	if (ep)
		kobject_get(ep);
	mutex_unlock(&published_lock);
	if (!ep)
		return;
	cap_insert_badged(t->cspace, SYS_CAP_CONSOLE_SLOT, ep, SYS_CAP_WRITE | SYS_CAP_GRANT,
			  atomic_long_inc_return_relaxed(&badges) & SYS_BADGE_MAX);
	kobject_put(ep);
}

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

/* (through the boot space's capability to the program, as the root task starts its services) */
int console_server_start(struct console_server *cs)
{
	struct spawn_how how = { .setup = setup, .arg = cs };
	struct kobject *prog;
	int err = 0;

	*cs = (struct console_server){ 0 };
	if (console_input_irq() < 0)
		return -ENODEV;
	prog = program_get(CONSOLE_SERVER);
	if (!prog)
		return -ENOENT;
	console_input_release();
	cs->task = user_spawn_program(program_module(prog), CONSOLE_SERVER, &how, &err);
	kobject_put(prog);	/* (boot modules stay for ever) */
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

	if (!at_boot || !boot_module_find(CONSOLE_SERVER))
		return;		/* (console.server=0, or a boot without the module: make test) */
	err = console_server_start(&cs);
	if (err) {
		printk("console: the console server did not start (error %d): "
		       "the kernel keeps the console's input\n", err);
		return;
	}
	console_server_publish(cs.ep);
	printk("console: served from user mode by %s[%d]; programs read and write through it "
	       "(console.server=0: the kernel keeps it)\n", cs.task->name, cs.task->id);
	console_server_put(&cs);	/* it runs on for the rest of the boot */
}
