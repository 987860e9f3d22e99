/*
 * Boot modules: the programs the boot loader loaded beside the kernel
 * (kernel/user/module.c).  A module's command line is its program's argv,
 * its first word the program's name: the path of its source without .c
 * (tests/user/hello, user/hello), which is also where the build keeps its
 * ELF with symbols (build/ARCH/user/NAME.elf, for the runner's reports).
 */
#ifndef KERNEL_USER_MODULE_H
#define KERNEL_USER_MODULE_H

#include "kernel.h"

#define MAX_BOOT_MODULES	128
#define MODULE_CMDLINE_LEN	256	/* with its NUL */
#define MODULE_NAME_LEN		64
#define MAX_ARGS		32

struct boot_module {
	const void *data;
	size_t size;
	char name[MODULE_NAME_LEN];		/* argv[0] */
	char cmdline[MODULE_CMDLINE_LEN];	/* the whole argv, as given */
};

/* Takes the arch's list once, at boot (checked: see module.c). */
void boot_modules_init(void);
int boot_module_count(void);
const struct boot_module *boot_module(int i);
const struct boot_module *boot_module_find(const char *name);

/*
 * Splits cmdline into at most max words at spaces, in place (the words
 * point into buf, a copy): the number of words, or -1 if there are more.
 */
int split_args(char *buf, char **argv, int max);

#endif
