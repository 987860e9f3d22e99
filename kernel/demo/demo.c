/*
 * The demo player: finds the demos in the .demo section, plays them in
 * order, paces them, colours them, and records what they say.
 *
 * Command line (tools/run.py and the Makefile's run target set these):
 *   demo=NAME[,NAME...]  play these demos only; demo=list lists them and
 *                        exits; demo=none goes straight to the monitor
 *   demo.tty=1           the runner's stdin is a terminal: pause for
 *                        Enter between steps, colour on, monitor at the end
 *   demo.pace=enter|0|MS wait for Enter / never wait / pause MS ms
 *   demo.color=0|1       ANSI colour off/on (default: on with a terminal)
 */
#include <stdlib.h>
#include "demo.h"
#include "monitor.h"
#include "section.h"

#define MAX_DEMOS	64
#define DEMO_LINE	640

extern const struct demo __demo_start[], __demo_end[];

static char demo_names[128];
KPARAM_STRING("demo", demo_names);
static int tty_param;
KPARAM_INT("demo.tty", tty_param, 0, 1);
static int color_param = -1;		/* -1: on when a terminal is attached */
KPARAM_INT("demo.color", color_param, -1, 1);

#define DEMO_PACE_UNSET	(-2)		/* no demo.pace=: demo.tty decides */
static int pace = DEMO_PACE_UNSET;

static bool pace_set(const struct kparam *p, const char *val)
{
	char *end;
	long v;

	(void)p;
	if (!strcmp(val, "enter")) {
		pace = DEMO_PACE_ENTER;
		return true;
	}
	v = strtol(val, &end, 10);
	if (!*val || *end || v < 0 || v > 600000)
		return false;
	pace = (int)v;
	return true;
}
KPARAM_CALL("demo.pace", pace_set, "enter, 0 or a pause in milliseconds");

/* The running demo, for demo_fail(). */
static const struct demo *running;
static bool running_failed;
static bool run_to_end;			/* 'c' at a pause: no more pauses */


/* ------------------------------------------------------------------ */
/* Options                                                             */
/* ------------------------------------------------------------------ */

bool demo_tty(void)
{
	return tty_param == 1;
}

static int effective_pace(void)
{
	if (pace == DEMO_PACE_UNSET)
		return demo_tty() ? DEMO_PACE_ENTER : 0;
	if (pace == DEMO_PACE_ENTER && !demo_tty())
		return 0;	/* nobody can press Enter: never wait forever */
	return pace;
}

int demo_set_pace(int p)
{
	int old = pace;

	pace = p;
	return old;
}

bool demo_color_on(void)
{
	return color_param == 1 || (color_param == -1 && demo_tty());
}

bool demo_set_color(bool on)
{
	bool old = demo_color_on();

	color_param = on ? 1 : 0;
	return old;
}

const char *demo_color(enum demo_color c)
{
	static const char *const codes[] = {
		[DC_RESET] = "\033[0m", [DC_RED] = "\033[1;31m", [DC_GREEN] = "\033[32m",
		[DC_YELLOW] = "\033[33m", [DC_BLUE] = "\033[1;34m", [DC_BOLD] = "\033[1m",
		[DC_DIM] = "\033[2m",
	};

	return demo_color_on() ? codes[c] : "";
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

static void emit(const char *s)
{
	printk("%s", s);
}

void demo_fmt(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len + 1 >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = min(*len + (size_t)n, size - 1);
}

void demo_fmt_elem(char *buf, size_t size, size_t *len, int a, int b, int c, bool held)
{
	if (!held)
		demo_fmt(buf, size, len, "%d,%d,%d", a, b, c);
	else if (demo_color_on())
		demo_fmt(buf, size, len, "%s%d,%d,%d%s", demo_color(DC_RED), a, b, c,
			 demo_color(DC_RESET));
	else
		demo_fmt(buf, size, len, "[%d,%d,%d]*", a, b, c);
}

static void vsay(const char *prefix, const char *fmt, va_list ap)
{
	char line[DEMO_LINE];
	size_t len = 0;
	int n;

	demo_fmt(line, sizeof(line), &len, "%s", prefix);
	n = vsnprintf(line + len, sizeof(line) - len - 1, fmt, ap);
	if (n > 0)
		len = min(len + (size_t)n, sizeof(line) - 2);
	line[len++] = '\n';
	line[len] = '\0';
	emit(line);
}

void demo_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay("  ", fmt, ap);
	va_end(ap);
}

void demo_code(const char *text)
{
	char line[DEMO_LINE];

	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text);
		size_t len = 0;

		if (n)
			demo_fmt(line, sizeof(line), &len, "      %s%.*s%s\n", demo_color(DC_BLUE),
				 (int)n, text, demo_color(DC_RESET));
		else
			demo_fmt(line, sizeof(line), &len, "\n");
		emit(line);
		text += n + (nl ? 1 : 0);
	}
}

void demo_fail(const char *fmt, ...)
{
	char prefix[96];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "%sdemo %s: FAILED: ", demo_color(DC_RED),
		 running ? running->name : "?");
	running_failed = true;
	va_start(ap, fmt);
	vsay(prefix, fmt, ap);
	va_end(ap);
	if (demo_color_on())
		emit(demo_color(DC_RESET));
}

/* Waits for Enter ('c': no more pauses); other keys are ignored. */
static void wait_for_enter(void)
{
	emit(demo_color_on() ? "\033[2m  [Enter: next step, c: run to the end]\033[0m"
			     : "  [Enter: next step, c: run to the end]");
	for (;;) {
		int ch = console_getc();

		if (ch == '\r' || ch == '\n')
			break;
		if (ch == 'c' || ch == 'C') {
			run_to_end = true;
			break;
		}
		if (ch < 0)
			msleep(20);
	}
	printk(demo_color_on() ? "\r\033[K" : "\n");
}

static void vheading(const char *fmt, va_list ap)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "\n%s* ", demo_color(DC_BOLD));
	vsay(prefix, fmt, ap);
	if (demo_color_on())
		emit(demo_color(DC_RESET));
}

void demo_step_nopause(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vheading(fmt, ap);
	va_end(ap);
}

void demo_step(const char *fmt, ...)
{
	va_list ap;
	int p = effective_pace();

	va_start(ap, fmt);
	vheading(fmt, ap);
	va_end(ap);
	if (p == DEMO_PACE_ENTER && !run_to_end)
		wait_for_enter();
	else if (p > 0 && !run_to_end)
		msleep(p);
}

/* ------------------------------------------------------------------ */
/* Readers                                                             */
/* ------------------------------------------------------------------ */

bool demo_wait_for(const bool *flag, unsigned int ms)
{
	u64 end = ktime_get_ns() + (u64)ms * NSEC_PER_MSEC;

	while (!READ_ONCE(*flag) && ktime_get_ns() < end)
		msleep(1);
	/*
	 * [demo_wait_acquire] pairs [holding_release], [view_ready_release],
	 * [nest_holding_release], [nest_inner_done_release],
	 * [irqr_holding_release], [irqr_released_release]:
	 * the flag's setter wrote what it announces (a reader's view of the
	 * list) before it; without the acquire we could print an old view.
	 */
	return smp_load_acquire(flag);
}

/* ------------------------------------------------------------------ */
/* The registry                                                        */
/* ------------------------------------------------------------------ */

static const struct demo *sorted[MAX_DEMOS];
static int nr_sorted = -1;

/* In file order, then line order. */
static void sort_demos(void)
{
	int n = 0;

	if (nr_sorted >= 0)
		return;
	for (const struct demo *d = __demo_start; d < __demo_end && n < MAX_DEMOS; d++)
		sorted[n++] = d;
	SORT_BY_FILE_AND_LINE(sorted, n, struct demo);
	nr_sorted = n;
}

int demo_count(void)
{
	sort_demos();
	return nr_sorted;
}

const struct demo *demo_get(int i)
{
	sort_demos();
	return i >= 0 && i < nr_sorted ? sorted[i] : NULL;
}

const struct demo *demo_find(const char *name)
{
	sort_demos();
	for (int i = 0; i < nr_sorted; i++)
		if (!strcmp(sorted[i]->name, name))
			return sorted[i];
	return NULL;
}

void demo_list(void)
{
	char line[DEMO_LINE];

	sort_demos();
	for (int i = 0; i < nr_sorted; i++) {
		size_t len = 0;

		demo_fmt(line, sizeof(line), &len, "  %-14s %s\n", sorted[i]->name,
			 sorted[i]->title);
		emit(line);
	}
}

bool demo_run(const struct demo *d)
{
	char line[DEMO_LINE];
	size_t len = 0;
	long live;
	u64 t0;
	int nr = 0;

	sort_demos();
	while (nr < nr_sorted && sorted[nr] != d)
		nr++;
	might_sleep_check("demo_run");
	rcu_barrier();			/* earlier callbacks do not count against us */
	live = kmalloc_live_objects();
	running = d;
	running_failed = false;
	demo_fmt(line, sizeof(line), &len, "\n%s==== Demo %d/%d: %s -- %s ====%s\n",
		 demo_color(DC_BOLD), nr + 1, nr_sorted, d->name, d->title,
		 demo_color(DC_RESET));
	emit(line);
	t0 = ktime_get_ns();
	d->fn();
	rcu_barrier();			/* its kfree_rcu()s have run */
	if (kmalloc_live_objects() != live)
		demo_fail("%ld objects allocated by the demo were not freed",
			  kmalloc_live_objects() - live);
	len = 0;
	demo_fmt(line, sizeof(line), &len, "%sdemo %s: %s (%llu ms)%s\n",
		 demo_color(running_failed ? DC_RED : DC_GREEN), d->name,
		 running_failed ? "FAILED" : "done",
		 (unsigned long long)((ktime_get_ns() - t0) / NSEC_PER_MSEC),
		 demo_color(DC_RESET));
	emit(line);
	running = NULL;
	return !running_failed;
}

int demo_run_all(void)
{
	int failed = 0;

	sort_demos();
	for (int i = 0; i < nr_sorted; i++)
		failed += !demo_run(sorted[i]);
	return failed;
}

/* Checks every name of "a,b,c" first: a typo should not cost a whole demo. */
static bool names_known(const char *names)
{
	char name[64];

	for (const char *p = names; *p; ) {
		size_t n = strcspn(p, ",");

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (n && !demo_find(name)) {
			printk("\ndemo: there is no demo named '%s'. The demos are:\n", name);
			demo_list();
			printk("Try: make run DEMO=deletion (or DEMO=list)\n");
			return false;
		}
		p += n + (p[n] == ',');
	}
	return true;
}

/* Plays the demos named in "a,b,c"; returns how many failed. */
static int run_named(const char *names)
{
	char name[64];
	int failed = 0;

	for (const char *p = names; *p; ) {
		size_t n = strcspn(p, ",");

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		if (n)
			failed += !demo_run(demo_find(name));
		p += n + (p[n] == ',');
	}
	return failed;
}

bool demo_only(const char *name)
{
	return !strcmp(demo_names, name);
}

void demo_boot(void)
{
	bool all = !demo_names[0] || !strcmp(demo_names, "all");
	bool none = !strcmp(demo_names, "none");
	int failed = 0;

	if (!strcmp(demo_names, "list")) {
		printk("\nThe demos (make run DEMO=name plays one):\n");
		demo_list();
		arch_qemu_exit(QEMU_EXIT_PASS);
	}
	if (!all && !none && !names_known(demo_names))
		arch_qemu_exit(QEMU_EXIT_FAIL);
	printk("\n%sWhat is RCU, Fundamentally? -- played on %d CPUs%s\n",
	       demo_color(DC_BOLD), num_online_cpus(), demo_color(DC_RESET));
	if (effective_pace() == DEMO_PACE_ENTER)
		printk("The demo waits for Enter at each step ('c' runs to the end; "
		       "DEMO_PACE=0 never waits).\n");
	else if (effective_pace() > 0)
		printk("The demo pauses %d ms at each step (demo.pace).\n", effective_pace());
	if (all)
		failed = demo_run_all();
	else if (!none)
		failed = run_named(demo_names);
	if (failed)
		printk("\n%d demo%s FAILED\n", failed, failed == 1 ? "" : "s");
	if (demo_tty())
		monitor_run();
	if (all)
		printk("\nThat was the article, played on %d CPUs.", num_online_cpus());
	else if (!none)
		printk("\nThat was %s, played on %d CPUs (make run without DEMO plays the whole "
		       "article).", demo_names, num_online_cpus());
	printk("  With a terminal attached, make run ends at a monitor prompt (docs/demo.md). "
	       "Bye.\n");
	arch_qemu_exit(failed ? QEMU_EXIT_FAIL : QEMU_EXIT_PASS);
}
