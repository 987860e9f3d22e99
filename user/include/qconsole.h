/*
 * The console server's protocol (user/console_server.c, docs/drivers.md),
 * and its client side (user/lib/console.c).  A client calls the server's
 * endpoint with CONSOLE_READ; the reply's label is how many bytes came
 * (1 to CONSOLE_READ_MAX: the call waits until something was typed), its
 * words the bytes.
 */
#ifndef QCONSOLE_H
#define QCONSOLE_H

#include <stddef.h>

#define CONSOLE_READ		1
#define CONSOLE_READ_MAX	(SYS_MSG_WORDS * sizeof(unsigned long))

/* Up to n bytes typed on the console, through the server at ep: how many, or a negative error. */
long q_console_read(int ep, void *buf, size_t n);
/* newlib's read() of standard input goes to the server at ep from now on. */
void q_console_attach(int ep);
extern int q_stdin_ep;		/* the attached server (-1: none; read() returns 0) */

#endif
