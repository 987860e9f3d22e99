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
 * A line longer than CONSOLE_LINE_LEN comes in pieces: each but the last
 * is cut, and says so at its end, so that nobody takes it for two lines.
 */
void console_print_program_line(const char *s, size_t n, bool cut)
{
	char line[CONSOLE_LINE_LEN];

	n = min(n, sizeof(line));
	for (size_t i = 0; i < n; i++)
		line[i] = (s[i] < ' ' && s[i] != '\t') || s[i] == 0x7f ? '?' : s[i];
	printk("%s%.*s%s\n", ktest_requested() ? "# " : "", (int)n, line,
	       cut ? SYS_CONSOLE_LINE_CUT : "");
}

/*
 * The console server's output (SYS_console_lines): each line that ends
 * in buf with its newline, in pieces of CONSOLE_LINE_LEN (the last whole);
 * what follows the last newline is a piece the server cut (its line
 * buffer was full, or it was taken for another client), so it is printed
 * cut.  Returns how many lines it printed.
 */
long console_print_program_lines(const char *buf, size_t n)
{
	long lines = 0;

	while (n) {
		const char *nl = memchr(buf, '\n', n);
		size_t end = nl ? (size_t)(nl - buf) : n;
		size_t len = min(end, (size_t)CONSOLE_LINE_LEN);
		bool whole = nl && len == end;

		console_print_program_line(buf, len, !whole);
		lines++;
		len += whole;		/* and its newline */
		buf += len;
		n -= len;
	}
	return lines;
}

/* Prints t's line so far; t->console_lock held. */
static void emit_line(struct user_task *t, bool cut)
{
	console_print_program_line(t->line, t->line_len, cut);
	t->line_len = 0;
}

void user_console_write(struct user_task *t, const char *buf, size_t n)
{
	unsigned long flags;

	spin_lock_irqsave(&t->console_lock, flags);
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			emit_line(t, false);
			continue;
		}
		/* (a full line waits for its next byte: a newline keeps it whole) */
		if (t->line_len == sizeof(t->line))
			emit_line(t, true);
		t->line[t->line_len++] = buf[i];
	}
	spin_unlock_irqrestore(&t->console_lock, flags);
}

void user_console_flush(struct user_task *t)
{
	unsigned long flags;

	spin_lock_irqsave(&t->console_lock, flags);
	if (t->line_len)
		emit_line(t, false);
	spin_unlock_irqrestore(&t->console_lock, flags);
}
