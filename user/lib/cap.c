/* Capabilities, memory objects and tasks by capability for programs (qcap.h). */
#include <string.h>
#include "qcap.h"

int q_endpoint_create(int slot)
{
	return q_syscall(SYS_cap_create, SYS_OBJ_ENDPOINT, slot, 0, 0, 0, 0);
}

int q_notification_create(int slot)
{
	return q_syscall(SYS_cap_create, SYS_OBJ_NOTIFICATION, slot, 0, 0, 0, 0);
}

int q_memory_create(int slot, long pages)
{
	return q_syscall(SYS_cap_create, SYS_OBJ_MEMORY, slot, pages, 0, 0, 0);
}

int q_thread_cap(int slot, int tid)
{
	return q_syscall(SYS_cap_create, SYS_OBJ_THREAD, slot, tid, 0, 0, 0);
}

int q_cap_copy(int src, int dst)
{
	return q_syscall(SYS_cap_copy, src, dst, 0, 0, 0, 0);
}

int q_cap_mint(int src, int dst, int rights, unsigned long badge)
{
	return q_syscall(SYS_cap_mint, src, dst, rights, (long)badge, 0, 0);
}

int q_cap_move(int src, int dst)
{
	return q_syscall(SYS_cap_move, src, dst, 0, 0, 0, 0);
}

int q_cap_delete(int slot)
{
	return q_syscall(SYS_cap_delete, slot, 0, 0, 0, 0, 0);
}

int q_cap_revoke(int slot)
{
	return q_syscall(SYS_cap_revoke, slot, 0, 0, 0, 0, 0);
}

int q_cap_inspect(int slot, struct sys_cap_info *info)
{
	return q_syscall(SYS_cap_inspect, slot, (long)info, 0, 0, 0, 0);
}

long q_memory_map(int mem, void *addr, int prot)
{
	return q_syscall(SYS_mem_map, mem, (long)addr, prot, 0, 0, 0);
}

int q_memory_unmap(int mem)
{
	return q_syscall(SYS_mem_unmap, mem, 0, 0, 0, 0, 0);
}

int q_quota_create(int slot, long kib)
{
	return q_syscall(SYS_cap_create, SYS_OBJ_QUOTA, slot, kib, 0, 0, 0);
}

int q_quota_info(int quota, struct sys_quota_info *info)
{
	return q_syscall(SYS_quota_info, quota, (long)info, 0, 0, 0, 0);
}

int q_kill(int task_or_thread)
{
	return q_syscall(SYS_obj_kill, task_or_thread, 0, 0, 0, 0, 0);
}

int q_wait_for(int task_or_thread, struct sys_exit_status *st)
{
	return q_syscall(SYS_obj_wait, task_or_thread, (long)st, 0, 0, 0, 0);
}
