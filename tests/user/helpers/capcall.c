/*
 * make bench (tests/bench/ipc.c) and make profile: capcall N makes N
 * system calls whose work is a capability lookup: SYS_ntf_poll on a
 * notification nobody signals (cap_lookup_noref(): RCU, no reference;
 * then the empty poll), timed inside too
 * (timed.h).  Exit status 0 when every poll found no bits.
 */
#include <stdlib.h>
#include "qcap.h"
#include "timed.h"

static int poll_empty(long i, void *arg)
{
	(void)i;
	return q_poll(*(int *)arg) != 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	int ntf = q_notification_create(SYS_CAP_ANY_SLOT);

	if (ntf < 0)
		return 3;
	return timed_loop(n, poll_empty, &ntf, "bench=ipc op=cap_call") ? 6 : 0;
}
