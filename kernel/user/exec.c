/*
 * Starting a program (user_spawn_program()): a boot module, named by a
 * program capability (SYS_cap_spawn) or, for the kernel's own starts
 * (user_spawn()), by the first word of a command line; checked by the
 * ELF loader (elf.c), its
 * segments copied into a new address space, a stack holding its argv,
 * and its first thread at the ELF entry point.
 *
 * The initial stack, as the user runtime's _start finds it (its pointer
 * is also the first argument, so _start needs no stack arithmetic):
 *
 *	sp ->	argc
 *		argv[0] ... argv[argc - 1]
 *		NULL
 *		the strings themselves, up to the top of the stack
 */
#include "user/thread.h"
#include "user/elf.h"
#include "user/user.h"
#include "user/console_server.h"
#include <errno.h>

/* Copies n bytes to user address va of mm, which no thread runs yet, through its frames. */
static void fill_user(struct mm_struct *mm, uintptr_t va, const void *src, size_t n)
{
	const u8 *s = src;

	while (n) {
		size_t in_page = min(n, PAGE_SIZE - va % PAGE_SIZE);
		u8 *frame = mm_frame(mm, va);

		memcpy(frame + va % PAGE_SIZE, s, in_page);
		va += in_page;
		s += in_page;
		n -= in_page;
	}
}

static int load_segments(struct mm_struct *mm, const struct boot_module *m,
			 const struct elf_image *img)
{
	for (int i = 0; i < img->nsegs; i++) {
		const struct elf_segment *s = &img->segs[i];
		uintptr_t start = ALIGN_DOWN(s->vaddr, PAGE_SIZE);
		uintptr_t end = ALIGN_UP(s->vaddr + s->memsz, PAGE_SIZE);
		long r = mm_map(mm, start, end - start, s->prot, VM_PROGRAM);

		if (r < 0)
			return r;
		/* The rest up to memsz (.bss) stays as mm_map() left it: zero. */
		fill_user(mm, s->vaddr, (const u8 *)m->data + s->offset, s->filesz);
	}
	return 0;
}

/* The stack with argv on it (see above); the initial sp, or -errno. */
static long build_stack(struct mm_struct *mm, const char *cmdline)
{
	char buf[MODULE_CMDLINE_LEN], *argv[MAX_ARGS];
	u64 ptrs[MAX_ARGS + 2];
	int argc;
	long base = mm_map(mm, 0, USER_MAIN_STACK_PAGES * PAGE_SIZE,
			   SYS_PROT_READ | SYS_PROT_WRITE, VM_STACK);
	uintptr_t top, sp;

	if (base < 0)
		return base;
	top = base + USER_MAIN_STACK_PAGES * PAGE_SIZE;
	strcpy(buf, cmdline);
	argc = split_args(buf, argv, MAX_ARGS);	/* checked at boot: 1 to MAX_ARGS */
	sp = top;
	ptrs[0] = argc;
	for (int i = argc - 1; i >= 0; i--) {
		size_t len = strlen(argv[i]) + 1;

		sp -= len;
		fill_user(mm, sp, argv[i], len);
		ptrs[1 + i] = sp;
	}
	ptrs[1 + argc] = 0;
	sp = ALIGN_DOWN(sp - (argc + 2) * sizeof(u64), 16);
	fill_user(mm, sp, ptrs, (argc + 2) * sizeof(u64));
	return sp;
}

/* Does cmdline fit the stack's argv: 1 to MAX_ARGS words, MODULE_CMDLINE_LEN - 1 bytes? */
static bool args_fit(const char *cmdline)
{
	char buf[MODULE_CMDLINE_LEN], *argv[MAX_ARGS];

	if (strnlen(cmdline, sizeof(buf)) == sizeof(buf))
		return false;
	strcpy(buf, cmdline);
	return split_args(buf, argv, MAX_ARGS) > 0;
}

struct user_task *user_spawn(const char *cmdline, struct user_task *parent, int *err)
{
	return user_spawn_with(cmdline, parent, err, NULL, NULL);
}

struct user_task *user_spawn_with(const char *cmdline, struct user_task *parent, int *err,
				  int (*setup)(struct user_task *t, void *arg), void *arg)
{
	struct spawn_how how = { .parent = parent, .setup = setup, .arg = arg };
	char name[MODULE_NAME_LEN];
	const struct boot_module *m;

	if (sscanf(cmdline, "%63s", name) != 1 || !(m = boot_module_find(name))) {
		*err = -ENOENT;
		return NULL;
	}
	return user_spawn_program(m, cmdline, &how, err);
}

struct user_task *user_spawn_program(const struct boot_module *m, const char *cmdline,
				     const struct spawn_how *how, int *err)
{
	struct elf_image img;
	struct user_task *t;
	char why[128];
	long sp;
	int r;

	if (!args_fit(cmdline)) {
		*err = -E2BIG;
		return NULL;
	}
	if (elf_parse(m->data, m->size, ARCH_ELF_MACHINE, USER_BASE, USER_TOP, &img,
		      why, sizeof(why))) {
		printk("user: %s: not a program this kernel runs: %s\n", m->name, why);
		*err = -ENOEXEC;
		return NULL;
	}
	t = user_task_create(m->name, how->parent, how->quota);
	if (!t) {
		*err = -ENOMEM;
		return NULL;
	}
	r = load_segments(t->mm, m, &img);
	sp = r ? r : build_stack(t->mm, cmdline);
	if (sp >= 0 && how->setup && (r = how->setup(t, how->arg)) < 0)
		sp = r;
	if (sp >= 0)
		console_server_give(t);	/* its standard input and output, if a server serves */
	r = sp < 0 ? sp : user_thread_create(t, img.entry, sp, sp, 0, SYS_CPU_ANY);
	if (r < 0) {
		*err = r;
		user_task_never_ran(t);	/* (a capability setup made may be waited on) */
		user_task_put(t);
		return NULL;
	}
	return t;
}
