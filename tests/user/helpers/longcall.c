/*
 * tests/user_long_calls.c's program: the longest system calls a program
 * can make, each a loop whose length the program chooses, made again and
 * again until the test kills it (but exit, made once):
 *
 *   longcall write     SYS_console_write of BYTES bytes
 *   longcall lines     SYS_console_lines of BYTES bytes, through the
 *                      console capability the test put in slot 0
 *   longcall memory    SYS_map of PAGES pages, then SYS_unmap of them
 *   longcall revoke    COPIES copies of an endpoint, then SYS_cap_revoke
 *   longcall exit      PAGES pages mapped and COPIES capabilities made,
 *                      then exit(): the kernel unmaps and deletes them
 *
 * Exit status: 0, or 1 if a call failed (the test reports it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qcap.h"

#define BYTES		2048
#define PAGES		64
#define COPIES		96
#define CONSOLE		0

static char text[BYTES];

static int fill(int ep)
{
	for (int i = 0; i < COPIES; i++)
		if (q_cap_copy(ep, SYS_CAP_ANY_SLOT) < 0)
			return 1;
	return 0;
}

static int once(const char *what, int ep)
{
	long a;

	if (!strcmp(what, "write"))
		return q_syscall(SYS_console_write, (long)text, BYTES, 0, 0, 0, 0) != BYTES;
	if (!strcmp(what, "lines"))
		return q_syscall(SYS_console_lines, CONSOLE, (long)text, BYTES, 0, 0, 0) != BYTES;
	if (!strcmp(what, "memory")) {
		a = q_map(0, PAGES * 4096UL, SYS_PROT_READ | SYS_PROT_WRITE);
		return SYS_IS_ERROR(a) || q_unmap((void *)a, PAGES * 4096UL);
	}
	if (!strcmp(what, "revoke"))
		return fill(ep) || q_cap_revoke(ep) != COPIES;
	if (!strcmp(what, "exit")) {
		a = q_map(0, PAGES * 4096UL, SYS_PROT_READ | SYS_PROT_WRITE);
		if (SYS_IS_ERROR(a) || fill(ep))
			return 1;
		exit(0);	/* the long call */
	}
	return 1;
}

int main(int argc, char **argv)
{
	int ep = q_endpoint_create(SYS_CAP_ANY_SLOT);

	if (argc != 2 || ep < 0)
		return 1;
	for (int i = 0; i < BYTES; i++)
		text[i] = i == BYTES - 1 ? '\n' : 'a' + i % 26;
	for (;;) {
		if (once(argv[1], ep)) {
			printf("longcall %s: a call failed\n", argv[1]);
			return 1;
		}
	}
}
