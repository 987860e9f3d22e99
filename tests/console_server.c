/*
 * The console's input served from user mode (user/console_server.c,
 * docs/drivers.md): the kernel starts the console server with the UART's
 * line, its registers, an endpoint and the console capability
 * (console_server_start()).
 *
 * With a program holding the console (tests/user/helpers/console_reader,
 * the endpoint in its slot 0), the runner types a line on the serial
 * console, the server's driver thread reads it from the UART, and the
 * reader gets it from newlib's fgets() on standard input, by IPC; its
 * printf() goes back the same way and the server prints the line, whole,
 * through its console capability.  With nobody holding the console, the
 * server hands the keys to the kernel: console_getc() (the monitor, the
 * demos) gets them.
 */
#include <errno.h>
#include "ktest.h"
#include "object/cap.h"
#include "object/console.h"
#include "user/console_server.h"
#include "user/module.h"
#include "driver_test.h"

#define READER		"tests/user/helpers/console_reader"
#define LINE		"hello-console"
#define ECHOED		"# console_reader: read '" LINE "'\n"	/* the reader's printf(), as printed */
#define HOLDING		1	/* console lines the reader prints before it reads */
#define PLAIN		"tests/user/helpers/console_plain"
#define PLAIN_ECHOED	"# console_plain: read '" LINE "'\n"
#define UNFINISHED	"# console_plain: unfinished\n"	/* a dead holder's half line, ended */
#define HALF_SENT	"console_plain: half a line sent"	/* its cue, through the kernel */

/* The reader's slot 0: the server's endpoint, to call and give capabilities to (a hold's). */
static int setup_reader(struct user_task *t, void *arg)
{
	int s = cap_insert_object(t->cspace, 0, arg, SYS_CAP_WRITE | SYS_CAP_GRANT);

	return s < 0 ? s : 0;
}

/* Starts the server and waits until it holds the line; false (and skipped or failed) if not. */
static bool start_server(struct console_server *cs)
{
	int err = console_server_start(cs);

	if (err)
		ktest_info("the console server did not start (error %d)", err);
	KEXPECT_EQ(err, 0);
	if (err)
		return false;
	KEXPECT(wait_held(console_input_irq(), true));
	return true;
}

/* Ends the server and gives the line back to the kernel's console. */
static void stop_server(struct console_server *cs)
{
	struct user_task *t = cs->task;

	user_task_get(t);
	console_server_put(cs);
	killed(t);
	KEXPECT(wait_held(console_input_irq(), false));
	KEXPECT_EQ(console_input_reclaim(), 0);
}

/* Waits until the server printed want lines through its console capability. */
static bool wait_lines(struct kobject *cons, long want)
{
	u64 end = ktime_get_ns() + WAIT_NS;

	while (console_obj_lines(cons) < want && ktime_get_ns() < end)
		msleep(5);
	return console_obj_lines(cons) >= want;
}

static char said[8192];

/* Waits until the capture holds want (it only grows while a test captures). */
static bool wait_said(const char *want)
{
	u64 end = ktime_get_ns() + WAIT_NS;

	while (!strstr(said, want) && ktime_get_ns() < end)
		msleep(5);
	return strstr(said, want);
}

/* Can the tests run here: the server, prog, and the console's line held by the kernel? */
static bool have(const char *prog)
{
	return kernel_console_line() >= 0 && boot_module_find(CONSOLE_SERVER) && boot_module_find(prog);
}

/* cmd started while cs is published, as the boot's programs are (it keeps its capability). */
static struct user_task *spawn_published(struct console_server *cs, const char *cmd)
{
	struct user_task *t;
	int err;

	console_server_publish(cs->ep);
	t = user_spawn(cmd, NULL, &err);
	console_server_publish(NULL);
	KEXPECT(t);
	return t;
}

/*
 * t holds the console once its first line came through the server: the
 * runner types LINE, t must read it, exit 0, and its echo (echoed) come
 * back through the server's console capability, whole.
 */
static void reads_typed_line(struct console_server *cs, struct user_task *t, const char *echoed)
{
	bool holding = t && wait_lines(cs->cons, HOLDING);

	KEXPECT(holding);
	if (!holding) {
		if (t)
			killed(t);
		return;
	}
	console_capture(said, sizeof(said));
	if (!ktest_type_on_console(LINE "\n"))
		ktest_info("nobody types on the serial line (run from the monitor)");
	KEXPECT_EQ(end_of(t), 0);
	console_capture(NULL, 0);
	KEXPECT(strstr(said, echoed));
	KEXPECT(console_obj_lines(cs->cons) >= HOLDING + 1);
}

KTEST(console_server_serves_a_typed_line_to_a_program)
{
	struct console_server cs;
	struct user_task *reader;
	int err;

	if (!have(READER))
		KTEST_SKIP("needs " CONSOLE_SERVER ", " READER " and " NOT_THE_KERNELS);
	if (!start_server(&cs))
		return;
	reader = user_spawn_with(READER " " LINE, NULL, &err, setup_reader, cs.ep);
	KEXPECT(reader);
	reads_typed_line(&cs, reader, ECHOED);	/* (its printf(): through the server, whole) */
	stop_server(&cs);
}

/* Reads want from console_getc(), as the monitor does; false on timeout or another key. */
static bool kernel_reads(const char *want)
{
	u64 end = ktime_get_ns() + WAIT_NS;

	for (const char *p = want; *p; ) {
		int c = console_getc();

		if (c < 0 && ktime_get_ns() > end)
			return false;
		if (c < 0)
			msleep(5);
		else if (c != *p++)
			return false;
	}
	return true;
}

KTEST(console_server_hands_keys_to_the_kernel_when_nobody_holds)
{
	struct console_server cs;

	if (!have(CONSOLE_SERVER))
		KTEST_SKIP("needs " CONSOLE_SERVER " and " NOT_THE_KERNELS);
	while (console_getc() >= 0)
		;
	if (!start_server(&cs))
		return;
	if (ktest_type_on_console("keys"))
		KEXPECT(kernel_reads("keys"));	/* the server read them, and pushed them */
	else
		ktest_info("nobody types on the serial line (run from the monitor)");
	stop_server(&cs);
}

/*
 * The server the boot starts (console_server_boot()) is published: a
 * program that knows nothing of it -- console_plain, no
 * q_console_attach() -- reads its standard input and writes its standard
 * output through it.  Its first line must come through the server's
 * console capability, the typed line must reach its fgets().
 */
KTEST(console_server_published_is_every_programs_console)
{
	struct console_server cs;

	if (!have(PLAIN))
		KTEST_SKIP("needs " CONSOLE_SERVER ", " PLAIN " and " NOT_THE_KERNELS);
	if (!start_server(&cs))
		return;
	reads_typed_line(&cs, spawn_published(&cs, PLAIN " " LINE), PLAIN_ECHOED);
	stop_server(&cs);
}

/*
 * A program started by another through SYS_cap_spawn (as the root task
 * starts everything under make run) gets the published server too: the
 * child of console_plain's "child" mode -- its parent prints nothing --
 * must hold the console, read the typed line and echo it through the
 * server, as a program the kernel started does.
 */
KTEST(console_server_published_reaches_programs_tasks_spawn)
{
	struct console_server cs;
	struct user_task *t;
	int err;

	if (!have(PLAIN))
		KTEST_SKIP("needs " CONSOLE_SERVER ", " PLAIN " and " NOT_THE_KERNELS);
	if (!start_server(&cs))
		return;
	/* (published until the child is done: it starts after its parent, as the boot's do) */
	console_server_publish(cs.ep);
	t = user_spawn_root(PLAIN " child " LINE, &err);	/* (it holds its own program) */
	KEXPECT(t);
	reads_typed_line(&cs, t, PLAIN_ECHOED);
	console_server_publish(NULL);
	stop_server(&cs);
}

/*
 * A QSBR reader that prints inside its read-side section blocks in the
 * server's IPC: the urcu library must name the misuse and abort the
 * task.  Its report cannot itself go through the server -- that IPC
 * would be the same misuse again, found over and over until the stack
 * ran out and the task died of a fault with nothing said.
 */
#define URCU_BUG	"urcu: BUG: q_call() blocks inside rcu_read_lock()"

KTEST(console_server_urcu_misuse_is_reported_not_recursed)
{
	struct console_server cs;
	struct sys_exit_status st = { 0 };
	struct user_task *t;
	bool ended;

	if (!have(PLAIN))
		KTEST_SKIP("needs " CONSOLE_SERVER ", " PLAIN " and " NOT_THE_KERNELS);
	if (!start_server(&cs))
		return;
	console_capture(said, sizeof(said));
	t = spawn_published(&cs, PLAIN " urcu");
	ended = t && !user_task_wait_timeout(t, WAIT_NS, &st);
	console_capture(NULL, 0);
	KEXPECT(ended);
	KEXPECT_EQ(st.killed, SYS_KILLED_ABORT);
	KEXPECT(strstr(said, URCU_BUG));
	if (t)
		killed(t);
	stop_server(&cs);
}

/*
 * A program killed while it holds the console (waiting in fgets()) lets
 * the hold go: keys typed afterwards reach the kernel's readers again,
 * and the half line it left is printed, ended.
 */
KTEST(console_server_hold_ends_when_its_holder_dies)
{
	struct console_server cs;
	struct user_task *plain;
	bool holding;

	if (!have(PLAIN))
		KTEST_SKIP("needs " CONSOLE_SERVER ", " PLAIN " and " NOT_THE_KERNELS);
	while (console_getc() >= 0)
		;
	if (!start_server(&cs))
		return;
	console_capture(said, sizeof(said));
	plain = spawn_published(&cs, PLAIN " hang");
	holding = plain && wait_lines(cs.cons, HOLDING) && wait_said(HALF_SENT);
	KEXPECT(holding);
	if (plain)
		KEXPECT_EQ(killed(plain), -1);
	/* The server lets the hold go, then prints the half line: wait for that line. */
	KEXPECT(wait_lines(cs.cons, HOLDING + 1));
	if (holding && ktest_type_on_console("keys"))
		KEXPECT(kernel_reads("keys"));	/* nobody holds the console any more */
	else if (holding)
		ktest_info("nobody types on the serial line (run from the monitor)");
	console_capture(NULL, 0);
	KEXPECT(strstr(said, UNFINISHED));
	stop_server(&cs);
}

#define CHATTER_LINES	16	/* console_plain's LINES */

/* Is line i of tag's chatter in the capture, whole? */
static bool chatter_whole(const char *tag, int i)
{
	char want[128];
	int n = snprintf(want, sizeof(want), "# console_plain %s %02d ", tag, i);

	memset(want + n, tag[0], 80);
	want[n + 80] = '\n';
	want[n + 81] = '\0';
	return strstr(said, want);
}

/*
 * Runs the programs cmds[] (console_plain's chatter modes) at once
 * through the published server: each must exit 0, and every line of
 * tag0's and tag1's chatter come out whole, through the server.
 */
static void chatter_at_once(const char *const cmds[], int ncmds, const char *tag0,
			    const char *tag1)
{
	struct user_task *t[2];
	struct console_server cs;
	int whole = 0;

	if (!have(PLAIN))
		KTEST_SKIP("needs " CONSOLE_SERVER ", " PLAIN " and " NOT_THE_KERNELS);
	if (!start_server(&cs))
		return;
	console_capture(said, sizeof(said));
	for (int i = 0; i < ncmds; i++)
		t[i] = spawn_published(&cs, cmds[i]);
	for (int i = 0; i < ncmds; i++)
		KEXPECT_EQ(end_of(t[i]), 0);
	console_capture(NULL, 0);
	for (int i = 0; i < CHATTER_LINES; i++)
		whole += chatter_whole(tag0, i) + chatter_whole(tag1, i);
	KEXPECT_EQ(whole, 2 * CHATTER_LINES);
	KEXPECT(console_obj_lines(cs.cons) >= 2 * CHATTER_LINES);	/* through the server */
	stop_server(&cs);
}

/*
 * Two programs print long lines at once through the published server
 * (each line several messages): every line must come out whole, so each
 * program's bytes must gather in a buffer of their own (their badges).
 */
KTEST(console_server_keeps_each_programs_lines_whole)
{
	static const char *const cmds[] = { PLAIN " lines A", PLAIN " lines B" };

	chatter_at_once(cmds, 2, "A", "B");
}

/*
 * Two threads of one program print long lines at once: one badge at the
 * server, so each writer's bytes must gather apart from the other's (the
 * writer's thread in each message), and every line come out whole.
 */
KTEST(console_server_keeps_each_threads_lines_whole)
{
	static const char *const cmds[] = { PLAIN " threads T" };

	chatter_at_once(cmds, 1, "T1", "T2");
}
