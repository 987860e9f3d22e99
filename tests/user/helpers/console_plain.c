/*
 * console_plain: a program that knows nothing of the console server --
 * no q_console_attach() -- and uses standard input and output as any C
 * program does.  The kernel gave it the server's endpoint (lib/ipc.h's
 * SYS_CAP_CONSOLE_SLOT), so its runtime sends both through the server
 * (tests/console_server.c).
 *
 *   console_plain LINE   reads a line, prints it, exits 0 if it is LINE
 *   console_plain lines TAG  prints LINES long lines (each more than one
 *                        message to the server), tagged, and exits 0
 *   console_plain threads TAG  the same from two threads at once, on two
 *                        CPUs if there are two, tagged TAG1 and TAG2
 *   console_plain hang   prints half a line, says so through the kernel's
 *                        console, and waits for input for ever (the test
 *                        kills it while it holds the console)
 *   console_plain child LINE  starts "console_plain LINE" through its
 *                        program capability (SYS_cap_spawn: the kernel
 *                        hands the child the server too), prints nothing
 *                        itself, and exits with the child's status
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "quiescent.h"
#include "urcu-qsbr.h"

#define SENT	"console_plain: half a line sent\n"

#define LINES	16

/* Line i of tag: "console_plain TAG NN " and 80 times TAG's first letter. */
static void chatter(const char *tag)
{
	char fill[81];

	memset(fill, tag[0], 80);
	fill[80] = '\0';
	for (int i = 0; i < LINES; i++)
		printf("console_plain %s %02d %s\n", tag, i, fill);
}

/* A thread of "threads": its tag's lines. */
static int chatter_thread(void *tag)
{
	chatter(tag);
	fflush(stdout);
	return 0;
}

/* Two threads print at once: the same task, so the same badge at the server. */
static int chatter_threads(const char *tag)
{
	static char tags[2][16];
	struct sys_exit_status st;
	int tid[2], bad = 0;

	for (int i = 0; i < 2; i++) {
		snprintf(tags[i], sizeof(tags[i]), "%s%d", tag, i + 1);
		tid[i] = q_thread_create(chatter_thread, tags[i], i);
		if (tid[i] < 0)
			tid[i] = q_thread_create(chatter_thread, tags[i], SYS_CPU_ANY);
		if (tid[i] < 0)
			return 10;
	}
	for (int i = 0; i < 2; i++)
		bad |= q_thread_join(tid[i], &st) || st.killed || st.status;
	return bad ? 11 : 0;
}

/* Our own program again, spawned as any task spawns one: its exit status (100 + why if not). */
static int run_child(const char *line)
{
	struct sys_exit_status st;
	char cmd[128];
	int id;

	snprintf(cmd, sizeof(cmd), "tests/user/helpers/console_plain %s", line);
	id = q_spawn(cmd, strlen(cmd));
	if (id < 0)
		return 100;
	if (q_task_wait(id, &st))
		return 101;
	return st.killed ? 102 : st.status;
}

/* A reader that prints inside its section: never returns if the library catches it. */
static int print_inside_read_side(void)
{
	rcu_register_thread();
	rcu_read_lock();
	printf("console_plain: inside rcu_read_lock()\n");
	fflush(stdout);		/* an IPC to the server: blocks */
	rcu_read_unlock();
	rcu_unregister_thread();
	return 4;
}

int main(int argc, char **argv)
{
	char line[128];

	if (argc == 2 && !strcmp(argv[1], "urcu"))
		return print_inside_read_side();
	if (argc == 3 && !strcmp(argv[1], "lines")) {
		chatter(argv[2]);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "threads"))
		return chatter_threads(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "child"))
		return run_child(argv[2]);
	if (argc != 2)
		return 2;
	read(0, line, 0);	/* holds the console, as any first read: keys wait for us */
	printf("console_plain: holding the console\n");	/* (the test waits for it) */
	if (!strcmp(argv[1], "hang")) {
		printf("console_plain: unfinished");
		fflush(stdout);		/* in the server's line buffer when this returns */
		q_console_write(SENT, sizeof(SENT) - 1);	/* the kernel's: the test's cue */
	}
	if (!fgets(line, sizeof(line), stdin))
		return 3;
	line[strcspn(line, "\r\n")] = '\0';
	printf("console_plain: read '%s'\n", line);
	return strcmp(line, argv[1]) ? 1 : 0;
}
