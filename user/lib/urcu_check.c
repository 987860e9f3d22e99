/*
 * The user-space RCU library's misuse reports and its fault injection
 * (urcu/urcu-common.h).  Each misuse is named as the kernel names its own
 * (kernel/sched.c's might_sleep_check(), kernel/rcu/: "BUG: ... inside
 * rcu_read_lock()"), then the handler runs: by default the task ends as
 * abort() ends it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "urcu_domain.h"
#include "runtime.h"

static void abort_on_misuse(const char *message)
{
	(void)message;
	abort();
}

static urcu_misuse_handler_t misuse_handler = abort_on_misuse;
static bool inject_no_wait;

urcu_misuse_handler_t urcu_set_misuse_handler(urcu_misuse_handler_t handler)
{
	urcu_misuse_handler_t old = misuse_handler;

	misuse_handler = handler ? handler : abort_on_misuse;
	return old;
}

const char *urcu_flavor_name(enum urcu_flavor f)
{
	return f == URCU_MEMB ? "memb" : "qsbr";
}

void urcu_misuse(enum urcu_flavor f, const char *fmt, ...)
{
	char message[256];
	va_list ap;
	int n;

	n = snprintf(message, sizeof(message), "urcu: BUG: ");
	va_start(ap, fmt);
	vsnprintf(message + n, sizeof(message) - n, fmt, ap);
	va_end(ap);
	/*
	 * Straight to the kernel's console, never through printf(): under make
	 * run stdout is an IPC to the console server, and a misuse found as a
	 * thread blocks (urcu_qsbr_block_begin()) would be found again by the
	 * report's own IPC, over and over until the stack ran out.
	 */
	q_console_printf("%s (%s flavor, thread %d)\n", message, urcu_flavor_name(f),
			 current_tls()->tid);
	misuse_handler(message);
}

void urcu_misuse_unregistered(enum urcu_flavor f, const char *call)
{
	if (urcu_reader_of(f))
		urcu_misuse(f, "%s in an offline thread (rcu_thread_online() first)", call);
	else
		urcu_misuse(f, "%s in a thread not registered (rcu_register_thread() first)", call);
}

void urcu_misuse_unbalanced(enum urcu_flavor f)
{
	if (urcu_reader_of(f))
		urcu_misuse(f, "rcu_read_unlock() without rcu_read_lock()");
	else
		urcu_misuse_unregistered(f, "rcu_read_unlock()");
}

/* q_thread_exit() (user/lib/thread.c): a thread must not leave registered. */
void urcu_check_thread_exit(void)
{
	for (int f = URCU_MEMB; f <= URCU_QSBR; f++)
		if (urcu_reader_of(f))
			urcu_misuse(f, "a thread exits registered (rcu_unregister_thread() first): "
				    "%s", f == URCU_QSBR ?
				    "every grace period would wait for it" : "its reader would leak");
}

int urcu_inject(const char *name)
{
	if (strcmp(name, "no_wait"))
		return -SYS_EINVAL;
	inject_no_wait = true;
	printf("urcu: FAULT INJECTION no_wait: synchronize_rcu() waits for nothing\n");
	return 0;
}

bool urcu_injected_no_wait(void)
{
	return inject_no_wait;
}
