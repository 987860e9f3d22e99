/*
 * A task's console output (SYS_console_write, until the microkernel's
 * console path): cut into lines, each printed whole, so that threads of
 * one task and the kernel's own messages never mix inside a line.  Under
 * the test runner each line gets a prefix ("# ", a KTAP diagnostic), so
 * what a program prints cannot pass for a test result.
 */
#include "user/task.h"
#include "ktest_runner.h"

/* Prints t's line so far; t->console_lock held. */
static void emit_line(struct user_task *t)
{
	printk("%s%.*s\n", ktest_requested() ? "# " : "", (int)t->line_len, t->line);
	t->line_len = 0;
}

void user_console_write(struct user_task *t, const char *buf, size_t n)
{
	unsigned long flags;

	spin_lock_irqsave(&t->console_lock, flags);
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			emit_line(t);
			continue;
		}
		/* Control characters could rewrite the terminal's lines: shown as '?'. */
		t->line[t->line_len++] = (buf[i] < ' ' && buf[i] != '\t') || buf[i] == 0x7f ?
					 '?' : buf[i];
		if (t->line_len == sizeof(t->line))
			emit_line(t);
	}
	spin_unlock_irqrestore(&t->console_lock, flags);
}

void user_console_flush(struct user_task *t)
{
	unsigned long flags;

	spin_lock_irqsave(&t->console_lock, flags);
	if (t->line_len)
		emit_line(t);
	spin_unlock_irqrestore(&t->console_lock, flags);
}
