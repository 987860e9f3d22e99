/*
 * Fuzz target: kernel/monitor_parse.c, what a person types at the monitor.
 *
 * The input is typed, byte by byte, into the line editor; each Enter ends
 * a line, which goes to the splitter as monitor_exec() would hand it.  The
 * input is also cut at its newlines and each piece handed to the splitter
 * directly (monitor_exec() takes lines from tests too, of any length).
 * Properties:
 *   - the editor never stores more than MON_LINE - 1 characters, only
 *     printable ones, and counts the rest: a line it drops characters of
 *     is refused whole (monitor_run() says so), never run cut short;
 *   - every line gets an answer: its words (as many as a model of the
 *     rules counts: blanks separate, quotes group), or -1 and one printed
 *     line saying why (too long, too many words);
 *   - every word lies inside the splitter's buffer, NUL-terminated there,
 *     and argv ends with NULL;
 *   - nothing is read or written out of bounds (ASan, UBSan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"
#include "monitor.h"
#include "shim/shim.h"

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The rules, read once more: how many words does line hold? */
static int model_words(const char *p)
{
	int n = 0;

	for (;;) {
		while (is_blank(*p))
			p++;
		if (!*p)
			return n;
		n++;
		if (*p == '\'' || *p == '"') {
			char q = *p++;

			while (*p && *p != q)
				p++;
			if (*p)
				p++;
			continue;
		}
		while (*p && !is_blank(*p))
			p++;
	}
}

static void check_split(const char *line)
{
	char buf[MON_LINE], *argv[MON_ARGS + 1];
	size_t len = strlen(line);
	int argc, said, answers = 0;

	shim_reset();	/* (the editor's echo would fill the capture) */
	argc = monitor_parse(line, buf, argv);
	said = shim_count_lines("line too long") + shim_count_lines("too many arguments");

	if (len >= MON_LINE) {
		CHECK(argc == -1 && said == answers + 1,
		      "a line of %zu characters got %d words and no 'too long'", len, argc);
		return;
	}
	if (model_words(line) > MON_ARGS) {
		CHECK(argc == -1 && said == answers + 1,
		      "a line of %d words got %d and no 'too many arguments'",
		      model_words(line), argc);
		return;
	}
	CHECK(argc == model_words(line), "the splitter found %d words, the rules say %d",
	      argc, model_words(line));
	CHECK(said == answers, "a line that has words was refused");
	CHECK(argv[argc] == NULL, "argv[%d] is not NULL", argc);
	for (int i = 0; i < argc; i++) {
		CHECK(argv[i] >= buf && argv[i] < buf + sizeof(buf), "word %d is outside the buffer", i);
		CHECK(memchr(argv[i], '\0', buf + sizeof(buf) - argv[i]),
		      "word %d is not terminated inside the buffer", i);
	}
}

static void check_line(const struct mon_line *l)
{
	size_t len = strlen(l->buf);

	CHECK(len == l->len && len < MON_LINE, "the line holds %zu characters, len says %zu",
	      len, l->len);
	for (size_t i = 0; i < len; i++)
		CHECK(l->buf[i] >= ' ' && l->buf[i] < 0x7f, "byte %#x stored in the line",
		      (unsigned char)l->buf[i]);
	if (l->dropped) {
		CHECK(len == MON_LINE - 1, "characters dropped from a line that was not full");
		return;		/* monitor_run() refuses it whole */
	}
	check_split(l->buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mon_line l;
	char *copy = malloc(size + 1);

	shim_reset();
	mon_line_reset(&l);
	for (size_t i = 0; i < size; i++) {
		if (mon_line_feed(&l, data[i])) {
			check_line(&l);
			mon_line_reset(&l);
		}
	}
	/* The same bytes as lines handed over whole, each ended at a newline. */
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (char *line = copy, *nl; line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		check_split(line);
	}
	free(copy);
	return 0;
}
