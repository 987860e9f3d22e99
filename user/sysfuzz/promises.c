/*
 * What the ABI promises of an answer (lib/syscall.h, lib/ipc.h), where
 * the arguments alone decide it: sysfuzz's check of every call.
 */
#include "sysfuzz.h"

/*
 * A slot number no capability space has (lib/ipc.h).  A slot is an int
 * (lib/syscall.h): the kernel reads the low 32 bits of the register.
 */
static bool no_slot(long arg)
{
	int slot = (int)arg;

	return slot < 0 || slot >= SYS_CAP_MAX_SLOTS;
}

/* The capability calls' promises (lib/ipc.h), where the arguments alone decide. */
static bool kept_cap_call(long nr, const long *a, long r)
{
	switch (nr) {
	case SYS_cap_create:
		if ((int)a[0] != SYS_OBJ_ENDPOINT && (int)a[0] != SYS_OBJ_NOTIFICATION &&
		    (int)a[0] != SYS_OBJ_MEMORY && (int)a[0] != SYS_OBJ_THREAD &&
		    (int)a[0] != SYS_OBJ_QUOTA)
			return r == -SYS_EINVAL;
		return r < 0 || (r < SYS_CAP_MAX_SLOTS &&
				 ((int)a[1] == SYS_CAP_ANY_SLOT || r == (int)a[1]));
	case SYS_cap_delete:
	case SYS_cap_revoke:
	case SYS_ntf_poll:
	case SYS_mem_unmap:
	case SYS_irq_ack:
	case SYS_dev_map:
		return !no_slot(a[0]) || r == -SYS_EBADF;
	case SYS_irq_bind:
		if (!a[2] || (unsigned long)a[2] > SYS_BADGE_MAX)
			return r == -SYS_EINVAL;
		return !no_slot(a[0]) || r == -SYS_EBADF;
	case SYS_console_lines:
	case SYS_console_push:
		if (outside_user(a[1]))
			return !a[2] || r == -SYS_EFAULT;
		return !no_slot(a[0]) || r == -SYS_EBADF;
	case SYS_cap_mint:
		if ((unsigned long)(long)(int)a[2] > SYS_CAP_ALL ||
		    (unsigned long)a[3] > SYS_BADGE_MAX)
			return r == -SYS_EINVAL;
		return !no_slot(a[0]) || r == -SYS_EBADF;
	case SYS_cap_inspect:
		return !outside_user(a[1]) || r == -SYS_EFAULT;
	case SYS_ipc_recv:
		if ((unsigned long)(long)(int)a[1] > SYS_RECV_NONBLOCK)
			return r == -SYS_EINVAL;
		return r < 0 ? !no_slot(a[0]) || r == -SYS_EBADF : (unsigned long)r <= SYS_BADGE_MAX;
	case SYS_ntf_signal:
		return (unsigned long)a[1] <= SYS_BADGE_MAX || r == -SYS_EINVAL;
	case SYS_ipc_recv_slot:
		return ((int)a[0] >= SYS_RECV_SLOT_NONE && (int)a[0] < SYS_CAP_MAX_SLOTS) ||
		       r == -SYS_EBADF;
	}
	return true;
}

/* SYS_membarrier: Linux's commands, flags 0, -EPERM only before the task registered. */
static bool kept_membarrier(const long *a, long r)
{
	int cmd = (int)a[0];

	if ((unsigned int)a[1])
		return r == -SYS_EINVAL;
	switch (cmd) {
	case SYS_MEMBARRIER_CMD_QUERY:
		return r == SYS_MEMBARRIER_CMDS;
	case SYS_MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED:
		return r == 0;
	case SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED:
		return r == 0 || r == -SYS_EPERM;
	}
	return r == -SYS_EINVAL;
}

/* What the ABI promises, where it promises something; false if the kernel broke it. */
bool kept(long nr, const long *a, long r)
{
	if (nr < 0 || nr >= NR_SYSCALLS)
		return r == -SYS_ENOSYS;
	if (nr == SYS_console_write && outside_user(a[0]) && a[1])
		return r == -SYS_EFAULT;
	if ((nr == SYS_thread_wait || nr == SYS_task_wait) && outside_user(a[1]))
		return r == -SYS_EFAULT;
	if (nr == SYS_cap_spawn && outside_user(a[0]))
		return r == -SYS_EFAULT;
	if (nr == SYS_set_tls && a[0] && outside_user(a[0]))
		return r == -SYS_EINVAL;
	if (nr == SYS_thread_create && outside_user(a[0]))
		return r == -SYS_EINVAL;
	if (nr == SYS_map && (a[2] & SYS_PROT_WRITE) && (a[2] & SYS_PROT_EXEC))
		return r == -SYS_EINVAL;
	if (nr == SYS_membarrier)
		return kept_membarrier(a, r);
	return kept_cap_call(nr, a, r);
}
