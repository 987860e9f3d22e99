/*
 * A program's line reaches the serial console made harmless: its control
 * characters (an escape sequence could clear or rewrite the terminal's
 * lines, a carriage return overwrite a test result) shown as '?', a tab
 * kept, and under the test runner a "# " first, so that nothing a program
 * prints can pass for a KTAP line.  Both ways a program prints come
 * through console_print_program_line(): its own SYS_console_write lines
 * and the lines the console server prints for it.
 */
#include "ktest.h"
#include "user/syscalls.h"
#include "user/task.h"
#include "user/user.h"

KTEST(console_program_line_shows_control_characters_as_question_marks)
{
	static const char raw[] = "ok 1 a\x1b[2Jb\rc\td\x7f" "e\x01";
	char said[256];

	console_capture(said, sizeof(said));
	console_print_program_line(raw, sizeof(raw) - 1, false);
	console_capture(NULL, 0);
	KEXPECT(strstr(said, "# ok 1 a?[2Jb?c\td?e?\n"));
	KEXPECT(!strchr(said, '\x1b') && !strchr(said, '\r'));
}

KTEST(console_program_line_is_cut_at_the_line_buffer)
{
	char raw[CONSOLE_LINE_LEN + 8], said[CONSOLE_LINE_LEN + 64];

	memset(raw, 'x', sizeof(raw));
	console_capture(said, sizeof(said));
	console_print_program_line(raw, sizeof(raw), true);
	console_capture(NULL, 0);
	/* (exactly CONSOLE_LINE_LEN of them, the mark, then the newline) */
	KEXPECT(strstr(said, "# x"));
	KEXPECT_EQ(strchr(said, '\n') - strchr(said, 'x'),
		   CONSOLE_LINE_LEN + strlen(SYS_CONSOLE_LINE_CUT));
	KEXPECT(!strncmp(strchr(said, '\n') - strlen(SYS_CONSOLE_LINE_CUT), SYS_CONSOLE_LINE_CUT,
			 strlen(SYS_CONSOLE_LINE_CUT)));
}

/* n x's then '\n' in buf: what a program prints. */
static size_t xs(char *buf, size_t n)
{
	memset(buf, 'x', n);
	buf[n] = '\n';
	return n + 1;
}

/* The lines said holds: each piece's length (without "# " and the mark), and whether it was cut. */
static int lines_of(const char *said, size_t *len, bool *cut, int max)
{
	size_t mark = strlen(SYS_CONSOLE_LINE_CUT);
	int n = 0;

	for (const char *p = said, *nl; n < max && (nl = strchr(p, '\n')); p = nl + 1, n++) {
		if (!strncmp(p, "# ", 2))
			p += 2;
		len[n] = nl - p;
		cut[n] = len[n] >= mark && !strncmp(nl - mark, SYS_CONSOLE_LINE_CUT, mark);
		len[n] -= cut[n] ? mark : 0;
	}
	return n;
}

/* A task's own writes: a line of exactly CONSOLE_LINE_LEN, then one 10 longer. */
KTEST(console_program_line_task_line_of_the_buffers_length_is_whole_a_longer_one_cut)
{
	struct user_task *t = kzalloc(sizeof(*t), GFP_KERNEL);
	char raw[2 * CONSOLE_LINE_LEN], said[4 * CONSOLE_LINE_LEN];
	size_t len[4];
	bool cut[4];

	KASSERT(t);
	spin_lock_init(&t->console_lock);
	console_capture(said, sizeof(said));
	user_console_write(t, raw, xs(raw, CONSOLE_LINE_LEN));
	user_console_write(t, raw, xs(raw, CONSOLE_LINE_LEN + 10));
	user_console_write(t, raw, CONSOLE_LINE_LEN);	/* (no newline: the exit flushes it) */
	user_console_flush(t);
	console_capture(NULL, 0);
	kfree(t);
	KEXPECT_EQ(lines_of(said, len, cut, 4), 4);
	/* No empty line after the first: it fit, and its newline ended it. */
	KEXPECT_EQ(len[0], CONSOLE_LINE_LEN);
	KEXPECT(!cut[0]);
	KEXPECT_EQ(len[1], CONSOLE_LINE_LEN);
	KEXPECT(cut[1]);
	KEXPECT_EQ(len[2], 10);
	KEXPECT(!cut[2]);
	KEXPECT_EQ(len[3], CONSOLE_LINE_LEN);	/* flushed at the end: nothing follows */
	KEXPECT(!cut[3]);
}

/* The console server's pieces (SYS_console_lines): lines whole, a longer one and a tail cut. */
KTEST(console_program_line_server_lines_whole_longer_ones_cut)
{
	char raw[3 * CONSOLE_LINE_LEN], said[4 * CONSOLE_LINE_LEN];
	size_t n = 0, len[5];
	bool cut[5];
	long printed;

	n += xs(raw + n, CONSOLE_LINE_LEN);
	n += xs(raw + n, CONSOLE_LINE_LEN + 10);
	memcpy(raw + n, "tail", 4);		/* a piece the server cut: no newline */
	console_capture(said, sizeof(said));
	printed = console_print_program_lines(raw, n + 4);
	console_capture(NULL, 0);
	KEXPECT_EQ(printed, 4);
	KEXPECT_EQ(lines_of(said, len, cut, 5), 4);
	KEXPECT(len[0] == CONSOLE_LINE_LEN && !cut[0]);
	KEXPECT(len[1] == CONSOLE_LINE_LEN && cut[1]);
	KEXPECT(len[2] == 10 && !cut[2]);
	KEXPECT(len[3] == 4 && cut[3]);
}
