/*
 * From _start (user/arch/ARCH/crt0.S) to main(): the first thread's block
 * (its newlib state is newlib's global one, so exit() flushes its stdout),
 * the console server the kernel gave us, the constructors, main, exit.
 */
#include <stdlib.h>
#include "runtime.h"
#include "qconsole.h"

int main(int argc, char **argv);
void __libc_init_array(void);

static struct user_tls first_thread;

void __user_start(int argc, char **argv) __attribute__((noreturn));

void __user_start(int argc, char **argv)
{
	first_thread.head.self = &first_thread.head;
	first_thread.reent = _GLOBAL_REENT;
	first_thread.tid = q_thread_id();
	q_syscall(SYS_set_tls, (long)&first_thread, 0, 0, 0, 0, 0);
	q_console_use_given();	/* standard input and output through the console server */
	__libc_init_array();
	exit(main(argc, argv));
}

/* newlib's __libc_init_array() calls these around the constructors: nothing to do. */
void _init(void) { }
void _fini(void) { }
