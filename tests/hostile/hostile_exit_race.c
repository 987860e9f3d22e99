/*
 * Two ends of a task at once: on every CPU a thread waits for the same
 * flag, then each calls exit() with its own status, or one aborts, or
 * one faults, or one is the parent's kill.  The task must end once, with
 * the status or the reason of one of them -- never a mix, never a hang
 * -- and leave nothing behind, over many rounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "utest.h"
#include "qcap.h"

#define ME		"tests/user/hostile_exit_race"
#define ROUNDS		6
#define CHILD_SLOT	90

static volatile int go;
static volatile int *volatile nowhere = (int *)16;

static int racer(void *arg)
{
	long how = (long)arg;

	while (!go)
		;
	if (how == 100)
		abort();
	if (how == 101)
		*nowhere = 1;
	if (how == 102)
		q_syscall(SYS_exit, 7, 0, 0, 0, 0, 0);
	exit((int)how);
}

static int child(const char *how)
{
	int cpus = q_nr_cpus();

	for (int c = 0; c < cpus; c++) {
		long what = 10 + c;

		if (!strcmp(how, "abort") && c == 1)
			what = 100;
		if (!strcmp(how, "fault") && c == 1)
			what = 101;
		if (!strcmp(how, "raw"))
			what = 102;
		q_thread_create(racer, (void *)what, c);
	}
	q_sleep_ns(5000000);
	go = 1;
	while (go)
		q_sleep_ns(1000000);
	return 1;
}

static void round_of(const char *how)
{
	int cpus = q_nr_cpus(), id;
	struct sys_exit_status st = { -1, -1 };
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "%s %s", ME, how);
	id = q_spawn_caps(cmd, NULL, 0, CHILD_SLOT);
	CHECK(id > 0);
	if (!strcmp(how, "kill")) {
		q_sleep_ns(5000000);
		CHECK_EQ(q_kill(CHILD_SLOT), 0);
	}
	CHECK_EQ(q_task_wait(id, &st), 0);
	if (st.killed == 0) {
		if (!strcmp(how, "raw"))
			CHECK_EQ(st.status, 7);
		else
			CHECK(st.status >= 10 && st.status < 10 + cpus);
	} else {
		CHECK_EQ(st.status, 0);
		CHECK((!strcmp(how, "abort") && st.killed == SYS_KILLED_ABORT) ||
		      (!strcmp(how, "fault") && st.killed == SYS_KILLED_FAULT) ||
		      (!strcmp(how, "kill") && st.killed == SYS_KILLED_BY_TASK));
	}
	CHECK_EQ(q_cap_delete(CHILD_SLOT), 0);
}

int main(int argc, char **argv)
{
	const char *hows[] = { "exit", "raw", "abort", "fault", "kill" };

	if (argc > 1)
		return child(argv[1]);
	for (int r = 0; r < ROUNDS; r++)
		for (unsigned int h = 0; h < sizeof(hows) / sizeof(hows[0]); h++)
			round_of(hows[h]);
	return check_result();
}
