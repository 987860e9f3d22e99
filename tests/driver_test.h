/*
 * What the tests of drivers in user mode share (tests/irq_driver.c,
 * tests/console_server.c): waiting for a task, for a line to be held.
 */
#ifndef TESTS_DRIVER_TEST_H
#define TESTS_DRIVER_TEST_H

#include "ktest.h"
#include "irq.h"
#include "user/task.h"

#define WAIT_NS		ktest_budget_ns(60, 4)

/* Its exit status (-1: killed, or it did not end in time; -2: it never started). */
static inline int end_of(struct user_task *t)
{
	struct sys_exit_status st;
	int ret = -1;

	if (!t)
		return -2;
	if (!user_task_wait_timeout(t, WAIT_NS, &st))
		ret = st.killed ? -1 : st.status;
	else
		user_task_kill(t, SYS_KILLED_BY_KERNEL);
	user_task_wait_timeout(t, WAIT_NS, &st);
	user_task_put(t);
	return ret;
}

static inline int killed(struct user_task *t)
{
	user_task_kill(t, SYS_KILLED_BY_KERNEL);
	return end_of(t);
}

/*
 * The console's receive line, if the kernel's own handler holds it; -1 if
 * input is polled, or a driver holds it -- the boot's console server, when
 * tests run from make run's monitor (boot with console.server=0 for them).
 */
#define NOT_THE_KERNELS	"the console's input by interrupt, held by the kernel (console.server=0)"

static inline int kernel_console_line(void)
{
	return console_input_held() ? console_input_irq() : -1;
}

/* Waits until someone holds the line (held) or nobody does (!held). */
static inline bool wait_held(unsigned int line, bool held)
{
	u64 end = ktime_get_ns() + WAIT_NS;
	struct irq_stats st;

	while (irq_get_stats(line, &st) && st.held != held && ktime_get_ns() < end)
		msleep(5);
	return irq_get_stats(line, &st) && st.held == held;
}

#endif
