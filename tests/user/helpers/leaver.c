/*
 * Ends and leaves tasks of its own running (tests/user_left_behind.c):
 *   leaver N D     starts N chains of D tasks, then exits at once;
 *   leaver chain D (a link) starts the next link while D > 1, then
 *                  sleeps until killed.
 * Every task spends from the first one's quota.  A chain's links start
 * one another as the test runner kills them: the runner must look again.
 */
#include <stdlib.h>
#include <string.h>
#include "qcap.h"

#define ME	"tests/user/helpers/leaver"
#define FOREVER	(3600ULL * 1000000000ULL)

static int start_link(int depth)
{
	int caps[1] = { q_program(ME) };	/* in the link's slot 0: it starts the next */
	char cmd[] = ME " chain 0";	/* (no snprintf: newlib's stdio is 40 KiB) */

	cmd[sizeof(cmd) - 2] = '0' + depth;	/* depth < 10 */
	return q_spawn_caps(cmd, caps, 1, SYS_RECV_SLOT_NONE);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "chain")) {
		int depth = atoi(argv[2]);

		if (depth > 1 && start_link(depth - 1) < 0)
			return 1;
		q_sleep_ns(FOREVER);
		return 0;
	}
	if (argc != 3)
		return 2;
	if (atoi(argv[2]) < 1 || atoi(argv[2]) > 9)
		return 2;
	for (int i = 0; i < atoi(argv[1]); i++)
		if (start_link(atoi(argv[2])) < 0)
			return 1;
	return 0;
}
