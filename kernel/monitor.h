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

/* Executes one command line (no trailing newline needed). */
enum monitor_result monitor_exec(const char *line);
/* The prompt loop: reads lines from the console, never returns. */
void monitor_run(void) __attribute__((noreturn));

#endif
