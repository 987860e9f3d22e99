/*
 * The boot modules (module.h).  The arch says where each lies and what
 * its command line is (arch_boot_modules()); here each is checked before
 * it is believed: its bytes must be RAM the page allocator will not hand
 * out (the arch reserved it), it must not overlap the kernel or another
 * module, and its command line must be a name and arguments that fit.
 * A module that fails a check is left out with a line saying why; the
 * kernel boots on without it.
 */
#include "user/module.h"

extern char __kernel_start[], __kernel_end[];

static struct boot_module modules[MAX_BOOT_MODULES];
static int nr_modules;

int split_args(char *buf, char **argv, int max)
{
	int n = 0;

	for (char *p = buf; *p; ) {
		while (*p == ' ')
			*p++ = '\0';
		if (!*p)
			break;
		if (n == max)
			return -1;
		argv[n++] = p;
		while (*p && *p != ' ')
			p++;
	}
	return n;
}

/* Why desc cannot be a module (NULL: it can). */
static const char *module_problem(const struct boot_module_desc *d, int i)
{
	uintptr_t ks = (uintptr_t)__kernel_start, ke = (uintptr_t)__kernel_end;

	if (d->end <= d->start)
		return "it is empty, or ends before it starts";
	if (d->start < ke && d->end > ks)
		return "it overlaps the kernel";
	for (int j = 0; j < nr_modules; j++) {
		uintptr_t s = (uintptr_t)modules[j].data;

		if (d->start < s + modules[j].size && d->end > s)
			return "it overlaps an earlier module";
	}
	(void)i;
	if (!d->cmdline || strnlen(d->cmdline, MODULE_CMDLINE_LEN) == MODULE_CMDLINE_LEN)
		return "its command line is longer than 255 bytes";
	return NULL;
}

static void add_module(const struct boot_module_desc *d, int i)
{
	struct boot_module *m = &modules[nr_modules];
	const char *why = module_problem(d, i);
	char buf[MODULE_CMDLINE_LEN], *argv[MAX_ARGS];
	int argc;

	if (!why) {
		strcpy(buf, d->cmdline);
		argc = split_args(buf, argv, MAX_ARGS);
		if (argc <= 0)
			why = argc ? "its command line has more than 32 words" :
				     "its command line is empty (the program's name comes first)";
		else if (strlen(argv[0]) >= MODULE_NAME_LEN)
			why = "its name is longer than 63 bytes";
	}
	if (why) {
		printk("user: boot module %d at %#lx-%#lx left out: %s\n", i,
		       (unsigned long)d->start, (unsigned long)d->end, why);
		return;
	}
	m->data = (const void *)d->start;
	m->size = d->end - d->start;
	strcpy(m->cmdline, d->cmdline);
	strcpy(m->name, argv[0]);
	nr_modules++;
}

void boot_modules_init(void)
{
	static struct boot_module_desc descs[MAX_BOOT_MODULES];
	int n = arch_boot_modules(descs, MAX_BOOT_MODULES);

	for (int i = 0; i < n; i++)
		add_module(&descs[i], i);
	/* (tools/run.py compares the count with the programs it put on the boot) */
	printk("user: %d boot module%s (programs)\n", nr_modules, nr_modules == 1 ? "" : "s");
}

int boot_module_count(void)
{
	return nr_modules;
}

const struct boot_module *boot_module(int i)
{
	return i >= 0 && i < nr_modules ? &modules[i] : NULL;
}

const struct boot_module *boot_module_find(const char *name)
{
	for (int i = 0; i < nr_modules; i++)
		if (!strcmp(modules[i].name, name))
			return &modules[i];
	return NULL;
}
