/*
 * make bench: the servers on user-space RCU (docs/urcu.md, "Servers on
 * RCU"), measured inside the key-value server: `user/kvserver --bench`
 * runs its own lookup on its own table under no synchronization, its
 * sleeping mutex and reader-writer lock, and each RCU flavor, and times
 * SYS_membarrier against the threads of the task running
 * (user/kvserver/bench.c); the program prints its make bench lines
 * itself, once per repetition.
 */
#include "bench.h"
#include "user/module.h"

#define KVSERVER	"user/kvserver"

KBENCH(bench_urcu)
{
	char cmd[96];

	if (!boot_module_find(KVSERVER))
		KTEST_SKIP("no boot module " KVSERVER);
	for (int rep = 0; rep < bench_reps; rep++) {
		snprintf(cmd, sizeof(cmd), KVSERVER " --bench window_ms=%d rep=%d", bench_window_ms,
			 rep);
		KEXPECT(bench_run_program(cmd) != 0);
	}
}
