/*
 * Memory objects (docs/microkernel.md): frames shared by mapping copies of
 * one capability; each capability maps once, its mapping goes with it,
 * and only it unmaps it; the rights decide the protection; revoking the
 * original unmaps every copy, in this task and in another one (which then
 * faults).
 */
#include <string.h>
#include "qcap.h"
#include "utest.h"

#define PAGES		4
#define READER		"tests/user/helpers/mem_reader"

static void shared_frames(int mem)
{
	int copy = q_cap_copy(mem, SYS_CAP_ANY_SLOT), ro = q_cap_mint(mem, SYS_CAP_ANY_SLOT,
									 SYS_CAP_READ, 0);
	long a = q_memory_map(mem, 0, SYS_PROT_READ | SYS_PROT_WRITE);
	long b = q_memory_map(copy, 0, SYS_PROT_READ);
	struct sys_cap_info info;

	CHECK(!SYS_IS_ERROR(a) && !SYS_IS_ERROR(b) && a != b);
	for (int i = 0; i < PAGES * 4096 / 8; i++)
		((unsigned long *)a)[i] = 0x5eed0000UL + i;
	CHECK_EQ(((unsigned long *)b)[PAGES * 4096 / 8 - 1], 0x5eed0000UL + PAGES * 4096 / 8 - 1);
	CHECK_EQ(q_memory_map(mem, 0, SYS_PROT_READ), -SYS_EBUSY);	/* once per capability */
	CHECK_EQ(q_memory_map(ro, 0, SYS_PROT_READ | SYS_PROT_WRITE), -SYS_EACCES);
	CHECK_EQ(q_memory_map(ro, 0, SYS_PROT_READ | SYS_PROT_EXEC), -SYS_EACCES);
	CHECK_EQ(q_memory_map(copy, 0, SYS_PROT_WRITE | SYS_PROT_EXEC), -SYS_EINVAL);
	CHECK_EQ(q_memory_map(mem, 0, 0), -SYS_EINVAL);
	CHECK_EQ(q_memory_map(mem, 0, 8), -SYS_EINVAL);
	CHECK_EQ(q_unmap((void *)a, 4096), -SYS_EINVAL);	/* only the capability unmaps it */
	CHECK_EQ(q_cap_inspect(mem, &info), 0);
	CHECK_EQ(info.mapped, 1);
	CHECK_EQ(info.addr, a);
	CHECK_EQ(q_memory_unmap(copy), 0);
	CHECK_EQ(q_memory_unmap(copy), -SYS_EINVAL);
	CHECK_EQ(q_memory_unmap(0x7ff), -SYS_EBADF);
	/* Its mapping goes with the capability. */
	b = q_memory_map(copy, 0, SYS_PROT_READ);
	CHECK_EQ(q_cap_delete(copy), 0);
	CHECK_EQ(q_memory_map(ro, (void *)b, SYS_PROT_READ), b);	/* the room is free again */
	CHECK_EQ(q_cap_delete(ro), 0);
	CHECK_EQ(q_memory_unmap(mem), 0);
}

/*
 * Never writable and executable in one task (docs/user.md), not even
 * through two capabilities to the same frames.  Shown failing before:
 * both mappings were made.
 */
static void never_writable_and_executable(int mem)
{
	int w = q_cap_copy(mem, SYS_CAP_ANY_SLOT), x = q_cap_copy(mem, SYS_CAP_ANY_SLOT);
	int r = q_cap_copy(mem, SYS_CAP_ANY_SLOT);

	CHECK(!SYS_IS_ERROR(q_memory_map(w, 0, SYS_PROT_READ | SYS_PROT_WRITE)));
	CHECK_EQ(q_memory_map(x, 0, SYS_PROT_READ | SYS_PROT_EXEC), -SYS_EINVAL);
	CHECK(!SYS_IS_ERROR(q_memory_map(r, 0, SYS_PROT_READ)));	/* readable always */
	CHECK_EQ(q_memory_unmap(w), 0);
	CHECK(!SYS_IS_ERROR(q_memory_map(x, 0, SYS_PROT_READ | SYS_PROT_EXEC)));
	CHECK_EQ(q_memory_map(w, 0, SYS_PROT_READ | SYS_PROT_WRITE), -SYS_EINVAL);
	CHECK_EQ(q_cap_delete(x), 0);
	CHECK(!SYS_IS_ERROR(q_memory_map(w, 0, SYS_PROT_READ | SYS_PROT_WRITE)));
	CHECK_EQ(q_cap_delete(w), 0);
	CHECK_EQ(q_cap_delete(r), 0);
}

/* Revoking the original unmaps the copy another task mapped: it faults, and is killed. */
static void revoke_unmaps_everywhere(int mem)
{
	int ntf = q_notification_create(SYS_CAP_ANY_SLOT), caps[2] = { mem, ntf };
	struct sys_exit_status st;
	int task = 850;

	CHECK(q_spawn_caps(READER, caps, 2, task) > 0);
	CHECK_EQ(q_wait(ntf), 1);		/* it mapped the copy and reads it */
	CHECK_EQ(q_cap_revoke(mem), 1);		/* its copy: unmapped, TLBs flushed */
	CHECK_EQ(q_wait_for(task, &st), 0);
	CHECK_EQ(st.killed, SYS_KILLED_FAULT);
}

int main(void)
{
	int mem = q_memory_create(SYS_CAP_ANY_SLOT, PAGES);

	CHECK(mem >= 0);
	shared_frames(mem);
	never_writable_and_executable(mem);
	revoke_unmaps_everywhere(mem);
	CHECK_EQ(q_cap_delete(mem), 0);
	return check_result();
}
