/*
 * Ends and leaves tasks of its own running (tests/user_left_behind.c):
 *   leaver N       starts N tasks that sleep until killed, then exits at
 *                  once: status 0, or 1 if a start was refused (too
 *                  little memory);
 *   leaver sleep   (one of them) sleeps until killed.
 * Every task spends from the first one's quota.
 */
#include <stdlib.h>
#include <string.h>
#include "qcap.h"

#define SLEEPER	"tests/user/helpers/leaver sleep"
#define FOREVER	(3600ULL * 1000000000ULL)

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "sleep")) {
		q_sleep_ns(FOREVER);
		return 0;
	}
	if (argc != 2)
		return 2;
	for (int i = 0; i < atoi(argv[1]); i++)
		if (q_spawn(SLEEPER, strlen(SLEEPER)) < 0)
			return 1;
	return 0;
}
