/*
 * The console object (kernel/object/console.c, docs/drivers.md): the
 * kernel's console as the console server holds it.  SYS_console_lines
 * prints what it is given line by line, each line one printk() -- whole,
 * serialised with the kernel's own messages, never mixed inside a line --
 * with the test runner's "# " before it (a KTAP diagnostic).  The kernel
 * never waits on the server to print: its messages (panics, NMIs,
 * warnings) go straight to the UART, as before.  Granted by the kernel,
 * never created by a system call.
 */
#ifndef KERNEL_OBJECT_CONSOLE_H
#define KERNEL_OBJECT_CONSOLE_H

#include "object/object.h"

struct cspace;

struct console_obj {
	struct kobject base;
	atomic_long_t lines;		/* printed through it (tests) */
};

int console_cap_grant(struct cspace *cs, long slot);
/* Prints n bytes, each line whole (a last piece with no newline too; longer than 128: cut). */
void console_obj_print(struct kobject *obj, const char *buf, size_t n);
long console_obj_lines(struct kobject *obj);
void console_obj_init(void);

#endif
