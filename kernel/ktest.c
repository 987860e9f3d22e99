/*
 * The test runner: finds every KTEST in the .ktest section, keeps those
 * matching ktest.filter, runs them one at a time and prints KTAP version 1
 * (Linux's Documentation/dev-tools/ktap.rst) for tools/run.py to read.
 */
#include "ktest.h"
#include "ktest_runner.h"

#define MAX_FILTER 256

extern const struct ktest __ktest_start[], __ktest_end[];

static char filter[MAX_FILTER];
KPARAM_STRING("ktest.filter", filter);

/* The running test's outcome: checks from any CPU land here. */
static atomic_t failed_checks;
static bool skipped;
static char skip_reason[128];

bool ktest_requested(void)
{
	return filter[0] != '\0';
}

static bool match_one(const char *p, const char *pend, const char *s)
{
	for (; p < pend; p++, s++) {
		if (*p == '*') {
			for (const char *t = s; ; t++) {
				if (match_one(p + 1, pend, t))
					return true;
				if (!*t)
					return false;
			}
		}
		if (!*s || (*p != '?' && *p != *s))
			return false;
	}
	return !*s;
}

bool glob_match(const char *pattern, const char *name)
{
	for (;;) {
		const char *end = strchr(pattern, ',');

		if (!end)
			end = pattern + strlen(pattern);
		if (match_one(pattern, end, name))
			return true;
		if (!*end)
			return false;
		pattern = end + 1;
	}
}

bool ktest_check(bool ok, const char *file, int line, const char *expr)
{
	if (!ok) {
		printk("# %s:%d: EXPECTATION FAILED: %s (CPU%d)\n", file, line, expr,
		       smp_processor_id());
		atomic_inc(&failed_checks);
	}
	return ok;
}

bool ktest_check_eq(long long a, long long b, const char *file, int line,
		    const char *ea, const char *eb)
{
	if (a != b) {
		printk("# %s:%d: EXPECTATION FAILED: %s == %s\n#   %s is %lld (%#llx)\n"
		       "#   %s is %lld (%#llx)\n", file, line, ea, eb, ea, a,
		       (unsigned long long)a, eb, b, (unsigned long long)b);
		atomic_inc(&failed_checks);
	}
	return a == b;
}

void ktest_skip(const char *why)
{
	skipped = true;
	strncpy(skip_reason, why, sizeof(skip_reason) - 1);
}

/* The selected tests in file order, then in the order they stand in the file. */
static int select_tests(const struct ktest **out)
{
	int n = 0;

	for (const struct ktest *t = __ktest_start; t < __ktest_end; t++) {
		int i = n++;

		if (!glob_match(filter, t->name)) {
			n--;
			continue;
		}
		while (i > 0 && (strcmp(out[i - 1]->file, t->file) > 0 ||
				 (!strcmp(out[i - 1]->file, t->file) && out[i - 1]->line > t->line))) {
			out[i] = out[i - 1];
			i--;
		}
		out[i] = t;
	}
	return n;
}

static bool run_one(const struct ktest *t, int n)
{
	u64 t0 = ktime_get_ns();

	atomic_set(&failed_checks, 0);
	skipped = false;
	printk("# ktest: running %s\n", t->name);
	t->fn();
	printk("# ktest: %s took %llu ms\n", t->name,
	       (unsigned long long)((ktime_get_ns() - t0) / NSEC_PER_MSEC));
	if (skipped) {
		printk("ok %d %s # SKIP %s\n", n, t->name, skip_reason);
		return true;
	}
	if (atomic_read(&failed_checks)) {
		printk("not ok %d %s\n", n, t->name);
		return false;
	}
	printk("ok %d %s\n", n, t->name);
	return true;
}

void ktest_run_all(void)
{
	const struct ktest **tests = kcalloc(__ktest_end - __ktest_start + 1,
					     sizeof(*tests), GFP_KERNEL);
	int total, failed = 0;

	if (!tests)
		panic("ktest: no memory for the test list");
	total = select_tests(tests);

	printk("KTAP version 1\n");
	printk("1..%d\n", total);
	if (!total) {
		printk("# ktest: no test matches ktest.filter='%s' (%ld tests exist): "
		       "check the TESTS glob\n", filter, (long)(__ktest_end - __ktest_start));
		arch_qemu_exit(QEMU_EXIT_FAIL);
	}
	for (int i = 0; i < total; i++) {
		if (!run_one(tests[i], i + 1))
			failed++;
	}
	printk("# ktest: %d passed, %d failed\n", total - failed, failed);
	arch_qemu_exit(failed ? QEMU_EXIT_FAIL : QEMU_EXIT_PASS);
}
