/*
 * The kernel monitor, in the spirit of JOS's: a prompt on the serial
 * console after the demos when a terminal is attached (demo.tty=1).
 * Commands: help, cpus, ps, rcu, demo, test, torture, trace, backtrace,
 * halt (docs/demo.md).
 */
#ifndef KERNEL_MONITOR_H
#define KERNEL_MONITOR_H

#include "types.h"

enum monitor_result {
	MON_OK,			/* the command ran */
	MON_EMPTY,		/* a blank line */
	MON_ERROR,		/* bad command or arguments: one line was printed */
	MON_HALT,		/* `halt`: the caller ends QEMU */
};

#define MON_LINE	128	/* a line's buffer, its NUL included */
#define MON_ARGS	4	/* words in a command, its name included */

/* The line being typed (kernel/monitor_parse.c). */
struct mon_line {
	char buf[MON_LINE];
	size_t len;
	int esc;		/* in an escape sequence: 1 after ESC, 2 after ESC [ */
	size_t dropped;		/* characters typed past the end of buf */
};

void mon_line_reset(struct mon_line *l);
/* Feeds one typed character (echoed); true when Enter ends the line in l->buf. */
bool mon_line_feed(struct mon_line *l, int ch);
/*
 * Splits line into its words in buf: argv[0..n-1], argv[n] = NULL.
 * Returns n (0: a blank line), or -1 once it has printed why the line
 * has no words to run (too long, too many).
 */
int monitor_parse(const char *line, char buf[MON_LINE], char *argv[MON_ARGS + 1]);

/* Executes one command line (no trailing newline needed). */
enum monitor_result monitor_exec(const char *line);
/* The prompt loop: reads lines from the console, never returns. */
void monitor_run(void) __attribute__((noreturn));

#endif
