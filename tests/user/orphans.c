/*
 * A task that ends without waiting for its children: the ones that ended
 * before it leave the task list with it, the others when they end.  More
 * than the kernel takes off the list in one pass (16), so it takes
 * several; the test runner's leak check finds any left behind.
 */
#include <string.h>
#include "quiescent.h"

#define CHILDREN	40
#define CHILD		"tests/user/helpers/exit_with 0"

int main(void)
{
	for (int i = 0; i < CHILDREN; i++)
		if (q_spawn(CHILD, strlen(CHILD)) < 0)
			return 1;
	q_sleep_ns(100 * 1000 * 1000);	/* most of them have ended by now */
	return 0;
}
