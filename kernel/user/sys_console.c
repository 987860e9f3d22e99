/*
 * The console: a task writes a buffer (SYS_console_write, every task, cut
 * into lines by kernel/user/console.c); the console server prints its
 * clients' lines through its console capability (SYS_console_lines).
 */
#include "user/syscalls.h"
#include "object/cap.h"
#include "object/console.h"
#include <errno.h>

#define CHUNK	128

/* (buf, len): the bytes written (fewer if part of buf is not readable), or -EFAULT. */
long sys_console_write(const struct syscall_args *a)
{
	uintptr_t ubuf = a->arg[0];
	size_t len = a->arg[1], done = 0;
	char chunk[CHUNK];

	if (!access_ok(ubuf, len))
		return -EFAULT;
	while (done < len) {
		size_t n = min(len - done, (size_t)CHUNK);

		if (copy_from_user(chunk, ubuf + done, n))
			return done ? (long)done : -EFAULT;
		user_console_write(current_user_task(), chunk, n);
		done += n;
		if (fatal_signal_pending(current))
			break;		/* a long write from a dying task */
	}
	return done;
}

/*
 * (cons, buf, len): the console server's output (kernel/object/console.h),
 * read in pieces of at most a line's buffer, each piece printed whole.
 */
long sys_console_lines(const struct syscall_args *a)
{
	uintptr_t ubuf = a->arg[1];
	size_t len = a->arg[2], done = 0;
	struct cap_ref cons;
	char chunk[CHUNK];
	long err;

	if (!access_ok(ubuf, len))
		return -EFAULT;
	err = cap_lookup(current_user_task()->cspace, a->arg[0], KOBJ_CONSOLE, SYS_CAP_WRITE,
			 &cons);
	if (err)
		return err;
	while (done < len) {
		size_t n = min(len - done, (size_t)CHUNK);

		if (copy_from_user(chunk, ubuf + done, n))
			break;
		console_obj_print(cons.obj, chunk, n);
		done += n;
	}
	kobject_put(cons.obj);
	return done ? (long)done : -EFAULT;
}
