/*
 * caller LABEL: calls the endpoint in slot 0 once with LABEL and exits
 * with 0 if the reply came (tests/user/ipc_tasks.c kills it while the
 * server holds its call).
 */
#include <stdlib.h>
#include "qcap.h"

int main(int argc, char **argv)
{
	struct q_msg m = q_msg(argc > 1 ? atoi(argv[1]) : 1, 41, 0, 0, 0);

	return q_call(0, &m) == 0 && m.w[0] == 42 ? 0 : 1;
}
