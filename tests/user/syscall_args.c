/*
 * Every system call that takes a pointer, given NULL, a kernel address, a
 * non-canonical one and an unmapped one, returns -EFAULT (or -EINVAL for
 * a pointer it only stores), and the kernel lives on; numbers out of range
 * return -EINVAL; unknown system-call numbers return -ENOSYS.
 */
#include <stdio.h>
#include <string.h>
#include "quiescent.h"

int main(void);

static int failures;

#define EXPECT(call, want)						\
	do {								\
		long __r = (call);					\
		if (__r != (want)) {					\
			printf("FAILED: %s returned %ld, expected %s (%ld)\n", #call, __r, \
			       #want, (long)(want));			\
			failures++;					\
		}							\
	} while (0)

#define KERNEL_ADDR	0x100000L		/* the kernel's text */
#define NON_CANONICAL	0x8000000000000000L
#define PAGE		4096L

static long unmapped_page(void)
{
	long p = q_map(NULL, PAGE, SYS_PROT_READ | SYS_PROT_WRITE);

	q_unmap((void *)p, PAGE);
	return p;
}

/* A spawn of a program we hold (the kernel started us with every boot program). */
static struct sys_spawn spawn_req(void)
{
	struct sys_spawn req = {
		.program = q_program("tests/user/helpers/exit_with"),
		.quota = SYS_SPAWN_MY_QUOTA, .task_slot = SYS_RECV_SLOT_NONE,
	};

	return req;
}

static void bad_pointers(void)
{
	long bad[] = { 0, KERNEL_ADDR, NON_CANONICAL, unmapped_page(), -PAGE };
	struct sys_spawn req = spawn_req();
	char ok[16] = "hello";

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		long p = bad[i];

		EXPECT(q_syscall(SYS_console_write, p, 8, 0, 0, 0, 0), -SYS_EFAULT);
		EXPECT(q_syscall(SYS_thread_wait, q_thread_id(), p, 0, 0, 0, 0), -SYS_EFAULT);
		EXPECT(q_syscall(SYS_task_wait, q_task_id(), p, 0, 0, 0, 0), -SYS_EFAULT);
		EXPECT(q_syscall(SYS_cap_spawn, p, 0, 0, 0, 0, 0), -SYS_EFAULT);
		req.args = (const char *)p;
		req.args_len = 5;
		EXPECT(q_cap_spawn(&req), -SYS_EFAULT);
		req.args_len = 0;
		req.caps = (const int *)p;
		req.ncaps = 1;
		EXPECT(q_cap_spawn(&req), -SYS_EFAULT);
		req.ncaps = 0;
		EXPECT(q_syscall(SYS_program_name, req.program, p, 64, 0, 0, 0), -SYS_EFAULT);
		EXPECT(q_syscall(SYS_quota_info, SYS_BOOT_SLOT_QUOTA, p, 0, 0, 0, 0), -SYS_EFAULT);
		/*
		 * A thread pointer is stored and an entry point jumped to,
		 * not read: only those outside user space are refused.
		 */
		if (p < USER_BASE || p >= USER_TOP) {
			if (p)
				EXPECT(q_syscall(SYS_set_tls, p, 0, 0, 0, 0, 0), -SYS_EINVAL);
			EXPECT(q_syscall(SYS_thread_create, p, 0, 0, SYS_CPU_ANY, 0, 0),
			       -SYS_EINVAL);
		}
	}
	/* A buffer that runs from a mapped page into an unmapped one. */
	{
		char *two = (char *)q_map(NULL, 2 * PAGE, SYS_PROT_READ | SYS_PROT_WRITE);
		long r;

		q_unmap(two + PAGE, PAGE);
		memset(two, 'x', PAGE);
		r = q_syscall(SYS_console_write, (long)(two + PAGE - 8), 64, 0, 0, 0, 0);
		if (r != -SYS_EFAULT) {
			printf("FAILED: a write running into an unmapped page returned %ld\n", r);
			failures++;
		}
		q_unmap(two, PAGE);
	}
	EXPECT(q_console_write(ok, 0), 0);
}

static void bad_numbers(void)
{
	struct sys_exit_status st;
	long page;

	EXPECT(q_map(NULL, 0, SYS_PROT_READ), -SYS_EINVAL);
	EXPECT(q_map(NULL, PAGE, SYS_PROT_WRITE | SYS_PROT_EXEC), -SYS_EINVAL);
	EXPECT(q_map(NULL, PAGE, 8), -SYS_EINVAL);
	EXPECT(q_map((void *)KERNEL_ADDR, PAGE, SYS_PROT_READ), -SYS_EINVAL);
	EXPECT(q_map((void *)(USER_MAP_BASE + 100), PAGE, SYS_PROT_READ), -SYS_EINVAL);
	EXPECT(q_map((void *)(USER_TOP - PAGE), 2 * PAGE, SYS_PROT_READ), -SYS_EINVAL);
	EXPECT(q_map(NULL, (size_t)-1, SYS_PROT_READ), -SYS_EINVAL);
	EXPECT(q_map(NULL, 1UL << 44, SYS_PROT_READ), -SYS_ENOMEM);
	page = q_map(NULL, PAGE, SYS_PROT_READ);
	EXPECT(q_map((void *)page, PAGE, SYS_PROT_READ), -SYS_EEXIST);
	EXPECT(q_unmap((void *)page, PAGE), 0);
	EXPECT(q_unmap((void *)page, PAGE), 0);		/* nothing there: fine */
	EXPECT(q_unmap((void *)KERNEL_ADDR, PAGE), -SYS_EINVAL);
	EXPECT(q_unmap(NULL, 0), -SYS_EINVAL);
	EXPECT(q_set_cpu(-1), -SYS_EINVAL);
	EXPECT(q_set_cpu(100000), -SYS_EINVAL);
	EXPECT(q_syscall(SYS_thread_create, (long)main, 0, 0, 100000, 0, 0), -SYS_EINVAL);
	EXPECT(q_syscall(SYS_thread_create, (long)main, 0, NON_CANONICAL, 0, 0, 0), -SYS_EINVAL);
	EXPECT(q_syscall(SYS_thread_wait, q_thread_id(), (long)&st, 0, 0, 0, 0), -SYS_EDEADLK);
	EXPECT(q_syscall(SYS_thread_wait, 1000000, (long)&st, 0, 0, 0, 0), -SYS_ESRCH);
	EXPECT(q_task_wait(q_task_id(), &st), -SYS_ECHILD);
	EXPECT(q_task_wait(1000000, &st), -SYS_ESRCH);
	EXPECT(q_spawn("x", 0), -SYS_EINVAL);
	EXPECT(q_spawn("no/such/program", 15), -SYS_ENOENT);
	{
		struct sys_spawn req = spawn_req();
		char longline[400];

		memset(longline, 'a', sizeof(longline));
		EXPECT(q_spawn(longline, sizeof(longline)), -SYS_ENOENT);	/* no name is that long */
		req.args = longline;
		req.args_len = sizeof(longline);
		EXPECT(q_cap_spawn(&req), -SYS_E2BIG);
		req.args_len = 255 - strlen("tests/user/helpers/exit_with");	/* one byte too many */
		EXPECT(q_cap_spawn(&req), -SYS_E2BIG);
		req.args_len = 0;
		req.ncaps = SYS_SPAWN_MAX_CAPS + 1;
		EXPECT(q_cap_spawn(&req), -SYS_EINVAL);
		req.ncaps = -1;
		EXPECT(q_cap_spawn(&req), -SYS_EINVAL);
		req.ncaps = 0;
		req.task_slot = SYS_CAP_MAX_SLOTS;
		EXPECT(q_cap_spawn(&req), -SYS_EBADF);
	}
}

static void unknown_numbers(void)
{
	/* (15 was SYS_spawn, a program by name with no capability: gone) */
	long nrs[] = { 15, NR_SYSCALLS, NR_SYSCALLS + 1, 1000, 0x7fffffff, -1, -4096, 1L << 40 };

	for (unsigned int i = 0; i < sizeof(nrs) / sizeof(nrs[0]); i++)
		EXPECT(q_syscall(nrs[i], 1, 2, 3, 4, 5, 6), -SYS_ENOSYS);
}

int main(void)
{
	bad_pointers();
	bad_numbers();
	unknown_numbers();
	printf("system-call arguments: %d failure%s\n", failures, failures == 1 ? "" : "s");
	return failures != 0;
}
