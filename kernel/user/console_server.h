/* Starting the console server (kernel/user/console_server.c). */
#ifndef KERNEL_USER_CONSOLE_SERVER_H
#define KERNEL_USER_CONSOLE_SERVER_H

#define CONSOLE_SERVER		"user/console_server"
#define CONSOLE_SERVER_EP	2	/* its slots (user/console_server.c) */
#define CONSOLE_SERVER_CONS	3

struct user_task;
struct kobject;

struct console_server {
	struct user_task *task;		/* each a reference, for whoever started it */
	struct kobject *ep;		/* the endpoint it serves */
	struct kobject *cons;		/* its console object */
};

/*
 * Lets the UART's line go and starts the server, through the boot space's
 * program capability: 0, or -ENODEV (input is polled), -ENOENT (no such
 * boot module), or the spawn's error (the line taken back).
 * console_server_put() drops the references.
 */
int console_server_start(struct console_server *cs);
void console_server_put(struct console_server *cs);
/* The boot starts it before the boot programs (make run) unless console.server=0, and publishes it. */
void console_server_boot(void);
/*
 * Programs started from now on get ep (NULL: none) in SYS_CAP_CONSOLE_SLOT:
 * their standard input and output go through that server.
 */
void console_server_publish(struct kobject *ep);
/* Is a server published (1) or not (0)? */
int console_server_published(void);
/*
 * user_spawn_program()'s, for every start (SYS_cap_spawn's too): the
 * published endpoint into t's SYS_CAP_CONSOLE_SLOT, if any.
 */
void console_server_give(struct user_task *t);

#endif
