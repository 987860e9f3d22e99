/*
 * What newlib needs from the system, as system calls (lib/syscall.h): the
 * console for every file descriptor (through the console server when the
 * kernel gave us one or the program attached one: qconsole.h), a heap that grows by
 * mapping pages at its end, the clock, exit and abort.  x86_64-elf newlib calls the
 * plain names, aarch64-elf newlib the underscored ones: both are here.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include "runtime.h"
#include "newlib_names.h"
#include "qcap.h"
#include "qconsole.h"

#define PAGE_SIZE	4096UL

long syscall_errno(long ret)
{
	if (SYS_IS_ERROR(ret)) {
		errno = -ret;
		return -1;
	}
	return ret;
}

struct _reent *__getreent(void)
{
	return current_tls()->reent;
}

/* Standard output and error: through the console server if we have one (qconsole.h). */
int write(int fd, const void *buf, size_t n)
{
	if (fd == 1 || fd == 2)
		return syscall_errno(q_console_stdout(buf, n));
	return syscall_errno(q_console_write(buf, n));
}

/* Standard input comes from the console server (qconsole.h); without one, end of file. */
int read(int fd, void *buf, size_t n)
{
	if (fd != 0)
		return 0;
	return syscall_errno(q_console_stdin(buf, n));
}
int close(int fd) { (void)fd; return 0; }
long lseek(int fd, long off, int whence) { (void)fd; (void)off; (void)whence; return 0; }
int isatty(int fd) { (void)fd; return 1; }
int getpid(void) { return q_task_id(); }

int fstat(int fd, struct stat *st)
{
	(void)fd;
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFCHR;
	return 0;
}

/*
 * The heap: from USER_HEAP_BASE up, each growth mapped right at its end
 * (malloc calls this under its own lock).  Shrinking is not offered.
 */
static char *heap_end = (char *)USER_HEAP_BASE, *heap_mapped = (char *)USER_HEAP_BASE;

void *sbrk(ptrdiff_t incr)
{
	char *old = heap_end;

	if (incr < 0) {
		errno = EINVAL;
		return (void *)-1;
	}
	if (heap_end + incr > heap_mapped) {
		size_t len = ((heap_end + incr - heap_mapped) + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);

		if (SYS_IS_ERROR(q_map(heap_mapped, len, SYS_PROT_READ | SYS_PROT_WRITE))) {
			errno = ENOMEM;
			return (void *)-1;
		}
		heap_mapped += len;
	}
	heap_end += incr;
	return old;
}

int gettimeofday(struct timeval *tv, void *tz)
{
	uint64_t ns = q_clock_ns();

	(void)tz;
	tv->tv_sec = ns / 1000000000;
	tv->tv_usec = ns % 1000000000 / 1000;
	return 0;
}

/* clock(): the time since boot counts as the program's (the kernel keeps no CPU time per task). */
clock_t times(struct tms *buf)
{
	clock_t ticks = q_clock_ns() / (1000000000 / CLOCKS_PER_SEC);

	buf->tms_utime = ticks;
	buf->tms_stime = buf->tms_cutime = buf->tms_cstime = 0;
	return ticks;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (req->tv_sec < 0 || req->tv_nsec < 0 || req->tv_nsec >= 1000000000) {
		errno = EINVAL;
		return -1;
	}
	if (rem)
		rem->tv_sec = rem->tv_nsec = 0;
	return syscall_errno(q_sleep_ns((uint64_t)req->tv_sec * 1000000000 + req->tv_nsec));
}

int usleep(useconds_t us)
{
	return syscall_errno(q_sleep_ns((uint64_t)us * 1000));
}

unsigned int sleep(unsigned int seconds)
{
	q_sleep_ns((uint64_t)seconds * 1000000000);
	return 0;
}

/* Only abort() signals, and only itself: the task ends as killed by abort(). */
int kill(int pid, int sig)
{
	if (pid != q_task_id()) {
		errno = ESRCH;
		return -1;
	}
	if (sig == SIGABRT)
		q_syscall(SYS_abort, 0, 0, 0, 0, 0, 0);
	errno = EINVAL;
	return -1;
}

void _exit(int status)
{
	q_syscall(SYS_exit, status, 0, 0, 0, 0, 0);
	for (;;)
		;
}

/* aarch64-elf newlib calls the underscored names (lib/newlib_names.h). */
NEWLIB_UNDERSCORED(NEWLIB_DEFINE_UNDERSCORED)
int _gettimeofday(struct timeval *tv, void *tz) { return gettimeofday(tv, tz); }
clock_t _times(struct tms *buf) { return times(buf); }
