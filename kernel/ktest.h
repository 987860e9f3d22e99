/*
 * The in-kernel test interface.  A test file includes only this header,
 * which brings in the kernel's whole API, and writes:
 *
 *	KTEST(name) { KEXPECT(cond); KEXPECT_EQ(a, b); KASSERT(cond); }
 *
 * Any .c file in tests/ is linked into the kernel and its tests are found
 * through the .ktest section: there is no list to edit.  Results are
 * printed in KTAP version 1 on the serial console (kernel/ktest.c).
 *
 * The checks work anywhere while a test runs, also in helper functions and
 * in threads or interrupt handlers the test started on other CPUs: the
 * outcome belongs to the one test that is running.
 */
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include "kernel.h"
#include "cpu.h"		/* CPU hotplug: remove_cpu(), add_cpu() */
#include "workers.h"
#include "random.h"

enum ktest_expect {
	KTEST_NORMAL,		/* passes when no check failed */
	KTEST_PANIC,		/* passes when the kernel panics with `message` */
	KTEST_WARN,		/* passes when `message` is printed and the kernel goes on */
};

struct ktest {
	const char *name;
	void (*fn)(void);
	const char *file;
	int line;
	enum ktest_expect expect;
	const char *message;	/* KTEST_PANIC/KTEST_WARN: text the console must show */
	const char *cmdline;	/* extra command-line words for its own boot */
	const struct boot_module *user_module;	/* a user test: its program (kernel/user/usertest.c) */
};

struct boot_module;
/* The test running now (a user test's function finds its program there). */
const struct ktest *ktest_running(void);
/* kernel/user/usertest.c: the user tests matching glob, and how many there can be. */
int usertest_select(const char *glob, const struct ktest **out);
int usertest_max(void);
/* Kills the tasks test started that still run wait_ns after it ended: how many. */
struct user_task;
int usertest_end_left_behind(struct user_task *test, u64 wait_ns);

#define __KTEST_IN(sect, tname, kind, msg, words)			\
	static void ktest_fn_##tname(void);				\
	static const struct ktest ktest_desc_##tname			\
	__used __section(sect) __aligned(8) = {				\
		.name = #tname, .fn = ktest_fn_##tname, .file = __FILE__,	\
		.line = __LINE__, .expect = kind, .message = msg,	\
		.cmdline = words,					\
	};								\
	static void ktest_fn_##tname(void)
#define __KTEST(tname, kind, msg, words)				\
	__KTEST_IN(".ktest", tname, kind, msg, words)

#define KTEST(tname)	__KTEST(tname, KTEST_NORMAL, "", "")

/*
 * A benchmark (tests/bench/, make bench): written as a test, with the same
 * checks, but registered in a section of its own that the test runner
 * lists only when the command line says bench.run=1.
 */
#define KBENCH(tname)	__KTEST_IN(".kbench", tname, KTEST_NORMAL, "", "")

/*
 * A test whose success is a specific panic (or warning, after which the
 * kernel goes on).  tools/run.py boots each in a kernel of its own, at
 * SMP=2 (or N with the word ktest.cpus=N), with the optional extra
 * command-line words, and passes it only when the console shows `msg`
 * and QEMU ends with the panic code (the pass code for a warning):
 *
 *	KTEST_EXPECT_PANIC(sleep_in_reader, "BUG: Illegal context switch")
 *	{
 *		rcu_read_lock();
 *		schedule();
 *	}
 */
#define KTEST_EXPECT_PANIC(tname, msg, ...) \
	__KTEST(tname, KTEST_PANIC, msg, "" __VA_ARGS__)
#define KTEST_EXPECT_WARN(tname, msg, ...) \
	__KTEST(tname, KTEST_WARN, msg, "" __VA_ARGS__)

/*
 * The budget of a wait that only runs out when the kernel misbehaves:
 * base_s seconds and per_cpu_s more for each online CPU, since under TCG
 * every vCPU shares the host's few cores (64 vCPUs on 2 cores make every
 * cross-CPU wait tens of times slower).  Never a measure of speed.
 */
static inline u64 ktest_budget_ns(unsigned int base_s, unsigned int per_cpu_s)
{
	return ((u64)base_s + (u64)per_cpu_s * (u64)num_online_cpus()) * NSEC_PER_SEC;
}

/*
 * A function whose instructions a grade reads (lab publish: the AArch64
 * store that publishes, tools/labs/disasm.py): out of line, never cloned
 * or merged, so that it keeps its name and its whole body.
 */
#define KTEST_GRADED_SITE	__attribute__((noinline, noclone, no_icf, used))

/* Records a failed check (with a '# file:line: ...' line); returns ok. */
bool ktest_check(bool ok, const char *file, int line, const char *expr);
bool ktest_check_eq(long long a, long long b, const char *file, int line,
		    const char *ea, const char *eb);
void ktest_skip(const char *why);

/* On failure: a diagnostic, the test is marked failed, and it goes on. */
#define KEXPECT(cond)	((void)ktest_check(!!(cond), __FILE__, __LINE__, #cond))

/* Compares as long long and prints both values on failure. */
#define KEXPECT_EQ(a, b) \
	((void)ktest_check_eq((long long)(a), (long long)(b), __FILE__, __LINE__, #a, #b))

/*
 * KEXPECT with its lesson: on failure, first a '# ...' line saying what the
 * failure means (make grade shows it above the failed expectation).
 */
#define KEXPECT_WHY(cond, fmt, ...)					\
	do {								\
		bool __ok = !!(cond);					\
		if (!__ok)						\
			ktest_info(fmt, ##__VA_ARGS__);			\
		ktest_check(__ok, __FILE__, __LINE__, #cond);		\
	} while (0)

/* Like KEXPECT, then returns from the (void) test function. */
#define KASSERT(cond)							\
	do {								\
		if (!ktest_check(!!(cond), __FILE__, __LINE__, #cond))	\
			return;						\
	} while (0)

#define KASSERT_EQ(a, b)						\
	do {								\
		if (!ktest_check_eq((long long)(a), (long long)(b),	\
				    __FILE__, __LINE__, #a, #b))	\
			return;						\
	} while (0)

/* Marks the test skipped ('ok N name # SKIP why') and returns. */
#define KTEST_SKIP(why)		do { ktest_skip(why); return; } while (0)

/*
 * Asks for text on the serial console's input: tools/run.py types it
 * into QEMU's serial line when it sees this cue, a diagnostic line
 * `# ktest: type "..."` (C escapes: \\, \", \xHH; at most
 * KTEST_TYPE_MAX characters).  False when no runner is there to type it:
 * a test run from the monitor (skip then).  The characters may take a
 * while: wait for them with a ktest_budget_ns() limit.
 */
#define KTEST_TYPE_MAX	64
bool ktest_type_on_console(const char *text);

/*
 * Prints a '# ...' diagnostic line belonging to the running test, indented
 * as its result line is: ktest_indent() is "" in a run of its own and
 * "    " when nested in the monitor's `test GLOB`.
 */
const char *ktest_indent(void);
#define ktest_info(fmt, ...)	printk("%s# " fmt "\n", ktest_indent(), ##__VA_ARGS__)

#endif
