/*
 * The console's input served from user mode (user/console_server.c,
 * docs/drivers.md): the kernel lets the UART's receive line go, starts
 * the console server with the line, the UART's registers and an endpoint,
 * and starts tests/user/helpers/console_reader with the same endpoint;
 * the runner types a line on the serial console, the server's driver
 * thread reads it from the UART, and the reader gets it from newlib's
 * fgets() on standard input, by IPC.  The reader's printf() goes back
 * the same way: the server prints the line through its console
 * capability, whole.
 */
#include <errno.h>
#include "ktest.h"
#include "irq.h"
#include "object/cap.h"
#include "object/device.h"
#include "object/interrupt.h"
#include "object/console.h"
#include "user/module.h"
#include "driver_test.h"

#define SERVER		"user/console_server"
#define READER		"tests/user/helpers/console_reader"
#define LINE		"hello-console"
#define EP_SLOT		2	/* the server's endpoint (console_server.c) */
#define CONS_SLOT	3	/* its console capability */
#define ECHOED		"# console_reader: read '" LINE "'\n"	/* the reader's printf(), as printed */

struct console_setup {
	unsigned int line;
	struct kobject *ep;	/* the server's endpoint, for the reader (a reference) */
	struct kobject *cons;	/* its console capability's object (a reference) */
};

/* The server's slots: 0 the line, 1 the UART's registers, 2 a new endpoint, 3 the console. */
static int setup_server(struct user_task *t, void *arg)
{
	struct console_setup *cs = arg;
	struct device_regs regs;
	struct cap_ref ref;
	int s;

	arch_console_regs(&regs);
	s = interrupt_cap_grant(t->cspace, 0, cs->line);
	if (s >= 0)
		s = device_cap_grant(t->cspace, 1, &regs);
	if (s >= 0)
		s = cap_create(t->cspace, KOBJ_ENDPOINT, EP_SLOT, 0);
	if (s >= 0)
		s = console_cap_grant(t->cspace, CONS_SLOT);
	if (s >= 0)
		s = cap_lookup(t->cspace, CONS_SLOT, KOBJ_CONSOLE, 0, &ref);
	if (s < 0)
		return s;
	cs->cons = ref.obj;
	s = cap_lookup(t->cspace, EP_SLOT, KOBJ_ENDPOINT, 0, &ref);
	if (s < 0)
		return s;
	cs->ep = ref.obj;
	return 0;
}

/* The reader's slot 0: the server's endpoint, to call (no right to receive on it). */
static int setup_reader(struct user_task *t, void *arg)
{
	struct console_setup *cs = arg;
	int s = cap_insert_object(t->cspace, 0, cs->ep, SYS_CAP_WRITE);

	return s < 0 ? s : 0;
}

static char said[8192];

KTEST(console_server_serves_a_typed_line_to_a_program)
{
	struct console_setup cs = { .line = console_input_irq() };
	struct user_task *server, *reader = NULL;
	int err;

	if (console_input_irq() < 0 || !boot_module_find(SERVER) || !boot_module_find(READER))
		KTEST_SKIP("needs " SERVER ", " READER " and the console's input by interrupt");
	console_input_release();
	server = user_spawn_with(SERVER, NULL, &err, setup_server, &cs);
	KEXPECT(server);
	if (server && wait_held(cs.line, true))
		reader = user_spawn_with(READER " " LINE, NULL, &err, setup_reader, &cs);
	KEXPECT(reader);
	if (reader) {
		console_capture(said, sizeof(said));
		if (!ktest_type_on_console(LINE "\n")) {
			killed(reader);
			reader = NULL;
			ktest_info("nobody types on the serial line (run from the monitor)");
		}
		KEXPECT_EQ(end_of(reader), 0);
		console_capture(NULL, 0);
		/* Its printf() came back through the server's console capability, whole. */
		KEXPECT(strstr(said, ECHOED));
		KEXPECT(cs.cons && console_obj_lines(cs.cons) >= 1);
	}
	if (server)
		killed(server);
	if (cs.ep)
		kobject_put(cs.ep);
	if (cs.cons)
		kobject_put(cs.cons);
	KEXPECT(wait_held(cs.line, false));
	KEXPECT_EQ(console_input_reclaim(), 0);
}
