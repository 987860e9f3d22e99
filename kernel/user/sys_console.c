/*
 * The console: a task writes a buffer (SYS_console_write, every task, cut
 * into lines by kernel/user/console.c); the console server prints its
 * clients' lines through its console capability (SYS_console_lines), and
 * hands back the keys nobody holds the console for (SYS_console_push).
 * Each takes a buffer as long as the program likes: a piece at a time,
 * with a chance for the CPU to go and a check for a kill after each
 * (user_cond_resched()).
 */
#include "user/syscalls.h"
#include "object/cap.h"
#include "object/console.h"
#include "object/lookup.h"
#include <errno.h>

/* (the console server's line and its newline fit in one: it reaches the console whole) */
#define CHUNK	(SYS_CONSOLE_LINE_MAX + 96)

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
		if (done < len && user_cond_resched())
			break;		/* a long write from a dying task */
	}
	return done;
}

/* Each piece of the user buffer (cons, buf, len), at most CHUNK bytes, to fn. */
static long console_pieces(const struct syscall_args *a,
			   void (*fn)(struct kobject *cons, const char *s, size_t n))
{
	uintptr_t ubuf = a->arg[1];
	size_t len = a->arg[2], done = 0;
	struct cap_ref cons;
	char chunk[CHUNK];
	long err;

	if (!access_ok(ubuf, len))
		return -EFAULT;
	/* Holds a reference: copy_from_user() and user_cond_resched() may sleep between pieces. */
	err = cap_lookup(current_user_task()->cspace, arg_int(a->arg[0]), KOBJ_CONSOLE,
			 SYS_CAP_WRITE, &cons);
	if (err)
		return err;
	while (done < len) {
		size_t n = min(len - done, (size_t)CHUNK);

		if (copy_from_user(chunk, ubuf + done, n))
			break;
		fn(cons.obj, chunk, n);
		done += n;
		/* (the lookup's reference, not RCU, keeps cons across this point) */
		if (done < len && user_cond_resched())
			break;		/* killed: the rest is not printed */
	}
	kobject_put(cons.obj);
	return done || !len ? (long)done : -EFAULT;
}

/* (cons, buf, len): the console server's output (kernel/object/console.h), each piece's lines whole. */
long sys_console_lines(const struct syscall_args *a)
{
	return console_pieces(a, console_obj_print);
}

static void push_keys(struct kobject *cons, const char *s, size_t n)
{
	(void)cons;
	console_input_push(s, n);
}

/* (cons, buf, len): keys the console server read, for console_getc() (the monitor, the demos). */
long sys_console_push(const struct syscall_args *a)
{
	return console_pieces(a, push_keys);
}
