/*
 * The monitor's input, without the console: the line editor that turns
 * typed characters into a line, and the splitter that turns a line into
 * words.  kernel/monitor.c feeds them the console; the host fuzzer
 * (tools/fuzz/) feeds them arbitrary bytes.  Both promise that a line is
 * never written past its buffer and that every line gets an answer: its
 * words, or one printed reason it has none (too long, too many words).
 */
#include "kernel.h"
#include "monitor.h"

#define CTRL_U		0x15
#define ESC		0x1b
#define DEL		0x7f

void mon_line_reset(struct mon_line *l)
{
	memset(l, 0, sizeof(*l));
}

/* Erases the last character on the terminal too (only stored ones were echoed). */
static void rub_out(struct mon_line *l)
{
	if (l->dropped) {
		l->dropped--;
	} else if (l->len) {
		l->len--;
		printk("\b \b");
	}
}

/*
 * Printable characters, Backspace/Delete, Ctrl-U (erase the line), Enter.
 * Escape sequences (arrow keys: ESC [ X or ESC O X) are swallowed.  Past
 * MON_LINE - 1 characters nothing more is stored or echoed, only counted,
 * so that the line is refused rather than run cut short.
 */
bool mon_line_feed(struct mon_line *l, int ch)
{
	if (l->esc) {
		if (l->esc == 1 && (ch == '[' || ch == 'O'))
			l->esc = 2;
		else if (ch >= 0x40 && ch <= 0x7e)
			l->esc = 0;
		return false;
	}
	if (ch == ESC) {
		l->esc = 1;
	} else if (ch == '\r' || ch == '\n') {
		printk("\n");
		l->buf[l->len] = '\0';
		return true;
	} else if (ch == DEL || ch == '\b') {
		rub_out(l);
	} else if (ch == CTRL_U) {
		while (l->len || l->dropped)
			rub_out(l);
	} else if (ch >= ' ' && ch < DEL) {
		if (l->len + 1 < sizeof(l->buf)) {
			l->buf[l->len++] = (char)ch;
			printk("%c", ch);
		} else {
			l->dropped++;
		}
	}
	return false;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int monitor_parse(const char *line, char buf[MON_LINE], char *argv[MON_ARGS + 1])
{
	int argc = 0;
	char *p;

	if (strnlen(line, MON_LINE) == MON_LINE) {
		printk("line too long (at most %d characters): nothing run\n", MON_LINE - 1);
		return -1;
	}
	strcpy(buf, line);
	for (p = buf; *p; ) {
		while (is_blank(*p))
			*p++ = '\0';
		if (!*p)
			break;
		if (argc == MON_ARGS) {
			printk("too many arguments (type help)\n");
			return -1;
		}
		/* Quotes group words: test 'rcu_*' as a shell would. */
		if (*p == '\'' || *p == '"') {
			char q = *p++;

			argv[argc++] = p;
			while (*p && *p != q)
				p++;
			if (*p)
				*p++ = '\0';
			continue;
		}
		argv[argc++] = p;
		while (*p && !is_blank(*p))
			p++;
	}
	argv[argc] = NULL;
	return argc;
}
