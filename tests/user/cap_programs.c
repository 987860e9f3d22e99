/*
 * Programs by capability (docs/microkernel.md, "The root task"): the
 * kernel starts this test as it starts the root task, with a capability
 * to its quota and one to every boot program in the boot slots
 * (lib/ipc.h).  A program starts only through a capability to it with
 * the right to; a forged slot, another kind of object or a missing right
 * is refused; and a child holds only what its parent gave it: this
 * program again, as "cap_programs spawn" (spawner(), below).
 */
#include <stdio.h>
#include <string.h>
#include "qcap.h"
#include "utest.h"

#define SELF		"tests/user/cap_programs"
#define TARGET		"tests/user/helpers/exit_with"
#define EMPTY_SLOT	700
/* The spawner's exit statuses besides 0 and an error's number. */
#define HELD_BOOT_CAPS	100
#define CHILD_FAILED	101

static void boot_caps_are_there(void)
{
	struct sys_quota_info q;
	struct sys_cap_info info;
	char name[64];
	int self = q_program(SELF), n = 0;

	for (int s = SYS_BOOT_SLOT_PROGRAMS; !q_cap_inspect(s, &info); s++, n++) {
		CHECK_EQ(info.type, SYS_OBJ_PROGRAM);
		CHECK_EQ(info.rights, SYS_CAP_READ | SYS_CAP_EXEC);
		CHECK_EQ(info.parent_slot, -1);		/* derived from the kernel's boot space */
		CHECK(q_program_name(s, name, sizeof(name)) > 0);
	}
	CHECK(n >= 3);
	CHECK(self >= SYS_BOOT_SLOT_PROGRAMS && self < SYS_BOOT_SLOT_PROGRAMS + n);
	CHECK_EQ(q_program_name(self, name, sizeof(name)), strlen(SELF));
	CHECK_EQ(strcmp(name, SELF), 0);
	CHECK_EQ(q_program_name(self, name, strlen(SELF)), -SYS_E2BIG);	/* no room for its NUL */
	CHECK_EQ(q_cap_inspect(SYS_BOOT_SLOT_QUOTA, &info), 0);
	CHECK_EQ(info.type, SYS_OBJ_QUOTA);
	CHECK_EQ(info.rights, SYS_CAP_READ | SYS_CAP_WRITE);
	CHECK_EQ(q_quota_info(SYS_BOOT_SLOT_QUOTA, &q), 0);
	CHECK(q.limit > 0 && q.used > 0 && q.used <= q.limit);
	CHECK_EQ(q_cap_inspect(0, &info), -SYS_EBADF);		/* the low slots are ours to fill */
	CHECK_EQ(q_program("no/such/program"), -SYS_ENOENT);
}

static void refused_without_the_right_capability(void)
{
	int prog = q_program(TARGET), ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	int exec_only = q_cap_mint(prog, SYS_CAP_ANY_SLOT, SYS_CAP_EXEC, 0);
	int read_only = q_cap_mint(prog, SYS_CAP_ANY_SLOT, SYS_CAP_READ, 0);
	int quota_ro = q_cap_mint(SYS_BOOT_SLOT_QUOTA, SYS_CAP_ANY_SLOT, SYS_CAP_READ, 0);
	int quota_wo = q_cap_mint(SYS_BOOT_SLOT_QUOTA, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 0);
	struct sys_spawn req = {
		.program = prog, .quota = SYS_SPAWN_MY_QUOTA, .task_slot = SYS_RECV_SLOT_NONE,
		.args = "0", .args_len = 1,
	};
	int bad_programs[][2] = {
		{ EMPTY_SLOT, -SYS_EBADF }, { -5, -SYS_EBADF }, { SYS_CAP_MAX_SLOTS, -SYS_EBADF },
		{ ep, -SYS_ENOTSUP }, { SYS_BOOT_SLOT_QUOTA, -SYS_ENOTSUP },
		{ read_only, -SYS_EACCES },
	};
	struct sys_quota_info q;
	struct sys_exit_status st;
	char name[64];
	int id;

	CHECK(prog >= 0 && ep >= 0 && exec_only >= 0 && read_only >= 0 && quota_ro >= 0);
	/* The program: forged, another kind of object, without the right to start it. */
	for (unsigned int i = 0; i < sizeof(bad_programs) / sizeof(bad_programs[0]); i++) {
		req.program = bad_programs[i][0];
		CHECK_EQ(q_cap_spawn(&req), bad_programs[i][1]);
	}
	/* The quota: forged, another kind, without the right to spend from it. */
	req.program = prog;
	req.quota = EMPTY_SLOT;
	CHECK_EQ(q_cap_spawn(&req), -SYS_EBADF);
	req.quota = ep;
	CHECK_EQ(q_cap_spawn(&req), -SYS_ENOTSUP);
	req.quota = quota_ro;
	CHECK_EQ(q_cap_spawn(&req), -SYS_EACCES);
	CHECK_EQ(q_quota_info(quota_wo, &q), -SYS_EACCES);
	CHECK_EQ(q_quota_info(prog, &q), -SYS_ENOTSUP);
	/* Its name needs the read right; nobody makes a program. */
	CHECK_EQ(q_program_name(exec_only, name, sizeof(name)), -SYS_EACCES);
	CHECK_EQ(q_program_name(ep, name, sizeof(name)), -SYS_ENOTSUP);
	CHECK_EQ(q_syscall(SYS_cap_create, SYS_OBJ_PROGRAM, SYS_CAP_ANY_SLOT, 0, 0, 0, 0),
		 -SYS_EINVAL);
	/* With the right, it starts: exec alone is enough, spending from a quota we name. */
	req.program = exec_only;
	req.quota = quota_wo;
	id = q_cap_spawn(&req);
	CHECK(id > 0);
	CHECK_EQ(q_task_wait(id, &st), 0);
	CHECK_EQ(st.status, 0);
	/* Revoked: our copy's derived capabilities are gone, and so is the start. */
	CHECK_EQ(q_cap_revoke(prog), 2);	/* exec_only, read_only */
	req.program = exec_only;
	CHECK_EQ(q_cap_spawn(&req), -SYS_EBADF);
	for (int s = ep; s <= quota_wo; s++)
		q_cap_delete(s);
}

/* Every boot slot, tried as a program and as a quota: none may work for a child. */
static int holds_boot_caps(void)
{
	struct sys_spawn req = { .quota = SYS_SPAWN_MY_QUOTA, .task_slot = SYS_RECV_SLOT_NONE };
	struct sys_quota_info q;

	for (int s = SYS_BOOT_SLOT_PROGRAMS; s < SYS_BOOT_SLOT_PROGRAMS + SYS_BOOT_PROGRAMS_MAX; s++) {
		req.program = s;
		if (q_cap_spawn(&req) != -SYS_EBADF)
			return 1;
	}
	return q_quota_info(SYS_BOOT_SLOT_QUOTA, &q) != -SYS_EBADF;
}

/*
 * "cap_programs spawn": starts TARGET 0 with only what our parent gave
 * us.  0 if it started and ended well, the spawn's error number (2:
 * -SYS_ENOENT, no capability for it), HELD_BOOT_CAPS, CHILD_FAILED.
 */
static int spawner(void)
{
	const char *cmd = TARGET " 0";
	struct sys_exit_status st;
	int id;

	if (holds_boot_caps())
		return HELD_BOOT_CAPS;
	id = q_spawn(cmd, strlen(cmd));
	if (id < 0)
		return -id;
	return q_task_wait(id, &st) || st.killed || st.status ? CHILD_FAILED : 0;
}

/* The spawner, with programs[0 .. n-1] in its slots: its exit status. */
static int run_spawner(const int *programs, int n)
{
	struct sys_exit_status st = { -1, -1 };
	int id = q_spawn_caps(SELF " spawn", programs, n, SYS_RECV_SLOT_NONE);

	CHECK(id > 0);
	CHECK_EQ(q_task_wait(id, &st), 0);
	CHECK_EQ(st.killed, 0);
	return st.status;
}

static void children_hold_only_what_they_are_given(void)
{
	int target = q_program(TARGET);

	CHECK_EQ(run_spawner(NULL, 0), SYS_ENOENT);	/* no capability to it: no start */
	CHECK_EQ(run_spawner(&target, 1), 0);		/* given one: it starts */
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "spawn"))
		return spawner();
	boot_caps_are_there();
	refused_without_the_right_capability();
	children_hold_only_what_they_are_given();
	return check_result();
}
