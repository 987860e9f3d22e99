/*
 * A client of the services (docs/microkernel.md): finds "kv" through the
 * name server in its slot 0 (from the root task), stores keys and reads
 * them back.  argv[1]: its number n (keys n * 1000 + i), argv[2]: how
 * many keys (16).  Exit status 0 if every value came back.
 */
#include <stdio.h>
#include <stdlib.h>
#include "qservices.h"

#define NS	0

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, keys = argc > 2 ? atoi(argv[2]) : 16, bad = 0;
	long kv = q_ns_lookup(NS, "kv");
	unsigned long v;

	if (kv < 0) {
		printf("kvclient %d: no \"kv\" (error %ld)\n", n, kv);
		return 1;
	}
	for (int i = 0; i < keys; i++)
		bad += q_kv_put(kv, n * 1000 + i, (unsigned long)i * i + n) != 0;
	for (int i = 0; i < keys; i++)
		bad += q_kv_get(kv, n * 1000 + i, &v) != 0 || v != (unsigned long)i * i + n;
	printf("kvclient %d: task %d on CPU%d, \"kv\" in slot %ld: %d puts, %d gets, %d wrong\n", n,
	       q_task_id(), q_cpu(), kv, keys, keys, bad);
	return bad != 0;
}
