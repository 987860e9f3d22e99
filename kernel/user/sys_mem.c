/* System calls on the address space: map and unmap anonymous memory. */
#include "user/syscalls.h"

/* (addr or 0, len, prot): zeroed pages; never writable and executable at once. */
long sys_map(const struct syscall_args *a)
{
	return mm_map(current_user_task()->mm, a->arg[0], a->arg[1], arg_int(a->arg[2]),
		      VM_ANON);
}

/* (addr, len): every CPU that ran the task has forgotten the pages when it returns. */
long sys_unmap(const struct syscall_args *a)
{
	return mm_unmap(current_user_task()->mm, a->arg[0], a->arg[1]);
}
