/*
 * Fuzz target: kernel/cmdline.c, the kernel command line.
 *
 * The input (up to its first NUL) is a command line.  The keys are the
 * kernel tests' (tests/cmdline_params.h: an int, a long long, a bool, a
 * string, a function).  A small model of the documented rules (words
 * split at spaces, tabs and newlines; "double quotes" group and are
 * dropped; a backslash takes the next character; a leading /path is the
 * kernel's) says what each word must do, and the properties are:
 *   - every word is applied or reported, never silently dropped: the
 *     count cmdline_parse() returns and the "cmdline: ignoring" lines it
 *     prints both equal the model's count of refused words;
 *   - every key ends with the value of its last good word, or its
 *     default, and so never outside its declared range;
 *   - nothing is read or written out of bounds (ASan, UBSan).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "kernel.h"
#include "../../tests/cmdline_params.h"
#include "shim/shim.h"

#define MAX_WORD	256	/* kernel/cmdline.c's */

const char *arch_cmdline(void)
{
	return "";
}

struct expect {
	int num;
	long long big;
	bool flag;
	char name[sizeof(test_name)];
	char mode;
	int ignored;
};

static void set_defaults(void)
{
	test_num = TEST_NUM_DEFAULT;
	test_big = 0;
	test_flag = true;
	strcpy(test_name, "default");
	test_mode = '-';
}

static bool model_int(const char *val, long long lo, long long hi, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(val, &end, 0);
	if (!*val || *end || errno || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static bool model_bool(const char *val, bool *out)
{
	if (!strcmp(val, "1") || !strcmp(val, "y") || !strcmp(val, "on"))
		*out = true;
	else if (!strcmp(val, "0") || !strcmp(val, "n") || !strcmp(val, "off"))
		*out = false;
	else
		return false;
	return true;
}

/* One word, as the documented rules read it: is it used, and how. */
static bool model_apply(struct expect *e, char *word)
{
	char *eq = strchr(word, '=');
	const char *val = eq ? eq + 1 : "1";
	long long v;

	if (eq)
		*eq = '\0';
	if (!strcmp(word, "test.num") && eq && model_int(val, TEST_NUM_MIN, TEST_NUM_MAX, &v))
		e->num = (int)v;
	else if (!strcmp(word, "test.big") && eq &&
		 model_int(val, -TEST_BIG_LIMIT, TEST_BIG_LIMIT, &v))
		e->big = v;
	else if (!strcmp(word, "test.flag") && model_bool(val, &e->flag))
		;
	else if (!strcmp(word, "test.name") && strlen(val) < sizeof(e->name))
		strcpy(e->name, val);
	else if (!strcmp(word, "test.mode") && (!strcmp(val, "a") || !strcmp(val, "b")))
		e->mode = val[0];
	else
		return false;
	return true;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* The model: walks the line word by word and fills e. */
static void model(const char *s, struct expect *e)
{
	static char word[1 << 16];

	for (bool first = true; ; first = false) {
		size_t n = 0;
		bool quoted = false;

		while (is_space(*s))
			s++;
		if (!*s)
			return;
		for (; *s && (quoted || !is_space(*s)); s++) {
			if (*s == '"') {
				quoted = !quoted;
				continue;
			}
			if (*s == '\\' && s[1])
				s++;
			word[n++] = *s;
		}
		word[n] = '\0';
		if (n >= MAX_WORD || !n)
			e->ignored++;
		else if (first && word[0] == '/')
			;
		else if (!model_apply(e, word))
			e->ignored++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	struct expect e = { TEST_NUM_DEFAULT, 0, true, "default", '-', 0 };
	int ignored;

	if (size >= 1 << 16)
		size = (1 << 16) - 1;	/* the model's word buffer */
	memcpy(line, data, size);
	line[size] = '\0';
	shim_reset();
	set_defaults();
	model(line, &e);
	ignored = cmdline_parse(line, true);

	CHECK(ignored == e.ignored, "cmdline_parse() says %d words ignored, the rules say %d",
	      ignored, e.ignored);
	CHECK(shim_count_lines("cmdline: ignoring") == ignored,
	      "%d words ignored but %d reported", ignored, shim_count_lines("cmdline: ignoring"));
	CHECK(test_num >= TEST_NUM_MIN && test_num <= TEST_NUM_MAX, "test.num=%d out of range",
	      test_num);
	CHECK(test_big >= -TEST_BIG_LIMIT && test_big <= TEST_BIG_LIMIT,
	      "test.big=%lld out of range", test_big);
	CHECK(test_num == e.num, "test.num is %d, the rules say %d", test_num, e.num);
	CHECK(test_big == e.big, "test.big is %lld, the rules say %lld", test_big, e.big);
	CHECK(test_flag == e.flag, "test.flag is %d, the rules say %d", test_flag, e.flag);
	CHECK(memchr(test_name, '\0', sizeof(test_name)), "test.name is not terminated");
	CHECK(!strcmp(test_name, e.name), "test.name is '%s', the rules say '%s'",
	      test_name, e.name);
	CHECK(test_mode == e.mode, "test.mode is %c, the rules say %c", test_mode, e.mode);
	free(line);
	return 0;
}
