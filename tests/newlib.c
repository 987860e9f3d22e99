/*
 * newlib as the kernel uses it (lib/newlib_glue.c): write() writes
 * everything, its locks are real (recursive, interrupts off while held,
 * exclusive across CPUs), and each context -- task code, an interrupt
 * handler, on each CPU -- has its own reentrancy structure (errno, the
 * scratch of number conversions).
 */
#include "ktest.h"
#include <errno.h>
#include <malloc.h>
#include <reent.h>
#include <stdlib.h>

#define WRITE_LEN	3000
#define WRITE_LINE	60

static char write_out[WRITE_LEN + 1], write_capture[WRITE_LEN + 256];

int write(int fd, const void *buf, size_t n);

/* More than printk's 1 KiB buffer, as '#' lines the KTAP reader skips. */
KTEST(newlib_write_writes_everything)
{
	int n;

	for (int i = 0; i < WRITE_LEN; i++)
		write_out[i] = i % WRITE_LINE == 0 ? '#' : i % WRITE_LINE == WRITE_LINE - 1 ?
			       '\n' : 'a' + i % 26;
	write_out[WRITE_LEN - 1] = '\n';
	console_capture(write_capture, sizeof(write_capture));
	n = write(1, write_out, WRITE_LEN);
	console_capture(NULL, 0);
	KEXPECT_EQ(n, WRITE_LEN);
	KEXPECT_EQ(strlen(write_capture), WRITE_LEN);
	KEXPECT(!strcmp(write_capture, write_out));
}

/* newlib takes its malloc lock recursively; interrupts stay off until the last release. */
KTEST(newlib_lock_is_recursive_and_keeps_interrupts_off)
{
	KASSERT(!irqs_disabled());
	__malloc_lock(_REENT);
	__malloc_lock(_REENT);
	KEXPECT(irqs_disabled());
	__malloc_unlock(_REENT);
	KEXPECT(irqs_disabled());
	__malloc_unlock(_REENT);
	KEXPECT(!irqs_disabled());
}

/*
 * newlib's malloc (which dtoa and strtod use) from every CPU at once:
 * each keeps a few blocks filled with its own byte and checks them
 * before freeing.  Without a real malloc lock the heap's lists break.
 */
#define MALLOC_ROUNDS	2000
#define MALLOC_KEEP	8

static atomic_t malloc_bad;

static void malloc_rounds(void)
{
	unsigned char *kept[MALLOC_KEEP] = { NULL };
	size_t size[MALLOC_KEEP];
	unsigned char mark = 0x40 + smp_processor_id();

	for (int i = 0; i < MALLOC_ROUNDS; i++) {
		int k = i % MALLOC_KEEP;

		if (kept[k]) {
			for (size_t b = 0; b < size[k]; b++)
				if (kept[k][b] != mark) {
					atomic_inc(&malloc_bad);
					break;
				}
			free(kept[k]);
		}
		size[k] = 16 + (i * 37) % 500;
		kept[k] = malloc(size[k]);
		if (!kept[k]) {
			atomic_inc(&malloc_bad);
			continue;
		}
		memset(kept[k], mark, size[k]);
	}
	for (int k = 0; k < MALLOC_KEEP; k++)
		free(kept[k]);
}

static int malloc_thread(void *arg)
{
	(void)arg;
	malloc_rounds();
	return 0;
}

KTEST(newlib_malloc_from_every_cpu_at_once)
{
	struct task_struct *t[NR_CPUS] = { NULL };
	int cpu;

	atomic_set(&malloc_bad, 0);
	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id())
			t[cpu] = kthread_run_on_cpu(malloc_thread, NULL, cpu, "newlib_malloc");
	malloc_rounds();
	for_each_online_cpu(cpu)
		if (t[cpu])
			kthread_stop(t[cpu]);
	KEXPECT_EQ(atomic_read(&malloc_bad), 0);
}

/*
 * An interrupt handler on the same CPU has its own errno: the task sets
 * errno, an IPI handler on its CPU sets errno too while the task waits,
 * and the task still reads its own value.
 */
static bool errno_task_ready, errno_irq_done;
static int errno_irq_saw;
static int *errno_irq_addr, *errno_task_addr;

static void set_errno_in_irq(void *arg)
{
	(void)arg;
	errno = EDOM;
	errno_irq_saw = errno;
	errno_irq_addr = &errno;
	WRITE_ONCE(errno_irq_done, true);
}

static int errno_thread(void *arg)
{
	int *seen = arg;

	errno = ERANGE;
	errno_task_addr = &errno;
	WRITE_ONCE(errno_task_ready, true);
	while (!READ_ONCE(errno_irq_done))	/* interrupts on: the IPI lands here */
		cpu_relax();
	*seen = errno;
	return 0;
}

KTEST(newlib_errno_is_per_context)
{
	int cpu = num_online_cpus() - 1, seen = 0;
	struct task_struct *t;

	if (cpu == smp_processor_id())
		KTEST_SKIP("needs two CPUs");
	WRITE_ONCE(errno_task_ready, false);
	WRITE_ONCE(errno_irq_done, false);
	t = kthread_run_on_cpu(errno_thread, &seen, cpu, "newlib_errno");
	KASSERT(t);
	while (!READ_ONCE(errno_task_ready))
		cond_resched();
	smp_call_function_single(cpu, set_errno_in_irq, NULL, true);
	kthread_stop(t);
	KEXPECT_EQ(errno_irq_saw, EDOM);
	KEXPECT_EQ(seen, ERANGE);
	KEXPECT(errno_irq_addr != errno_task_addr);
}

/*
 * Floating-point formatting (dtoa: big integers from the reentrancy
 * structure's free lists, and malloc) on every CPU at once gives the
 * same digits as on one CPU.
 */
#define FLOAT_ROUNDS	3000
#define FLOAT_VALUES	8

static const double float_values[FLOAT_VALUES] = {
	3.141592653589793, 1e300, 2.5e-300, 123456789.125, 6.02214076e23,
	1.0 / 3.0, 9007199254740993.0, 0.1,
};
static char float_want[FLOAT_VALUES][48];
static atomic_t float_bad;

static void float_rounds(void)
{
	char got[48];

	for (int i = 0; i < FLOAT_ROUNDS; i++) {
		int v = (i + smp_processor_id()) % FLOAT_VALUES;

		snprintf(got, sizeof(got), "%.17g", float_values[v]);
		if (strcmp(got, float_want[v]))
			atomic_inc(&float_bad);
	}
}

static int float_thread(void *arg)
{
	(void)arg;
	float_rounds();
	return 0;
}

KTEST(newlib_snprintf_floats_on_every_cpu_at_once)
{
	struct task_struct *t[NR_CPUS] = { NULL };
	int cpu;

	for (int v = 0; v < FLOAT_VALUES; v++)
		snprintf(float_want[v], sizeof(float_want[v]), "%.17g", float_values[v]);
	KEXPECT(!strcmp(float_want[0], "3.1415926535897931"));
	atomic_set(&float_bad, 0);
	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id())
			t[cpu] = kthread_run_on_cpu(float_thread, NULL, cpu, "newlib_float");
	float_rounds();
	for_each_online_cpu(cpu)
		if (t[cpu])
			kthread_stop(t[cpu]);
	KEXPECT_EQ(atomic_read(&float_bad), 0);
}
