/*
 * What newlib's libc.a wants from whoever links it -- the kernel
 * (kernel/newlib_glue.c) and every user program (user/lib/) -- listed once.
 * Include after <sys/stat.h> and <stddef.h>.
 *
 * NEWLIB_STATIC_LOCKS(X): the locks newlib declares when built with
 * retargetable locking, X(name, recursive) each; the linker wants
 * `struct __lock __lock___NAME` for each one.
 *
 * NEWLIB_UNDERSCORED(X): aarch64-elf newlib calls the underscored names
 * of its system calls, x86_64-elf newlib the plain ones; X(type, name,
 * parameters, arguments) each, for defining one as the other.
 */
#ifndef LIB_NEWLIB_NAMES_H
#define LIB_NEWLIB_NAMES_H

#define NEWLIB_STATIC_LOCKS(X)						\
	X(sinit_recursive_mutex, true)					\
	X(sfp_recursive_mutex, true)					\
	X(atexit_recursive_mutex, true)					\
	X(at_quick_exit_mutex, false)					\
	X(malloc_recursive_mutex, true)					\
	X(env_recursive_mutex, true)					\
	X(tz_mutex, false)						\
	X(dd_hash_mutex, false)						\
	X(arc4random_mutex, false)

#define NEWLIB_UNDERSCORED(X)						\
	X(void *, sbrk, (ptrdiff_t incr), (incr))			\
	X(int, write, (int fd, const void *buf, size_t n), (fd, buf, n))	\
	X(int, read, (int fd, void *buf, size_t n), (fd, buf, n))	\
	X(int, close, (int fd), (fd))					\
	X(long, lseek, (int fd, long off, int whence), (fd, off, whence))	\
	X(int, isatty, (int fd), (fd))					\
	X(int, getpid, (void), ())					\
	X(int, fstat, (int fd, struct stat *st), (fd, st))		\
	X(int, kill, (int pid, int sig), (pid, sig))

/*
 * The ten __retarget_lock_* functions newlib calls, each one of the
 * caller's four: init(lock, recursive), close(lock), try(lock) (true if
 * taken), acquire(lock), release(lock).  A recursive lock and a plain one
 * differ only in what init() recorded.
 */
#define NEWLIB_RETARGET_LOCKS(init, close, try, acquire, release)	\
	void __retarget_lock_init(_LOCK_T *lock) { init(lock, false); }	\
	void __retarget_lock_init_recursive(_LOCK_T *lock) { init(lock, true); } \
	void __retarget_lock_close(_LOCK_T lock) { close(lock); }	\
	void __retarget_lock_close_recursive(_LOCK_T lock) { close(lock); } \
	void __retarget_lock_acquire(_LOCK_T lock) { acquire(lock); }	\
	void __retarget_lock_acquire_recursive(_LOCK_T lock) { acquire(lock); } \
	int __retarget_lock_try_acquire(_LOCK_T lock) { return try(lock); } \
	int __retarget_lock_try_acquire_recursive(_LOCK_T lock) { return try(lock); } \
	void __retarget_lock_release(_LOCK_T lock) { release(lock); }	\
	void __retarget_lock_release_recursive(_LOCK_T lock) { release(lock); }

/* X for NEWLIB_UNDERSCORED: the underscored name calls the plain one. */
#define NEWLIB_DEFINE_UNDERSCORED(type, name, params, args)		\
	type _##name params { return name args; }

#endif
