/*
 * sysfuzz's calls shaped (user/sysfuzz/main.c): each call's arguments,
 * mostly drawn to reach past the kernel's first checks, and the calls the
 * fuzzer never makes because it would not survive them.
 */
#include <string.h>
#include "sysfuzz.h"

/* Our memory the shaped calls may name: the kernel writes the first two, reads the rest. */
static struct sys_cap_info cap_info[MAX_WORKERS + 1];
static char info_page[64];
static char child_args[] = CHILD_ARGS;
static struct sys_spawn spawn_reqs[MAX_WORKERS + 1];
static const long membarrier_cmds[] = {
	SYS_MEMBARRIER_CMD_QUERY, SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED,
	SYS_MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED,
};

/* The drivers' calls: mostly at the granted slots, with our own text and any length. */
static void shape_driver_call(struct fuzzer *f, long nr, long *a)
{
	if (below(f, 2))
		a[0] = DRIVER_SLOTS + (long)below(f, 3);
	switch (nr) {
	case SYS_irq_bind:
		a[1] = below(f, 2) ? FUZZ_NTF : cap_slot(f);
		a[2] = below(f, 4) ? (long)below(f, 256) : number(f);
		break;
	case SYS_dev_map:
		a[1] = below(f, 2) ? 0 : below(f, 2) ? arena_addr(f) : bad_pointer(f);
		break;
	case SYS_console_lines:
	case SYS_console_push:
		a[1] = below(f, 4) ? (long)text : bad_pointer(f);
		a[2] = a[1] == (long)text ? (long)below(f, sizeof(text) + 1) : number(f);
		break;
	}
}

/* A spawn request: mostly our own program, with "exit" (it ends at once). */
static struct sys_spawn *shape_spawn(struct fuzzer *f)
{
	struct sys_spawn *req = &spawn_reqs[f->id % (MAX_WORKERS + 1)];

	req->program = below(f, 4) ? PROGRAM : (int)cap_slot(f);
	req->quota = below(f, 2) ? SYS_SPAWN_MY_QUOTA : (int)cap_slot(f);
	req->task_slot = below(f, 2) ? SYS_RECV_SLOT_NONE : (int)cap_slot(f);
	req->ncaps = (int)below(f, SHARED_SLOTS + 2);	/* (one too many: -SYS_EINVAL) */
	req->caps = below(f, 2) ? spawn_slots : (const int *)bad_pointer(f);
	req->args = below(f, 8) ? child_args : (const char *)bad_pointer(f);
	req->args_len = req->args == child_args ? strlen(child_args) : (unsigned long)number(f);
	return req;
}

static void shape_cap_call(struct fuzzer *f, long nr, long *a)
{
	a[0] = cap_slot(f);
	a[1] = cap_slot(f);
	switch (nr) {
	case SYS_cap_create:
		a[0] = below(f, 8) ? 1 + (long)below(f, SYS_OBJ_TYPES) : number(f);
		a[1] = cap_slot(f);
		a[2] = a[0] == SYS_OBJ_MEMORY ? 1 + (long)below(f, 4) :
		       a[0] == SYS_OBJ_QUOTA && below(f, 2) ? 1 + (long)below(f, 64) :
		       a[0] == SYS_OBJ_THREAD ? q_thread_id() + (long)below(f, 6) - 3 : number(f);
		break;
	case SYS_cap_mint:
		a[2] = below(f, 4) ? (long)below(f, SYS_CAP_ALL + 1) : number(f);
		a[3] = below(f, 2) ? (long)below(f, 100) : number(f);
		break;
	case SYS_cap_inspect:
	case SYS_obj_wait:
		a[1] = below(f, 4) ? (long)(f->id == MAX_WORKERS ? info_page :
					      (char *)&cap_info[f->id]) : bad_pointer(f);
		break;
	case SYS_ipc_send:
	case SYS_ipc_call:
	case SYS_ipc_reply:
	case SYS_ipc_reply_recv:
		a[1] = msg_info(f);
		if (nr == SYS_ipc_send && below(f, 8))
			a[1] |= SYS_MSG_NONBLOCK;	/* (a blocking one may wait until it is killed) */
		if (nr == SYS_ipc_call && below(f, 8))
			a[0] = SERVED_EP;
		if (nr == SYS_ipc_reply)
			a[0] = below(f, 8) ? 0 : number(f);
		break;
	case SYS_ipc_recv:
		a[1] = below(f, 8) ? SYS_RECV_NONBLOCK : number(f);
		break;
	case SYS_ipc_recv_slot:
		a[0] = below(f, 2) ? (long)below(f, CAP_SLOTS) - 2 : number(f);
		break;
	case SYS_ntf_signal:
		a[1] = below(f, 4) ? (long)below(f, 256) : number(f);
		break;
	case SYS_mem_map:
		a[1] = below(f, 2) ? 0 : below(f, 2) ? arena_addr(f) : bad_pointer(f);
		a[2] = (long)below(f, 9);
		break;
	case SYS_irq_bind:
	case SYS_irq_ack:
	case SYS_dev_map:
	case SYS_console_lines:
	case SYS_console_push:
		shape_driver_call(f, nr, a);
		break;
	case SYS_cap_spawn:
		a[0] = below(f, 8) ? bad_pointer(f) : (long)shape_spawn(f);	/* a task is dear */
		break;
	case SYS_program_name:
	case SYS_quota_info:
		a[1] = below(f, 2) ? (long)info_page : bad_pointer(f);
		a[2] = below(f, 2) ? (long)below(f, sizeof(info_page) + 1) : number(f);
		break;
	}
}

/* The type of the capability in slot now (0: none). */
static int slot_type(long slot)
{
	struct sys_cap_info info;

	return q_cap_inspect(slot, &info) ? 0 : info.type;
}

/* Arguments for call nr: sometimes all random, mostly shaped to reach past the checks. */
void shape(struct fuzzer *f, long nr, long *a)
{
	for (int i = 0; i < 6; i++)
		a[i] = below(f, 2) ? number(f) : bad_pointer(f);
	if (below(f, 16) == 0)
		return;		/* as drawn, for the calls that stay harmless */
	switch (nr) {
	case SYS_console_write:
		a[0] = below(f, 8) ? bad_pointer(f) : (long)text;	/* (keeps the console readable) */
		a[1] = a[0] == (long)text ? (long)below(f, sizeof(text) + 1) : number(f);
		break;
	case SYS_sleep:
		/* Mostly 0 (returns at once): any other sleep lasts a tick. */
		a[0] = below(f, 32) ? 0 : (long)below(f, 1000000);
		break;
	case SYS_map:
		a[0] = below(f, 4) ? arena_addr(f) : below(f, 2) ? 0 : bad_pointer(f);
		a[1] = arena_len(f);
		a[2] = (long)below(f, 9);		/* every prot, some refused */
		break;
	case SYS_unmap:
		a[0] = below(f, 4) ? arena_addr(f) : bad_pointer(f);
		a[1] = arena_len(f);
		break;
	case SYS_thread_create:
		a[0] = below(f, 2) ? (long)worker : bad_pointer(f);	/* worker: one_call() */
		a[1] = (long)next(f);
		a[2] = 0;
		a[3] = below(f, 4) ? -1 : number(f);
		break;
	case SYS_thread_wait:
	case SYS_task_wait:
		a[0] = below(f, 2) ? q_thread_id() + (long)below(f, 8) - 4 : number(f);
		a[1] = below(f, 2) ? (long)&statuses[f->id % 4] : bad_pointer(f);
		break;
	case SYS_set_cpu:
		a[0] = below(f, 2) ? (long)below(f, q_nr_cpus() + 2) - 1 : number(f);
		break;
	case SYS_set_tls:
		a[0] = below(f, 2) ? bad_pointer(f) : number(f);
		break;
	case SYS_membarrier:
		/* Mostly its three commands (and 0 flags), else anything. */
		a[0] = below(f, 4) ? membarrier_cmds[below(f, 3)] : number(f);
		a[1] = below(f, 4) ? 0 : number(f);
		break;
	default:
		if (nr >= SYS_cap_create && nr < NR_SYSCALLS)
			shape_cap_call(f, nr, a);
		break;
	}
}

/*
 * The calls the fuzzer would not survive, or that would make the run
 * endless: a wait for a thread that may never end (a fuzzing thread, or
 * from a worker: two workers waiting for each other would wait for ever).
 */
bool deadly(const struct fuzzer *f, long nr, const long *a)
{
	if (nr == SYS_thread_wait) {
		if (f->id >= MAX_WORKERS)
			return true;
		for (int i = 0; i < MAX_WORKERS + 3; i++)
			if (long_lived[i] && a[0] == long_lived[i])
				return true;
	}
	/* A fuzzing task's status is main's to collect: it counts a lost one as a failure. */
	for (int i = 0; nr == SYS_task_wait && i < MAX_TASKS; i++)
		if (fuzzing_tasks[i] && (int)a[0] == fuzzing_tasks[i])
			return true;
	if (nr == SYS_exit || nr == SYS_thread_exit || nr == SYS_abort)
		return true;
	if (nr == SYS_sleep && (unsigned long)a[0] > 1000000)
		return true;
	if ((nr == SYS_map || nr == SYS_unmap) && !outside_user(a[0]) &&
	    ((unsigned long)a[0] < ARENA || (unsigned long)a[0] >= ARENA + ARENA_PAGES * PAGE))
		return true;	/* it could unmap our own text or stack */
	if (nr == SYS_thread_create && a[0] != (long)worker && !outside_user(a[0]))
		return true;	/* a thread at a random address faults and kills us */
	if (nr == SYS_console_write && a[0] == (long)text && (unsigned long)a[1] > sizeof(text))
		return true;	/* it would print what lies past the text */
	if ((nr == SYS_thread_wait || nr == SYS_task_wait) && !outside_user(a[1]) &&
	    a[1] != (long)&statuses[0] && a[1] != (long)&statuses[1] &&
	    a[1] != (long)&statuses[2] && a[1] != (long)&statuses[3])
		return true;	/* it would write our memory */
	if ((nr == SYS_cap_inspect || nr == SYS_obj_wait || nr == SYS_program_name ||
	     nr == SYS_quota_info) && !outside_user(a[1]) &&
	    a[1] != (long)&cap_info[f->id % (MAX_WORKERS + 1)] && a[1] != (long)info_page)
		return true;	/* it would write our memory */
	/* Killing, or waiting for, a thread of ours (or ourselves) ends or stalls the run. */
	if ((nr == SYS_obj_kill || nr == SYS_obj_wait) && slot_type(a[0]) != SYS_OBJ_TASK)
		return nr == SYS_obj_kill || slot_type(a[0]) == SYS_OBJ_THREAD;
	if ((nr == SYS_console_lines || nr == SYS_console_push) && !outside_user(a[1]) &&
	    (a[1] != (long)text || (unsigned long)a[2] > sizeof(text)))
		return true;	/* it would print, or type, our memory */
	if (nr == SYS_dev_map && !outside_user(a[1]) && a[1] &&
	    ((unsigned long)a[1] < ARENA || (unsigned long)a[1] >= ARENA + ARENA_PAGES * PAGE))
		return true;	/* (only 0, the arena, or outside user space) */
	if (nr == SYS_mem_map && !outside_user(a[1]) &&
	    ((unsigned long)a[1] < ARENA || (unsigned long)a[1] >= ARENA + ARENA_PAGES * PAGE))
		return true;	/* (only 0, the arena, or outside user space) */
	/* A worker must end (others wait for it): nothing that may wait for ever. */
	if (f->id == MAX_WORKERS &&
	    (nr == SYS_ipc_reply_recv || nr == SYS_ipc_call || nr == SYS_ntf_wait ||
	     nr == SYS_obj_wait || (nr == SYS_ipc_recv && !(a[1] & SYS_RECV_NONBLOCK)) ||
	     (nr == SYS_ipc_send && !(a[1] & SYS_MSG_NONBLOCK))))
		return true;
	return false;
}
