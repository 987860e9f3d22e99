/*
 * The console server's protocol (user/console_server.c, docs/drivers.md),
 * and its client side (user/lib/console.c).  A client calls the server's
 * endpoint with CONSOLE_READ; the reply's label is how many bytes came
 * (1 to CONSOLE_READ_MAX: the call waits until something was typed), its
 * words the bytes.  CONSOLE_WRITE(n, tid) carries n bytes (at most
 * CONSOLE_READ_MAX) in its words, written by the client's thread tid; the
 * server gathers each writer's bytes apart -- the client by its badge,
 * the thread by tid (each thread has its own stdout: newlib's per-thread
 * state) -- and prints each line whole through the kernel's console
 * capability once its newline came.
 */
#ifndef QCONSOLE_H
#define QCONSOLE_H

#include <stddef.h>

#define CONSOLE_READ		1
#define CONSOLE_WRITE_OP	2
#define CONSOLE_HOLD		3	/* keys stay with the server for its clients */
#define CONSOLE_RELEASE		4	/* one holder fewer: with none, keys go to the kernel */
/* The label: the op, the count, the writing thread (its low 16 bits: only to tell writers apart). */
#define CONSOLE_WRITE(n, tid)	(CONSOLE_WRITE_OP | (n) << 8 | ((unsigned int)(tid) & 0xffff) << 16)
#define CONSOLE_OP(label)	((label) & 0xff)
#define CONSOLE_COUNT(label)	(((label) >> 8) & 0xff)
#define CONSOLE_WRITER(label)	(((label) >> 16) & 0xffff)
#define CONSOLE_READ_MAX	(SYS_MSG_WORDS * sizeof(unsigned long))

/* Up to n bytes typed on the console, through the server at ep: how many, or a negative error. */
long q_console_read(int ep, void *buf, size_t n);
/* n bytes to the console through the server at ep: n, or a negative error. */
long q_console_send(int ep, const void *buf, size_t n);
/* The server's: n bytes printed through the kernel's console capability, line by line whole. */
long q_console_lines(int cons, const void *buf, size_t n);
/* The server's: keys for the kernel's readers (the monitor), while nobody holds the console. */
long q_console_push(int cons, const void *buf, size_t n);
/*
 * newlib's read() of standard input, and write() of standard output and
 * error, go to the server at ep from now on, and the program holds the
 * console: typed keys wait for it rather than go to the kernel.
 * q_console_detach() lets go; so does the end of the thread that attached
 * (the server waits for it through a capability the hold sends along).
 */
int q_console_attach(int ep);
void q_console_detach(void);
extern int q_console_ep;		/* the server in use (-1: none; read() returns 0) */
/*
 * The runtime's, before main(): the server in SYS_CAP_CONSOLE_SLOT, if the
 * kernel put one there (it does while a console server serves: lib/ipc.h).
 * No hold yet: the first q_console_stdin() holds the console.
 */
void q_console_use_given(void);
/*
 * newlib's read(0) and write(1 or 2): through the server, else end of file
 * and the kernel's console.  The first read -- even of 0 bytes, which
 * returns at once -- holds the console until the reading thread ends.
 */
long q_console_stdin(void *buf, size_t n);
long q_console_stdout(const void *buf, size_t n);

#endif
