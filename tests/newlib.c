/*
 * newlib as the kernel uses it (lib/newlib_glue.c): its locks are real
 * (recursive, interrupts off while held, exclusive across CPUs).
 */
#include "ktest.h"
#include <malloc.h>
#include <reent.h>
#include <stdlib.h>

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

