/*
 * make bench: the way into the kernel and back, beside a plain call.
 *
 *   call        a function call inside the kernel (noinline, one argument)
 *   syscall     a null system call's round trip from user mode (SYS_task_id):
 *               a helper program makes N of them; timed from outside
 *               (timed=spawn: the same program with none is subtracted,
 *               its start and end), and by the program itself (its
 *               timed=loop line, tests/user/helpers/timed.h)
 *   get_user    copy_from_user() of 8 bytes, a kernel thread borrowing a
 *               user address space (kthread_use_mm())
 *   copy_from_user / memcpy   64 KiB from user memory, and between two
 *               kernel buffers: bytes per second
 */
#include "bench.h"
#include "user/thread.h"
#include "user/uaccess.h"

#define CALLS		200000
#define NULLCALLS	100000
#define COPY_SIZE	(64 * 1024)
#define COPIES		200
#define HELPER		"tests/user/helpers/nullcall"

static __attribute__((noinline)) u64 plain_call(u64 x)
{
	barrier();	/* a call the compiler keeps */
	return x + 1;
}

static u64 time_calls(void)
{
	u64 t0 = ktime_get_ns(), x = 0;

	for (int i = 0; i < CALLS; i++)
		x = plain_call(x);
	return x == CALLS ? ktime_get_ns() - t0 : 0;
}

/* How long a run of the helper with n calls takes, start to end; 0 if it failed. */
static u64 run_helper(long n)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), HELPER " %ld", n);
	return bench_run_program(cmd);
}

static void copies(struct mm_struct *mm, uintptr_t ubuf, u8 *kbuf, u8 *kbuf2, int rep)
{
	u64 t0, get_ns, copy_ns, memcpy_ns, v = 0;
	bool ok = true;

	kthread_use_mm(mm);
	t0 = ktime_get_ns();
	for (int i = 0; i < CALLS; i++)
		ok &= !get_user(v, ubuf + (i & 0xff) * 8);
	get_ns = ktime_get_ns() - t0;
	t0 = ktime_get_ns();
	for (int i = 0; i < COPIES; i++)
		ok &= !copy_from_user(kbuf, ubuf, COPY_SIZE);
	copy_ns = ktime_get_ns() - t0;
	kthread_unuse_mm(mm);
	t0 = ktime_get_ns();
	for (int i = 0; i < COPIES; i++) {
		memcpy(kbuf2, kbuf, COPY_SIZE);
		barrier();
	}
	memcpy_ns = ktime_get_ns() - t0;
	KEXPECT(ok);
	bench_emit("user", "op=get_user", rep, "ns", bench_mean_milli(get_ns, CALLS), "ns");
	bench_emit("user", "op=copy_from_user", rep, "bytes_per_s",
		   bench_rate_milli((u64)COPIES * COPY_SIZE, copy_ns), "B/s");
	bench_emit("user", "op=memcpy", rep, "bytes_per_s",
		   bench_rate_milli((u64)COPIES * COPY_SIZE, memcpy_ns), "B/s");
}

KBENCH(bench_user)
{
	struct mm_struct *mm = mm_create(NULL);
	u8 *kbuf = kmalloc(COPY_SIZE, GFP_KERNEL), *kbuf2 = kmalloc(COPY_SIZE, GFP_KERNEL);
	long ubuf = mm ? mm_map(mm, 0, COPY_SIZE, SYS_PROT_READ | SYS_PROT_WRITE, VM_ANON) : -1;

	KASSERT(mm && kbuf && kbuf2 && ubuf > 0);
	for (int rep = 0; rep < bench_reps; rep++) {
		u64 empty, full;

		bench_emit("user", "op=call", rep, "ns", bench_mean_milli(time_calls(), CALLS), "ns");
		if (boot_module_find(HELPER)) {
			empty = run_helper(0);
			full = run_helper(NULLCALLS);
			KEXPECT(empty && full);
			if (empty && full > empty)
				bench_emit("user", "op=syscall timed=spawn", rep, "ns",
					   bench_mean_milli(full - empty, NULLCALLS), "ns");
		}
		copies(mm, ubuf, kbuf, kbuf2, rep);
	}
	mm_put(mm);
	kfree(kbuf);
	kfree(kbuf2);
}
