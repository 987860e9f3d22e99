/*
 * The command-line keys of the cmdline tests, one of each kind.  The
 * kernel's tests (tests/cmdline.c) and the host fuzzer's model
 * (tools/fuzz/fuzz_cmdline.c) include this same file, so a line the
 * fuzzer finds means the same to the kernel booted with it through GRUB
 * (tools/test_cmdlines.py compares the two).
 */
#ifndef TESTS_CMDLINE_PARAMS_H
#define TESTS_CMDLINE_PARAMS_H

#define TEST_NUM_DEFAULT	7
#define TEST_NUM_MIN		-100
#define TEST_NUM_MAX		100
#define TEST_BIG_LIMIT		(1LL << 40)

static int test_num = TEST_NUM_DEFAULT;
static long long test_big;
static bool test_flag = true;
static char test_name[16] = "default";
static char test_mode = '-';

/* test.mode=a or test.mode=b: a key whose value a function checks. */
static bool set_test_mode(const struct kparam *p, const char *val)
{
	(void)p;
	if (strcmp(val, "a") && strcmp(val, "b"))
		return false;
	test_mode = val[0];
	return true;
}

KPARAM_INT("test.num", test_num, TEST_NUM_MIN, TEST_NUM_MAX);
KPARAM_INT("test.big", test_big, -TEST_BIG_LIMIT, TEST_BIG_LIMIT);
KPARAM_BOOL("test.flag", test_flag);
KPARAM_STRING("test.name", test_name);
KPARAM_CALL("test.mode", set_test_mode, "a or b");

#endif
