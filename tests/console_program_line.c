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
#include "user/task.h"
#include "user/user.h"

KTEST(console_program_line_shows_control_characters_as_question_marks)
{
	static const char raw[] = "ok 1 a\x1b[2Jb\rc\td\x7f" "e\x01";
	char said[256];

	console_capture(said, sizeof(said));
	console_print_program_line(raw, sizeof(raw) - 1);
	console_capture(NULL, 0);
	KEXPECT(strstr(said, "# ok 1 a?[2Jb?c\td?e?\n"));
	KEXPECT(!strchr(said, '\x1b') && !strchr(said, '\r'));
}

KTEST(console_program_line_is_cut_at_the_line_buffer)
{
	char raw[CONSOLE_LINE_LEN + 8], said[CONSOLE_LINE_LEN + 64];

	memset(raw, 'x', sizeof(raw));
	console_capture(said, sizeof(said));
	console_print_program_line(raw, sizeof(raw));
	console_capture(NULL, 0);
	/* (exactly CONSOLE_LINE_LEN of them, then the newline) */
	KEXPECT(strstr(said, "# x"));
	KEXPECT_EQ(strchr(said, '\n') - strchr(said, 'x'), CONSOLE_LINE_LEN);
}
