/* The kernel command line: good words are applied, bad ones reported and ignored. */
#include "ktest.h"
#include "cmdline_params.h"

KTEST(cmdline_applies_good_words)
{
	KEXPECT_EQ(cmdline_parse("  test.num=42\ttest.flag=off test.name=hello  ", false), 0);
	KEXPECT_EQ(test_num, 42);
	KEXPECT_EQ(test_flag, false);
	KEXPECT(!strcmp(test_name, "hello"));
	KEXPECT_EQ(cmdline_parse("test.num=-0x10 test.flag", false), 0);
	KEXPECT_EQ(test_num, -16);
	KEXPECT_EQ(test_flag, true);
}

KTEST(cmdline_reports_and_ignores_bad_words)
{
	test_num = 5;
	test_flag = true;
	strcpy(test_name, "keep");
	KEXPECT_EQ(cmdline_parse("test.num=abc test.num=1000 test.num= test.num "
				 "test.flag=maybe test.name=waytoolongforthebuffer "
				 "no.such.key=1 =5 test.num=12x", true), 9);
	KEXPECT_EQ(test_num, 5);		/* defaults kept */
	KEXPECT_EQ(test_flag, true);
	KEXPECT(!strcmp(test_name, "keep"));
	KEXPECT_EQ(cmdline_parse("", true), 0);
}

KTEST(cmdline_understands_quotes_and_backslashes)
{
	KEXPECT_EQ(cmdline_parse("test.name=\"a b\" test.num=\\4\\2", false), 0);
	KEXPECT(!strcmp(test_name, "a b"));
	KEXPECT_EQ(test_num, 42);
	/* What GRUB hands on for the word it's: a backslash before the quote. */
	KEXPECT_EQ(cmdline_parse("test.name=it\\'s", false), 0);
	KEXPECT(!strcmp(test_name, "it's"));
	KEXPECT_EQ(cmdline_parse("\"\" $x test.name=$HOME", true), 2);	/* "" and $x */
	KEXPECT(!strcmp(test_name, "$HOME"));
}

KTEST(cmdline_survives_an_overlong_word)
{
	static char line[600];

	memset(line, 'x', sizeof(line) - 1);
	memcpy(line + sizeof(line) - 12, " test.num=3", 11);
	KEXPECT_EQ(cmdline_parse(line, true), 1);
	KEXPECT_EQ(test_num, 3);	/* the word after it still counts */
}

KTEST(cmdline_long_long_and_function_keys)
{
	KEXPECT_EQ(cmdline_parse("test.big=0x10000000000 test.mode=b", true), 0);
	KEXPECT_EQ(test_big, TEST_BIG_LIMIT);
	KEXPECT_EQ(test_mode, 'b');
	KEXPECT_EQ(cmdline_parse("test.big=0x10000000001 test.big=-0x10000000001 "
				 "test.mode=c test.mode", true), 4);
	KEXPECT_EQ(test_big, TEST_BIG_LIMIT);	/* out of range: kept */
	KEXPECT_EQ(test_mode, 'b');
}

KTEST(cmdline_takes_a_path_only_as_the_first_word)
{
	/* Some boot loaders pass the kernel's path first; later, it is a word like any. */
	KEXPECT_EQ(cmdline_parse("/boot/kernel.elf test.num=1", true), 0);
	KEXPECT_EQ(test_num, 1);
	KEXPECT_EQ(cmdline_parse("test.num=2 /boot/kernel.elf", true), 1);
	KEXPECT_EQ(test_num, 2);
}
