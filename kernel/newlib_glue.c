/*
 * The few system calls newlib's libc.a needs, backed by the kernel:
 * write() goes to the console, the heap (sbrk) is a fixed static arena
 * (newlib only mallocs for number conversion), and exit or abort panics.
 * On aarch64-elf newlib calls the underscored names; both are provided.
 */
#include <sys/stat.h>
#include <errno.h>
#include "kernel.h"

#define NEWLIB_HEAP_SIZE	(1 << 20)

static char newlib_heap[NEWLIB_HEAP_SIZE] __aligned(16);
static size_t newlib_heap_used;
static DEFINE_SPINLOCK(sbrk_lock);

void *sbrk(ptrdiff_t incr)
{
	unsigned long flags;
	void *p = (void *)-1;

	spin_lock_irqsave(&sbrk_lock, flags);
	if (incr >= 0 && newlib_heap_used + incr <= NEWLIB_HEAP_SIZE) {
		p = newlib_heap + newlib_heap_used;
		newlib_heap_used += incr;
	}
	spin_unlock_irqrestore(&sbrk_lock, flags);
	if (p == (void *)-1)
		errno = ENOMEM;
	return p;
}

int write(int fd, const void *buf, size_t n)
{
	(void)fd;
	printk("%.*s", (int)n, (const char *)buf);
	return n;
}

int read(int fd, void *buf, size_t n) { (void)fd; (void)buf; (void)n; return 0; }
int close(int fd) { (void)fd; return -1; }
long lseek(int fd, long off, int whence) { (void)fd; (void)off; (void)whence; return 0; }
int isatty(int fd) { (void)fd; return 1; }
int getpid(void) { return 1; }

int fstat(int fd, struct stat *st)
{
	(void)fd;
	memset(st, 0, sizeof(*st));
	st->st_mode = S_IFCHR;
	return 0;
}

int kill(int pid, int sig)
{
	(void)pid;
	panic("newlib raised signal %d (abort?)", sig);
}

void _exit(int status)
{
	panic("newlib called exit(%d)", status);
}

/* aarch64-elf newlib calls these names. */
void *_sbrk(ptrdiff_t incr) { return sbrk(incr); }
int _write(int fd, const void *buf, size_t n) { return write(fd, buf, n); }
int _read(int fd, void *buf, size_t n) { return read(fd, buf, n); }
int _close(int fd) { return close(fd); }
long _lseek(int fd, long off, int whence) { return lseek(fd, off, whence); }
int _isatty(int fd) { return isatty(fd); }
int _getpid(void) { return getpid(); }
int _fstat(int fd, struct stat *st) { return fstat(fd, st); }
int _kill(int pid, int sig) { return kill(pid, sig); }
