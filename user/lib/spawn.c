/*
 * Starting programs by name, through the program capabilities a task
 * holds (quiescent.h, qcap.h): the kernel knows no names, only slots;
 * the name is looked up here, among our own capabilities.
 */
#include <string.h>
#include <unistd.h>
#include "qcap.h"

#define NAME_MAX_LEN	64	/* a boot module's name, with its NUL */

static int is_program(int slot, const char *name)
{
	char buf[NAME_MAX_LEN];

	return q_program_name(slot, buf, sizeof(buf)) >= 0 && !strcmp(buf, name);
}

int q_program(const char *name)
{
	int s;

	for (s = SYS_BOOT_SLOT_PROGRAMS; s < SYS_BOOT_SLOT_PROGRAMS + SYS_BOOT_PROGRAMS_MAX; s++)
		if (is_program(s, name))
			return s;
	for (s = 0; s < SYS_CAP_MAX_SLOTS; s++)
		if ((s < SYS_BOOT_SLOT_PROGRAMS || s >= SYS_BOOT_SLOT_PROGRAMS + SYS_BOOT_PROGRAMS_MAX) &&
		    is_program(s, name))
			return s;
	return -SYS_ENOENT;
}

/*
 * cmdline's first word (the program's name) into name; the rest (its
 * arguments) returned.  NULL if the word is longer than any name.
 */
static const char *split_name(const char *cmdline, size_t len, char *name)
{
	size_t n = 0, w = 0;

	while (n < len && cmdline[n] == ' ')
		n++;
	while (n + w < len && cmdline[n + w] && cmdline[n + w] != ' ')
		w++;
	if (w >= NAME_MAX_LEN)
		return NULL;
	memcpy(name, cmdline + n, w);
	name[w] = 0;
	for (n += w; n < len && cmdline[n] == ' '; n++)
		;
	return cmdline + n;
}

/*
 * before, name and after on standard output: write(), not printf(), which
 * would grow every program that starts another by its 40 KiB (and the
 * boot with it: GRUB loads them all into make test's least memory).
 */
static void say(const char *before, const char *name, const char *after)
{
	write(1, before, strlen(before));
	write(1, name, strlen(name));
	write(1, after, strlen(after));
}

/*
 * Says why name cannot start: a task the kernel started holds a program
 * capability for every boot module, so a name missing among them is not
 * on this boot (user/user.mk decides what is); any other task holds only
 * the programs its parent gave it.
 */
static void say_no_program(const char *name)
{
	struct sys_cap_info info;

	if (!q_cap_inspect(SYS_BOOT_SLOT_PROGRAMS, &info) && info.type == SYS_OBJ_PROGRAM)
		say("spawn: no program \"", name, "\" on this boot: user/user.mk boots a user/ "
		    "program\nspawn: when USER_SERVICES lists it (make test, make run) or USER_RUN "
		    "names it (make run),\nspawn: and every tests/user/ one in make test "
		    "(docs/user.md, \"Programs\")\n");
	else
		say("spawn: this task holds no capability to a program \"", name, "\": a task "
		    "starts\nspawn: only the programs its parent gave it (docs/microkernel.md, "
		    "\"The root task and the boot capabilities\")\n");
}

static int spawn(const char *cmdline, size_t len, int quota, const int *caps, int n,
		 int task_slot)
{
	char name[NAME_MAX_LEN];
	const char *args = split_name(cmdline, len, name);
	struct sys_spawn req = {
		.quota = quota, .task_slot = task_slot, .ncaps = n, .caps = caps, .args = args,
	};

	if (!args)
		return -SYS_ENOENT;
	if (!name[0])
		return -SYS_EINVAL;
	req.args_len = len - (size_t)(args - cmdline);
	req.program = q_program(name);
	if (req.program < 0) {
		say_no_program(name);
		return req.program;
	}
	return q_cap_spawn(&req);
}

int q_spawn(const char *cmdline, size_t len)
{
	return spawn(cmdline, len, SYS_SPAWN_MY_QUOTA, NULL, 0, SYS_RECV_SLOT_NONE);
}

int q_spawn_caps(const char *cmdline, const int *caps, int n, int task_slot)
{
	return spawn(cmdline, strlen(cmdline), SYS_SPAWN_MY_QUOTA, caps, n, task_slot);
}

int q_spawn_quota(const char *cmdline, int quota, const int *caps, int n, int task_slot)
{
	return spawn(cmdline, strlen(cmdline), quota, caps, n, task_slot);
}

void q_drop_boot_caps(void)
{
	for (int s = SYS_BOOT_SLOT_QUOTA; s < SYS_BOOT_SLOT_PROGRAMS + SYS_BOOT_PROGRAMS_MAX; s++)
		q_cap_delete(s);
}
