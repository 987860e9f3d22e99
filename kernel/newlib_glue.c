/*
 * What newlib's libc.a needs from the kernel: its system calls, its
 * reentrancy structures and its locks.
 *
 * System calls: write() goes to the console, the heap (sbrk) is a fixed
 * static arena (newlib only mallocs for number conversion), and exit or
 * abort panics.  On aarch64-elf newlib calls the underscored names; both
 * are provided.
 */
#include <sys/stat.h>
#include <sys/lock.h>
#include <reent.h>
#include <errno.h>
#include "kernel.h"
#include "newlib_names.h"

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

/* All of it, in one piece on the console (printk would cut it at 1 KiB). */
int write(int fd, const void *buf, size_t n)
{
	(void)fd;
	console_write(buf, n);
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

/* aarch64-elf newlib calls the underscored names (lib/newlib_names.h). */
NEWLIB_UNDERSCORED(NEWLIB_DEFINE_UNDERSCORED)

/*
 * Reentrancy structures.  newlib keeps errno, the scratch of its number
 * conversions (dtoa's big integers and their free lists) and more in a
 * struct _reent.  Built with __DYNAMIC_REENT__ (Makefile), it asks
 * __getreent() for the current one each time.  Each CPU has one for each
 * context that can run there: task code, an interrupt handler, an NMI.
 * Neither another CPU nor an interrupt of the code using one can touch
 * it: interrupt handlers do not nest, and a task never switches inside
 * newlib (nothing there sleeps).
 */
enum newlib_context { CTX_TASK, CTX_IRQ, CTX_NMI, NR_CONTEXTS };

static struct _reent reents[NR_CPUS][NR_CONTEXTS];
static bool reent_ready[NR_CPUS][NR_CONTEXTS];

struct _reent *__getreent(void)
{
	struct cpu *c = this_cpu();
	enum newlib_context ctx = c->in_nmi ? CTX_NMI : c->irq_depth ? CTX_IRQ : CTX_TASK;
	struct _reent *r = &reents[c->id][ctx];

	if (unlikely(!reent_ready[c->id][ctx])) {
		_REENT_INIT_PTR(r);
		reent_ready[c->id][ctx] = true;
	}
	return r;
}

/*
 * newlib's locks (its malloc's among them), built with retargetable
 * locking: newlib declares them and we define them all, static and
 * dynamic.  Each is a lock with an owner and a depth, because newlib
 * takes its malloc lock recursively (the kernel's spinlock panics on
 * recursion).  Interrupts stay off while a CPU holds one, so an interrupt
 * handler on that CPU cannot ask for it and spin forever.  An NMI cannot
 * be held off that way: NMI context must never take one (printk's
 * integer and string formats in a backtrace do not).
 */
struct __lock {
	int owner;		/* the CPU holding it, or -1 */
	int depth;		/* how many times the owner took it */
	bool recursive;		/* may the owner take it again? */
	unsigned long flags;	/* the owner's interrupt state before it took it */
};

#define NEWLIB_LOCK(name, rec) struct __lock __lock___##name = { .owner = -1, .recursive = rec };
NEWLIB_STATIC_LOCKS(NEWLIB_LOCK)

static void lock_init(_LOCK_T *lock, bool recursive)
{
	struct __lock *l = kzalloc(sizeof(*l), GFP_KERNEL);

	if (!l)
		panic("newlib: no memory for a lock");
	l->owner = -1;
	l->recursive = recursive;
	*lock = l;
}

static void lock_close(struct __lock *l)
{
	kfree(l);
}

/* Takes l if it is free or ours (then one level deeper); false if another CPU holds it. */
static bool lock_try(struct __lock *l)
{
	unsigned long flags;
	int me, nobody = -1;

	if (this_cpu()->in_nmi)
		panic("BUG: newlib lock taken in NMI context: it may be held by the code the NMI interrupted");
	flags = arch_irq_save();
	me = smp_processor_id();
	if (READ_ONCE(l->owner) == me) {	/* only this CPU sets it to us */
		if (!l->recursive)
			panic("BUG: newlib lock recursion on CPU%d (a non-recursive lock)", me);
		l->depth++;
		return true;			/* interrupts were off already */
	}
	/*
	 * [newlib_lock_acquire] pairs [newlib_lock_release]: what the
	 * previous owner did under the lock is visible to us, or newlib's
	 * malloc could read a free list half-updated by another CPU.
	 */
	if (!__atomic_compare_exchange_n(&l->owner, &nobody, me, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		arch_irq_restore(flags);
		return false;
	}
	l->depth = 1;
	l->flags = flags;
	return true;
}

static void lock_acquire(struct __lock *l)
{
	while (!lock_try(l))
		cpu_relax();
}

static void lock_release(struct __lock *l)
{
	unsigned long flags;

	if (READ_ONCE(l->owner) != smp_processor_id())
		panic("BUG: newlib lock released by CPU%d, which does not hold it (owner %d)",
		      smp_processor_id(), READ_ONCE(l->owner));
	if (--l->depth)
		return;
	flags = l->flags;
	/* [newlib_lock_release] pairs [newlib_lock_acquire]: publishes our critical section to the next owner. */
	__atomic_store_n(&l->owner, -1, __ATOMIC_RELEASE);
	arch_irq_restore(flags);
}

NEWLIB_RETARGET_LOCKS(lock_init, lock_close, lock_try, lock_acquire, lock_release)
