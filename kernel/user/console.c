/*
 * A task's console output (SYS_console_write, until the microkernel's
 * console path): cut into lines, each printed whole, so that threads of
 * one task and the kernel's own messages never mix inside a line.  Under
 * the test runner each line gets a prefix ("# ", a KTAP diagnostic), so
 * what a program prints cannot pass for a test result.
 */
#include "user/task.h"
#include "ktest_runner.h"

/*
 * One line of a program's output, in one printk(): control characters,
 * which could rewrite the terminal's lines, shown as '?', and under the
 * test runner a "# " first.  A task's own writes come here, and so do the
 * lines the console server prints for its clients (kernel/object/console.c).
 */
void console_print_program_line(const char *s, size_t n)
{
	char line[CONSOLE_LINE_LEN];

	n = min(n, sizeof(line));
	for (size_t i = 0; i < n; i++)
		line[i] = (s[i] < ' ' && s[i] != '\t') || s[i] == 0x7f ? '?' : s[i];
	printk("%s%.*s\n", ktest_requested() ? "# " : "", (int)n, line);
}

/* Prints t's line so far; t->console_lock held. */
static void emit_line(struct user_task *t)
{
	console_print_program_line(t->line, t->line_len);
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
		t->line[t->line_len++] = buf[i];
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
