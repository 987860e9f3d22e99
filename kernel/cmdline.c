/*
 * Parsing the kernel command line into the keys declared with KPARAM_*
 * (they sit in the .kparam section, so there is no central list).  Every
 * word that is not used is reported with the reason, and the default kept.
 */
#include <stdlib.h>
#include <errno.h>
#include "kernel.h"

#define MAX_WORD	256
#define SHOWN_CHARS	40	/* of a word, in a report */
#define SHOWN_SIZE	(4 * SHOWN_CHARS + 4)	/* each may become \xNN; "...", NUL */

extern const struct kparam __kparam_start[], __kparam_end[];

static char command_line[4096];

const char *saved_command_line(void)
{
	if (!command_line[0]) {
		const char *s = arch_cmdline();

		strncpy(command_line, s ? s : "", sizeof(command_line) - 1);
	}
	return command_line;
}

bool kparam_set_int(const struct kparam *p, const char *val)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(val, &end, 0);
	if (!*val || *end || errno || v < p->min || v > p->max)
		return false;
	if (p->size == sizeof(int))
		*(int *)p->var = (int)v;
	else
		*(long long *)p->var = v;
	return true;
}

bool kparam_set_bool(const struct kparam *p, const char *val)
{
	bool v;

	if (!strcmp(val, "1") || !strcmp(val, "y") || !strcmp(val, "on"))
		v = true;
	else if (!strcmp(val, "0") || !strcmp(val, "n") || !strcmp(val, "off"))
		v = false;
	else
		return false;
	*(bool *)p->var = v;
	return true;
}

bool kparam_set_flag(const struct kparam *p, const char *val)
{
	if (strcmp(val, p->word))
		return false;
	*(bool *)p->var = true;
	return true;
}

bool kparam_set_string(const struct kparam *p, const char *val)
{
	if (strlen(val) >= p->size)
		return false;
	strcpy(p->var, val);
	return true;
}

static const struct kparam *find_param(const char *key)
{
	for (const struct kparam *p = __kparam_start; p < __kparam_end; p++)
		if (!strcmp(p->name, key))
			return p;
	return NULL;
}

/* Applies one word; returns NULL when used, else why it was ignored. */
static const char *apply_word(char *word, const struct kparam **param)
{
	char *eq = strchr(word, '=');
	const char *val = "1";
	const struct kparam *p;

	if (eq) {
		*eq = '\0';
		val = eq + 1;
	}
	*param = p = find_param(word);
	if (eq)
		*eq = '=';
	if (!p)
		return "unknown parameter";
	if (p->set == kparam_set_int && !eq)
		return "needs a value";
	return p->set(p, val) ? NULL : "bad value";
}

/*
 * The word as a report shows it: its first SHOWN_CHARS characters, with
 * control and non-ASCII bytes as \xNN, so that a report stays one line
 * (a quoted word may hold a newline) and says what the word really was.
 */
static void show_word(char *out, size_t size, const char *word)
{
	size_t n = 0;

	for (size_t i = 0; word[i] && n + 5 < size; i++) {
		unsigned char c = word[i];

		if (i == SHOWN_CHARS) {
			strcpy(out + n, "...");
			return;
		}
		if (c >= ' ' && c < 0x7f)
			out[n++] = c;
		else
			n += snprintf(out + n, size - n, "\\x%02x", c);
	}
	out[n] = '\0';
}

static void report(const char *word, const char *why, const struct kparam *p)
{
	char w[SHOWN_SIZE];

	show_word(w, sizeof(w), word);
	if (p && p->set == kparam_set_int)
		printk("cmdline: ignoring '%s': %s (expected an integer from %lld to %lld); "
		       "keeping the default\n", w, why, p->min, p->max);
	else if (p)
		printk("cmdline: ignoring '%s': %s (expected %s); keeping the default\n",
		       w, why, p->what);
	else
		printk("cmdline: ignoring '%s': %s\n", w, why);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/*
 * Copies the next word of *line into word (at most size-1 characters) and
 * advances *line past it.  As in Linux and in GRUB's own rewriting of the
 * line: "double quotes" group spaces into a word and are dropped, and a
 * backslash takes the next character literally (GRUB puts one before
 * every \ ' and " it passes on).  Returns the word's length before any
 * truncation.
 */
static size_t next_word(const char **line, char *word, size_t size)
{
	const char *s = *line;
	size_t n = 0;
	bool quoted = false;

	for (; *s && (quoted || !is_space(*s)); s++) {
		char c = *s;

		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (c == '\\' && s[1])
			c = *++s;
		if (n < size - 1)
			word[n] = c;
		n++;
	}
	word[min(n, size - 1)] = '\0';
	*line = s;
	return n;
}

int cmdline_parse(const char *line, bool verbose)
{
	char word[MAX_WORD];
	int ignored = 0;

	for (bool first = true; ; first = false) {
		const char *why;
		const struct kparam *p = NULL;
		size_t n;

		while (is_space(*line))
			line++;
		if (!*line)
			break;
		n = next_word(&line, word, sizeof(word));
		if (n >= MAX_WORD) {
			why = "word too long";
		} else if (!word[0]) {
			why = "empty word";
		} else {
			/* A boot loader may pass the kernel's path first: not a parameter. */
			why = first && word[0] == '/' ? "" : apply_word(word, &p);
		}
		if (why && *why) {
			ignored++;
			if (verbose)
				report(word, why, p);
		}
	}
	return ignored;
}
