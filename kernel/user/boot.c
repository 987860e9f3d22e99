/*
 * User space at boot: the boot modules, their program objects and the
 * reaper; under make run the root task, the first boot module, which
 * starts the others before the demos play; and the boot capabilities the
 * kernel gives the root task (and each task it starts as one).
 */
#include "user/thread.h"
#include "user/user.h"
#include "object/cap.h"
#include "object/program.h"
#include "user/console_server.h"
#include "user/membarrier.h"
#include "demo.h"

/* How long make run waits for the root task before the demos go on. */
#define BOOT_PROGRAM_TIMEOUT_S	30

void user_init(void)
{
	boot_modules_init();
	program_objects_init();
	reaper_init();
	membarrier_inject_announce();
}

/* What user_spawn_root_with() runs after the boot capabilities are in. */
struct root_setup {
	int (*setup)(struct user_task *t, void *arg);
	void *arg;
};

/*
 * The boot capabilities (lib/ipc.h): a capability to t's own quota, with
 * which it may read it and let a child spend from it, and one to every
 * boot program, derived from the boot space's; then the caller's setup.
 */
static int grant_boot_caps(struct user_task *t, void *arg)
{
	const struct root_setup *rs = arg;
	struct kobject *obj;
	int err = 0, s;

	obj = quota_obj_create(t->quota, t->quota, &err);
	if (!obj)
		return err;
	s = cap_insert_object(t->cspace, SYS_BOOT_SLOT_QUOTA, obj, SYS_CAP_READ | SYS_CAP_WRITE);
	kobject_put(obj);	/* (the capability holds its own) */
	if (s >= 0)
		s = program_caps_grant(t->cspace);
	if (s >= 0 && rs->setup)
		s = rs->setup(t, rs->arg);
	return s < 0 ? s : 0;
}

struct user_task *user_spawn_root_with(const char *cmdline, int *err,
				       int (*setup)(struct user_task *t, void *arg), void *arg)
{
	struct root_setup rs = { .setup = setup, .arg = arg };

	return user_spawn_with(cmdline, NULL, err, grant_boot_caps, &rs);
}

struct user_task *user_spawn_root(const char *cmdline, int *err)
{
	return user_spawn_root_with(cmdline, err, NULL, NULL);
}

/*
 * make run: the first boot module is the root task (user/root.c), which
 * starts the others -- make run's program, then the services -- so the
 * kernel starts it alone and waits for it.
 */
void user_run_boot_programs(void)
{
	const struct boot_module *m = boot_module_count() ? boot_module(0) : NULL;
	struct sys_exit_status st;
	struct user_task *t;
	int err;

	if (!m)
		return;
	if (demo_only("microkernel")) {
		printk("user: the root task %s starts in the demo\n", m->name);
		return;
	}
	t = user_spawn_root(m->cmdline, &err);
	if (!t) {
		printk("user: the root task %s did not start (error %d)\n", m->name, err);
		return;
	}
	/* (the console server, if the boot started it, is not the root task's to start) */
	printk("user: the root task is %s[%d]; it starts the other %d boot modules\n", t->name,
	       t->id, boot_module_count() - 1 - console_server_published());
	if (user_task_wait_timeout(t, BOOT_PROGRAM_TIMEOUT_S * NSEC_PER_SEC, &st)) {
		printk("user: %s[%d] still runs after %d s: the boot goes on\n", t->name, t->id,
		       BOOT_PROGRAM_TIMEOUT_S);
	} else if (st.killed || st.status) {
		printk("user: %s[%d] ended: %s %d\n", t->name, t->id,
		       st.killed ? "killed, reason" : "exit status", st.killed ? st.killed : st.status);
	}
	user_task_put(t);
}

void user_settle(void)
{
	/* (an object's free may give the reaper a task to put: reaper_put_task()) */
	do {
		reaper_flush();
		object_settle();	/* objects and capability nodes wait for grace periods */
	} while (reaper_busy());
}
