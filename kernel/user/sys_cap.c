/*
 * System calls on capabilities (lib/ipc.h, docs/microkernel.md): create,
 * copy, mint, move, delete, revoke, inspect; memory objects' mappings;
 * a task spawned with capabilities; tasks and threads killed and waited
 * for through capabilities.  Each checks its arguments, then calls
 * kernel/object/, which checks the slots (-EBADF, -ENOTSUP, -EACCES).
 */
#include "user/syscalls.h"
#include "object/cap.h"
#include "object/memory.h"
#include "object/program.h"
#include "object/task.h"
#include "object/types.h"
#include "object/lookup.h"
#include <errno.h>

static struct cspace *current_cspace(void)
{
	return current_user_task()->cspace;
}

/* (type, slot or SYS_CAP_ANY_SLOT, arg): a new object and its first capability. */
long sys_cap_create(const struct syscall_args *a)
{
	int type = arg_int(a->arg[0]);

	if (type != KOBJ_ENDPOINT && type != KOBJ_NOTIFICATION && type != KOBJ_MEMORY &&
	    type != KOBJ_THREAD && type != KOBJ_QUOTA)
		return -EINVAL;		/* (tasks come from SYS_cap_spawn, programs from the boot) */
	return cap_create(current_cspace(), type, arg_int(a->arg[1]), a->arg[2]);
}

long sys_cap_copy(const struct syscall_args *a)
{
	return cap_copy(current_cspace(), arg_int(a->arg[0]), arg_int(a->arg[1]));
}

/* (src, dst, rights, badge): a child with rights & the source's, and the badge if it had none. */
long sys_cap_mint(const struct syscall_args *a)
{
	/* (rights is an int: a negative one, sign-extended, is -EINVAL) */
	return cap_mint(current_cspace(), arg_int(a->arg[0]), arg_int(a->arg[1]),
			(long)arg_int(a->arg[2]), a->arg[3]);
}

long sys_cap_move(const struct syscall_args *a)
{
	return cap_move(current_cspace(), arg_int(a->arg[0]), arg_int(a->arg[1]));
}

long sys_cap_delete(const struct syscall_args *a)
{
	return cap_delete(current_cspace(), arg_int(a->arg[0]));
}

long sys_cap_revoke(const struct syscall_args *a)
{
	return cap_revoke(current_cspace(), arg_int(a->arg[0]));
}

long sys_cap_inspect(const struct syscall_args *a)
{
	struct sys_cap_info info = { 0 };
	int err;

	if (put_user(info, a->arg[1]))	/* a bad pointer fails before anything is read */
		return -EFAULT;
	err = cap_inspect(current_cspace(), arg_int(a->arg[0]), &info);
	if (!err && put_user(info, a->arg[1]))
		return -EFAULT;
	return err;
}

/* (slot, addr or 0, prot): the address it is mapped at. */
long sys_mem_map(const struct syscall_args *a)
{
	return memory_cap_map(current_cspace(), arg_int(a->arg[0]), current_user_task()->mm,
			      a->arg[1], arg_int(a->arg[2]));
}

long sys_mem_unmap(const struct syscall_args *a)
{
	return memory_cap_unmap_slot(current_cspace(), arg_int(a->arg[0]));
}

struct spawn_caps {
	struct cspace *from;
	int slots[SYS_SPAWN_MAX_CAPS];
	int n;
	long task_slot;			/* where the parent wants the child's capability */
	struct kobject *task_obj;	/* the capability's object once made (a reference) */
	int installed;			/* ... and the slot it went to */
};

/* Before the child's first instruction: its slots 0 .. n-1, and the parent's capability to it. */
static int spawn_setup(struct user_task *child, void *arg)
{
	struct spawn_caps *sc = arg;
	struct kobject *obj;
	int err = 0, s;

	for (int i = 0; i < sc->n; i++) {
		s = cap_transfer(sc->from, sc->slots[i], child->cspace, i, false);
		/* (it never waits for the child's quota: we may, holding nothing) */
		if (s == -ENOMEM && quota_reclaim(child->quota))
			s = cap_transfer(sc->from, sc->slots[i], child->cspace, i, false);
		if (s < 0)
			return s;
	}
	if (sc->task_slot == SYS_RECV_SLOT_NONE)
		return 0;
	obj = task_obj_create(child, sc->from->quota, &err);
	if (!obj)
		return err;
	s = cap_insert_object(sc->from, sc->task_slot, obj, SYS_CAP_ALL);
	if (s < 0) {
		task_obj_disarm(obj);	/* the child never runs: its last put must be ours, here */
		kobject_put(obj);
		return s;
	}
	sc->task_obj = obj;		/* (our reference: sys_cap_spawn() drops it) */
	sc->installed = s;
	return 0;
}

/* The child's argv: the program's name, then the caller's args. */
static int spawn_cmdline(char *cmdline, const struct boot_module *m, const struct sys_spawn *req)
{
	size_t name_len = strlen(m->name);

	strcpy(cmdline, m->name);
	if (!req->args_len)
		return 0;
	if (req->args_len >= MODULE_CMDLINE_LEN - name_len - 1)
		return -E2BIG;
	cmdline[name_len] = ' ';
	if (copy_from_user(cmdline + name_len + 1, (uintptr_t)req->args, req->args_len))
		return -EFAULT;
	cmdline[name_len + 1 + req->args_len] = '\0';
	return 0;
}

/* The quota the child spends from, with a reference: the caller's, or a quota capability's. */
static int spawn_quota(int slot, struct quota **out)
{
	struct cap_ref ref;
	int err;

	if (slot == SYS_SPAWN_MY_QUOTA) {
		*out = current_user_task()->quota;
		quota_get(*out);
		return 0;
	}
	/*
	 * Holds a reference (a cold call, kept as it was): the quota it
	 * returns is stored in the child, with quota_get() -- a plain
	 * increment, right only on a quota whose object we hold.
	 */
	err = cap_lookup(current_cspace(), slot, KOBJ_QUOTA, SYS_CAP_WRITE, &ref);
	if (err)
		return err;
	*out = quota_of(ref.obj);
	quota_get(*out);
	kobject_put(ref.obj);
	return 0;
}

/*
 * (const struct sys_spawn *req): the program req->program names (a
 * capability with SYS_CAP_EXEC: no other way to start one), spending from
 * req->quota, with copies of the caller's capabilities req->caps[0 ..
 * ncaps-1] in its slots 0 .. ncaps-1, and a capability to it in the
 * caller's req->task_slot (SYS_CAP_ANY_SLOT: the first empty one;
 * SYS_RECV_SLOT_NONE: none).  The child's task id; nothing is left
 * behind if any step fails.
 */
long sys_cap_spawn(const struct syscall_args *a)
{
	char cmdline[MODULE_CMDLINE_LEN];
	struct spawn_caps sc = { .from = current_cspace() };
	struct spawn_how how = { .parent = current_user_task(), .setup = spawn_setup, .arg = &sc };
	const struct boot_module *m;
	struct user_task *child;
	struct sys_spawn req;
	struct cap_ref prog;
	int err, id;

	if (copy_from_user(&req, a->arg[0], sizeof(req)))
		return -EFAULT;
	if (req.ncaps < 0 || req.ncaps > SYS_SPAWN_MAX_CAPS)
		return -EINVAL;
	if (req.task_slot < SYS_RECV_SLOT_NONE || req.task_slot >= SYS_CAP_MAX_SLOTS)
		return -EBADF;
	if (req.ncaps && copy_from_user(sc.slots, (uintptr_t)req.caps, req.ncaps * sizeof(int)))
		return -EFAULT;
	sc.n = req.ncaps;
	sc.task_slot = req.task_slot;
	/* Reference-free: read before anything sleeps (boot modules stay for ever: m stays valid). */
	err = cap_lookup_noref(sc.from, req.program, KOBJ_PROGRAM, SYS_CAP_EXEC, &prog);
	if (err)
		return err;
	m = program_module(cap_ref_obj(&prog));
	cap_ref_put(&prog);
	err = spawn_cmdline(cmdline, m, &req);
	if (!err)
		err = spawn_quota(req.quota, &how.quota);
	if (err)
		return err;
	child = user_spawn_program(m, cmdline, &how, &err);
	quota_put(how.quota);		/* (the child holds its own) */
	if (sc.task_obj) {
		/* A step after the capability failed: the child never runs, and goes with it. */
		if (!child)
			cap_revoke_object(sc.from, sc.installed, sc.task_obj);
		kobject_put(sc.task_obj);
	}
	if (!child)
		return err;
	id = child->id;
	user_task_put(child);
	return id;
}

/* (program, buf, size): its name, with a NUL, in buf -> the name's length. */
long sys_program_name(const struct syscall_args *a)
{
	const struct boot_module *m;
	struct cap_ref ref;
	size_t len;
	/* Reference-free: read before copy_to_user() can sleep (boot modules stay for ever). */
	int err = cap_lookup_noref(current_cspace(), arg_int(a->arg[0]), KOBJ_PROGRAM,
				   SYS_CAP_READ, &ref);

	if (err)
		return err;
	m = program_module(cap_ref_obj(&ref));
	cap_ref_put(&ref);
	len = strlen(m->name);
	if (a->arg[2] < len + 1)
		return -E2BIG;
	if (copy_to_user(a->arg[1], m->name, len + 1))
		return -EFAULT;
	return len;
}

/* (quota, struct sys_quota_info *): its limit and counts. */
long sys_quota_info(const struct syscall_args *a)
{
	struct sys_quota_info info = { 0 };
	struct cap_ref ref;
	int err;

	if (put_user(info, a->arg[1]))
		return -EFAULT;
	/* Reference-free: the report reads counters, and put_user() (which may sleep) comes after. */
	err = cap_lookup_noref(current_cspace(), arg_int(a->arg[0]), KOBJ_QUOTA, SYS_CAP_READ,
			       &ref);
	if (err)
		return err;
	quota_report(quota_of(cap_ref_obj(&ref)), &info);
	cap_ref_put(&ref);
	return put_user(info, a->arg[1]) ? -EFAULT : 0;
}

/*
 * A task or thread capability with `rights`: its object, with a reference
 * (kill and wait keep it: a wait sleeps on the object, and a kill reaches
 * the task or thread behind it through paths that may sleep).
 */
static int task_or_thread(int slot, unsigned int rights, struct cap_ref *ref)
{
	int err = cap_lookup(current_cspace(), slot, KOBJ_TASK, rights, ref);

	if (err == -ENOTSUP)
		err = cap_lookup(current_cspace(), slot, KOBJ_THREAD, rights, ref);
	return err;
}

long sys_obj_kill(const struct syscall_args *a)
{
	struct cap_ref ref;
	int err = task_or_thread(arg_int(a->arg[0]), SYS_CAP_WRITE, &ref);

	if (err)
		return err;
	err = object_kill(ref.obj);
	kobject_put(ref.obj);
	return err;
}

/* (slot, struct sys_exit_status *): waits until it ended; how, in *st. */
long sys_obj_wait(const struct syscall_args *a)
{
	struct sys_exit_status st = { 0 };
	struct cap_ref ref;
	int err;

	if (put_user(st, a->arg[1]))
		return -EFAULT;
	err = task_or_thread(arg_int(a->arg[0]), SYS_CAP_READ, &ref);
	if (err)
		return err;
	err = object_wait(ref.obj, &st);	/* (the reference keeps it while we sleep) */
	kobject_put(ref.obj);
	if (!err && put_user(st, a->arg[1]))
		return -EFAULT;
	return err;
}
