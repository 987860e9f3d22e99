/*
 * The narrated demos: the article "What is RCU, Fundamentally?" played on
 * the serial console, with real readers on the other CPUs.
 *
 * A demo is a function registered in the .demo section (no list to edit):
 *
 *	DEMO(deletion, "Example 1: multiple versions during deletion")
 *	{
 *		demo_step("list_del_rcu(): two versions of the list");
 *		demo_say("readers that had %s still see it", "5,6,7");
 *		...
 *	}
 *
 * Demos play in the order of their file name, then of their line, so the
 * files of kernel/demo/ carry a number in the article's order.  The
 * helpers below print (and record, for tests) everything a demo says;
 * demo_step() also waits for Enter when the console is a terminal
 * (demo.pace, demo.tty on the command line; docs/demo.md).
 */
#ifndef KERNEL_DEMO_H
#define KERNEL_DEMO_H

#include "kernel.h"
#include "workers.h"
#include "random.h"

struct demo {
	const char *name;
	const char *title;
	void (*fn)(void);
	const char *file;
	int line;
};

#define DEMO(dname, dtitle)						\
	static void demo_fn_##dname(void);				\
	static const struct demo demo_desc_##dname			\
	__used __section(".demo") __aligned(8) = {			\
		.name = #dname, .title = dtitle, .fn = demo_fn_##dname,	\
		.file = __FILE__, .line = __LINE__,			\
	};								\
	static void demo_fn_##dname(void)

/* The registered demos in playing order (i from 0 to demo_count() - 1). */
int demo_count(void);
const struct demo *demo_get(int i);
const struct demo *demo_find(const char *name);
/* Prints "  name  title" for each demo. */
void demo_list(void);

/*
 * Plays one demo: a banner, the demo, then "demo NAME: done" or
 * "demo NAME: FAILED".  False when the demo called demo_fail() or left
 * memory allocated behind it.
 */
bool demo_run(const struct demo *d);
/* Plays every demo in order; returns how many failed. */
int demo_run_all(void);
/* demo=NAME and nothing else (make run DEMO=NAME). */
bool demo_only(const char *name);
/* The boot path: demo=NAME / list / none, then the monitor or the exit. */
void demo_boot(void) __attribute__((noreturn));

/*
 * Pacing: DEMO_PACE_ENTER waits for Enter at each step, 0 never waits,
 * a positive value pauses that many milliseconds.  Both setters return the
 * previous value (tests play the demos with pace 0 and colour off).
 */
#define DEMO_PACE_ENTER	(-1)
int demo_set_pace(int pace);
bool demo_set_color(bool on);
bool demo_color_on(void);
/* demo.tty=1: the runner saw a terminal on its stdin. */
bool demo_tty(void);

/* A step: a heading, then a pause as demo.pace says. */
void demo_step(const char *fmt, ...) __printf(1, 2);
/*
 * A step heading that never pauses, for a step that must follow the one
 * before at once: while a reader holds an element, a pause would let it
 * leave (or, held past the stall timeout, trigger a stall warning), and the
 * grace period would have nobody to wait for.  Pause before the reader
 * takes the element instead.
 */
void demo_step_nopause(const char *fmt, ...) __printf(1, 2);
/* Narration, indented under the step (a newline is added). */
void demo_say(const char *fmt, ...) __printf(1, 2);
/* Code or a figure, printed as it is, further indented. */
void demo_code(const char *text);
/* Marks the running demo failed, with the reason. */
void demo_fail(const char *fmt, ...) __printf(1, 2);

/* ANSI colours, or "" when colour is off. */
enum demo_color { DC_RESET, DC_RED, DC_GREEN, DC_YELLOW, DC_BLUE, DC_BOLD, DC_DIM };
const char *demo_color(enum demo_color c);

/*
 * An element as the article draws it: "a,b,c".  held: readers may still
 * hold a reference (the article's red border): red with colour on,
 * "[a,b,c]*" with colour off.  Appends to buf at *len.
 */
void demo_fmt_elem(char *buf, size_t size, size_t *len, int a, int b, int c, bool held);
/* Appends printf-style text to buf at *len (never overflows). */
void demo_fmt(char *buf, size_t size, size_t *len, const char *fmt, ...) __printf(4, 5);

/* Sleeps until *flag is true or ms pass; returns *flag. */
bool demo_wait_for(const bool *flag, unsigned int ms);

#endif
