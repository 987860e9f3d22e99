/*
 * The test runner: finds every KTEST in the .ktest section, keeps those
 * matching ktest.filter, runs them one at a time and prints KTAP version 1
 * (Linux's Documentation/dev-tools/ktap.rst) for tools/run.py to read.
 * With bench.run=1 (make bench) it runs the benchmarks of the .kbench
 * section instead, and the tests not at all.
 */
#include "ktest.h"
#include "ktest_runner.h"
#include "section.h"
#include "user/user.h"
#include <stdlib.h>

#define MAX_FILTER 256

extern const struct ktest __ktest_start[], __ktest_end[];
extern const struct ktest __kbench_start[], __kbench_end[];

static char filter[MAX_FILTER];
KPARAM_STRING("ktest.filter", filter);
/* Runs this one expect-panic/expect-warning test (tools/run.py boots it alone). */
static char isolated[MAX_FILTER];
KPARAM_STRING("ktest.isolated", isolated);
/*
 * ktest.cpus=N among an isolated test's words: tools/run.py boots it with
 * N CPUs instead of 2.  The kernel only takes the word (the test checks
 * num_online_cpus() itself).
 */
static int isolated_cpus = 2;
KPARAM_INT("ktest.cpus", isolated_cpus, 1, NR_CPUS);
/* bench.run=1: the benchmarks (tests/bench/) instead of the tests. */
static bool bench_run;
KPARAM_BOOL("bench.run", bench_run);

/* The section ktest_run_all() runs: the tests, or with bench.run=1 the benchmarks. */
static const struct ktest *section_start(void)
{
	return bench_run ? __kbench_start : __ktest_start;
}

static const struct ktest *section_end(void)
{
	return bench_run ? __kbench_end : __ktest_end;
}

/* The running test's outcome: checks from any CPU land here. */
static atomic_t failed_checks;
static bool skipped;
static char skip_reason[128];

bool ktest_requested(void)
{
	return filter[0] != '\0' || isolated[0] != '\0';
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

static const char *ktap_indent = "";	/* "    " for the monitor's nested runs */

const char *ktest_indent(void)
{
	return ktap_indent;
}

bool ktest_type_on_console(const char *text)
{
	char esc[4 * KTEST_TYPE_MAX + 1];
	size_t n = 0;

	if (!ktest_requested() || ktap_indent[0])
		return false;	/* from the monitor: a person is at the terminal, no runner */
	for (const char *p = text; *p && n + 4 < sizeof(esc); p++) {
		unsigned char c = *p;

		if (c == '"' || c == '\\')
			n += snprintf(esc + n, sizeof(esc) - n, "\\%c", c);
		else if (c < ' ' || c >= 0x7f)
			n += snprintf(esc + n, sizeof(esc) - n, "\\x%02x", c);
		else
			esc[n++] = c;
	}
	esc[n] = '\0';
	printk("# ktest: type \"%s\"\n", esc);
	return true;
}

bool ktest_check(bool ok, const char *file, int line, const char *expr)
{
	if (!ok) {
		printk("%s# %s:%d: EXPECTATION FAILED: %s (CPU%d)\n", ktap_indent, file, line,
		       expr, smp_processor_id());
		atomic_inc(&failed_checks);
	}
	return ok;
}

bool ktest_check_eq(long long a, long long b, const char *file, int line,
		    const char *ea, const char *eb)
{
	if (a != b) {
		printk("%s# %s:%d: EXPECTATION FAILED: %s == %s\n%s#   %s is %lld (%#llx)\n"
		       "%s#   %s is %lld (%#llx)\n", ktap_indent, file, line, ea, eb,
		       ktap_indent, ea, a, (unsigned long long)a,
		       ktap_indent, eb, b, (unsigned long long)b);
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
static int select_tests(const struct ktest *start, const struct ktest *end, const char *glob,
			const struct ktest **out, bool isolated_ones)
{
	int n = 0;

	for (const struct ktest *t = start; t < end; t++)
		if (glob_match(glob, t->name) && (t->expect != KTEST_NORMAL) == isolated_ones)
			out[n++] = t;
	if (!isolated_ones && start == __ktest_start)
		n += usertest_select(glob, out + n);	/* tests/user/ programs */
	SORT_BY_FILE_AND_LINE(out, n, struct ktest);
	return n;
}

static bool inject_leak;	/* ktest.inject=leak: proves the leak check can fail */
KPARAM_FLAG("ktest.inject", "leak", inject_leak, "the runner leaks one object per test");

/* What a test could leak: kmalloc objects, and pages (stacks, page tables, user frames). */
struct mem_use {
	long objects;
	long pages;		/* in use */
};

/*
 * Memory in use once everything freed so far has settled: the reaper
 * has freed the dead user threads, and every callback queued so far has
 * run (memory a test frees with kfree_rcu() or call_rcu() counts as
 * freed).  TLB shootdowns end inside unmap: nothing waits for them.
 */
static void settled_mem_use(struct mem_use *m)
{
	user_settle();
	rcu_barrier();
	m->objects = kmalloc_live_objects();
	/* (less the trace's rings: made at the first trace, then kept for good) */
	m->pages = page_total_count() - page_free_count() - trace_ring_pages();
}

static void report_leak(const struct ktest *t, const char *what, long before, long after)
{
	long n = labs(after - before);

	printk("%s# ktest: %s: %ld %s%s %s (%ld in use before, %ld after)\n", ktap_indent,
	       t->name, n, what, n == 1 ? "" : "s",
	       after > before ? "leaked" : "freed that it did not allocate", before, after);
	atomic_inc(&failed_checks);
}

static void check_leaks(const struct ktest *t, const struct mem_use *before)
{
	struct mem_use after;

	if (inject_leak)
		kmalloc(24, GFP_KERNEL);	/* the fault: never freed */
	settled_mem_use(&after);
	if (after.objects != before->objects)
		report_leak(t, "kmalloc object", before->objects, after.objects);
	if (after.pages != before->pages)
		report_leak(t, "page", before->pages, after.pages);
}

static const struct ktest *running;

const struct ktest *ktest_running(void)
{
	return running;
}

static bool run_one(const struct ktest *t, int n)
{
	u64 t0 = ktime_get_ns();
	struct mem_use before;

	settled_mem_use(&before);
	atomic_set(&failed_checks, 0);
	skipped = false;
	printk("%s# ktest: running %s\n", ktap_indent, t->name);
	running = t;
	t->fn();
	running = NULL;
	check_leaks(t, &before);
	printk("%s# ktest: %s took %llu ms\n", ktap_indent, t->name,
	       (unsigned long long)((ktime_get_ns() - t0) / NSEC_PER_MSEC));
	if (skipped) {
		printk("%sok %d %s # SKIP %s\n", ktap_indent, n, t->name, skip_reason);
		return true;
	}
	if (atomic_read(&failed_checks)) {
		printk("%snot ok %d %s\n", ktap_indent, n, t->name);
		return false;
	}
	printk("%sok %d %s\n", ktap_indent, n, t->name);
	return true;
}

/* Runs tests[0..total-1], numbered from 1; returns how many failed. */
static int run_tests(const struct ktest **tests, int total)
{
	int failed = 0;

	for (int i = 0; i < total; i++)
		failed += !run_one(tests[i], i + 1);
	return failed;
}

static const char *const expect_names[] = { "normal", "panic", "warning" };

/* Lists the selected expect-panic/warning tests for tools/run.py to boot one by one. */
static int list_isolated(const struct ktest **tests)
{
	int n = select_tests(section_start(), section_end(), filter, tests, true);

	for (int i = 0; i < n; i++)
		printk("# ktest-isolated\t%s\t%s\t%s\t%s\n", tests[i]->name,
		       expect_names[tests[i]->expect], tests[i]->message, tests[i]->cmdline);
	return n;
}

/* The one test named by ktest.isolated, which should panic or warn. */
static void __noreturn run_isolated(void)
{
	for (const struct ktest *t = __ktest_start; t < __ktest_end; t++) {
		if (strcmp(t->name, isolated))
			continue;
		printk("KTAP version 1\n1..1\n");
		printk("# ktest: running %s (expects the %s \"%s\")\n", t->name,
		       expect_names[t->expect], t->message);
		t->fn();
		if (skipped) {
			printk("ok 1 %s # SKIP %s\n", t->name, skip_reason);
			arch_qemu_exit(QEMU_EXIT_PASS);
		}
		if (t->expect == KTEST_WARN && atomic_read(&failed_checks)) {
			printk("not ok 1 %s # checks failed after the warning\n", t->name);
			arch_qemu_exit(QEMU_EXIT_FAIL);
		}
		if (t->expect == KTEST_WARN) {
			printk("# ktest: %s went on after its warning\n", t->name);
			arch_qemu_exit(QEMU_EXIT_PASS);
		}
		printk("not ok 1 %s # the expected panic did not happen\n", t->name);
		arch_qemu_exit(QEMU_EXIT_FAIL);
	}
	printk("# ktest: no test is named '%s' (ktest.isolated)\n", isolated);
	arch_qemu_exit(QEMU_EXIT_FAIL);
}

void ktest_run_all(void)
{
	/* The ordinary tests, the user tests, then the isolated ones: disjoint. */
	size_t room = max(section_end() - section_start(), 1L) + usertest_max();
	const struct ktest **tests = kcalloc(room, sizeof(*tests), GFP_KERNEL);
	int total, failed, isolated_count;

	if (isolated[0])
		run_isolated();
	if (!tests)
		panic("ktest: no memory for the test list");
	total = select_tests(section_start(), section_end(), filter, tests, false);

	printk("KTAP version 1\n");
	printk("1..%d\n", total);
	isolated_count = list_isolated(tests + total);
	if (!total && isolated_count)
		arch_qemu_exit(QEMU_EXIT_PASS);	/* only isolated tests: the runner boots them */
	if (!total) {
		printk("# ktest: no test matches ktest.filter='%s' (%ld tests exist): "
		       "check the TESTS glob\n", filter, (long)(section_end() - section_start()));
		arch_qemu_exit(QEMU_EXIT_FAIL);
	}
	failed = run_tests(tests, total);
	printk("# ktest: %d passed, %d failed\n", total - failed, failed);
	arch_qemu_exit(failed ? QEMU_EXIT_FAIL : QEMU_EXIT_PASS);
}

/*
 * Runs the ordinary tests matching glob and comes back (the monitor's
 * `test GLOB`).  Returns how many failed, or -1 when none matched.
 */
int ktest_run_glob(const char *glob, int *passed)
{
	size_t room = max(__ktest_end - __ktest_start, 1L) + usertest_max();	/* kcalloc(0) would fail */
	const struct ktest **tests = kcalloc(room, sizeof(*tests), GFP_KERNEL);
	int total, failed;

	*passed = 0;
	if (!tests)
		return -1;
	total = select_tests(__ktest_start, __ktest_end, glob, tests, false);
	/* Nested in whatever run is going on: indented, as KTAP subtests are. */
	ktap_indent = "    ";
	printk("%sKTAP version 1\n%s1..%d\n", ktap_indent, ktap_indent, total);
	failed = run_tests(tests, total);
	*passed = total - failed;
	ktap_indent = "";
	kfree(tests);
	return total ? failed : -1;
}
