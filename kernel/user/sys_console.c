/* The console, until the microkernel issue's console path: write a buffer. */
#include "user/syscalls.h"
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
