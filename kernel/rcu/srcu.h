/*
 * SRCU, sleepable RCU: the API of Linux's <linux/srcu.h>, built the
 * classic way (kernel/rcu/srcu.c; docs/rcu.md, "SRCU").
 *
 * A reader may sleep inside srcu_read_lock()/srcu_read_unlock(), so a
 * context switch no longer proves anything about it: each reader is
 * counted instead.  Every srcu_struct is a domain of its own, with two
 * ranks of per-CPU counters: srcu_read_lock() adds one to this CPU's
 * lock counter of the rank that ->completed selects and returns that rank
 * (the index); srcu_read_unlock(ssp, idx) adds one to this CPU's unlock
 * counter of the same rank.  A reader may unlock on another CPU than the
 * one it locked on (it slept, run_on() moved it), so a rank is empty when
 * its lock counts and its unlock counts, summed over every possible CPU,
 * are equal.  A grace period flips ->completed so that new readers use
 * the other rank, waits for the old rank to empty, and does it twice, so
 * that both ranks have emptied since it began.
 *
 *	idx = srcu_read_lock(&my_srcu);
 *	p = srcu_dereference(gp, &my_srcu);
 *	msleep(10);				// allowed: this is SRCU
 *	srcu_read_unlock(&my_srcu, idx);
 *
 * The checking build also records, per task, which domains it holds and
 * with which index, so that an unbalanced unlock, an index passed to the
 * wrong domain or a synchronize_srcu() inside its own domain's reader is
 * reported by name (the index alone is only 0 or 1).
 */
#ifndef KERNEL_RCU_SRCU_H
#define KERNEL_RCU_SRCU_H

#include "rcupdate.h"
#include "list.h"
#include "spinlock.h"

/* One CPU's counters, on a cache line of their own. */
struct srcu_data {
	unsigned long lock_count[2];	/* srcu_read_lock()s on this CPU, per rank */
	unsigned long unlock_count[2];	/* srcu_read_unlock()s on this CPU, per rank */
} __aligned(64);

struct srcu_struct {
	unsigned long completed;	/* index flips; bit 0: the rank new readers use */
	struct srcu_data sda[NR_CPUS];
	/* Grace periods and callbacks (kernel/rcu/srcu.c; only its thread starts them). */
	spinlock_t lock;		/* the two callback lists and ncbs */
	struct rcu_head *next_head, **next_tail;	/* queued: wait for the next grace period */
	struct rcu_head *wait_head, **wait_tail;	/* wait for the running grace period */
	long ncbs;			/* queued and not yet returned from */
	int gp_state;			/* SRCU_GP_IDLE, _FIRST_RANK, _SECOND_RANK */
	bool on_list;			/* on the grace-period thread's list */
	struct list_head gp_node;
	unsigned long gps_completed;
	const char *name;		/* for reports: the variable's name */
	unsigned long magic;		/* SRCU_MAGIC while initialised */
};

#define SRCU_MAGIC	0x5c7c0de5UL

#define __SRCU_STRUCT_INIT(sname)					\
	{								\
		.lock = __SPIN_LOCK_UNLOCKED(sname.lock),		\
		.next_tail = &(sname).next_head,			\
		.wait_tail = &(sname).wait_head,			\
		.gp_node = LIST_HEAD_INIT((sname).gp_node),		\
		.name = #sname,						\
		.magic = SRCU_MAGIC,					\
	}
#define DEFINE_SRCU(sname)	struct srcu_struct sname = __SRCU_STRUCT_INIT(sname)
#define DEFINE_STATIC_SRCU(sname) \
	static struct srcu_struct sname = __SRCU_STRUCT_INIT(sname)

/* A run-time domain (in a structure, on the heap); returns 0, as Linux's. */
#define init_srcu_struct(ssp)	__init_srcu_struct((ssp), #ssp)
int __init_srcu_struct(struct srcu_struct *ssp, const char *name);
/* Undoes init_srcu_struct(); warns and keeps ssp if readers or callbacks remain. */
void cleanup_srcu_struct(struct srcu_struct *ssp);

/* Update side: all may sleep. */
void synchronize_srcu(struct srcu_struct *ssp);
void call_srcu(struct srcu_struct *ssp, struct rcu_head *head, rcu_callback_t func);
void srcu_barrier(struct srcu_struct *ssp);
/* Grace periods of ssp completed so far (for tests and reports). */
unsigned long srcu_batches_completed(struct srcu_struct *ssp);

/* Starts the grace-period thread (boot, after the CPUs are up). */
void srcu_init(void);

/* Checking build: the per-task record (kernel/rcu/srcu.c). */
void srcu_check_lock(struct srcu_struct *ssp, int idx);
void srcu_check_unlock(struct srcu_struct *ssp, int idx);
bool srcu_read_lock_held(const struct srcu_struct *ssp);
void srcu_check_task_exit(struct task_struct *t);
/* Is t srcu_gp, which runs every domain's grace periods and callbacks? */
bool srcu_gp_thread_is(const struct task_struct *t);
/*
 * Test seam (checking build; NULL: nothing): srcu_gp calls it with a
 * domain it is done with and has not let go of yet (srcu_retire()), where
 * cleanup_srcu_struct() must wait (tests/srcu_window.c).
 */
extern void (*srcu_retire_hook)(struct srcu_struct *ssp);

/*
 * Adds one to a counter of this CPU.  Only this CPU writes it (others
 * only read it; the callers keep preemption off from reading the index to
 * counting, so under PREEMPT=1 too no task is switched out, or moved off
 * a CPU going down, in between), but an interrupt handler here may take
 * an SRCU read lock in the middle of our read-modify-write: the add is
 * atomic for that, and relaxed, since the barrier that orders it comes
 * next.
 */
static __always_inline void srcu_count(unsigned long *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

static __always_inline int srcu_read_lock(struct srcu_struct *ssp)
{
	int idx;

	/*
	 * PREEMPT=1: not preempted between reading the index and counting,
	 * which bounds the stragglers of a flipped rank to one per CPU and
	 * interrupt level (srcu.c).  Nothing to do in the other builds.
	 */
	preempt_disable();
	idx = READ_ONCE(ssp->completed) & 1;
	srcu_count(&ssp->sda[smp_processor_id()].lock_count[idx]);
	preempt_enable();
	/*
	 * [srcu_lock_mb] pairs [srcu_check_mb], [call_srcu_mb]: the critical section's loads
	 * come after our lock count is visible.  Store buffering with the
	 * grace period, which stores the removal and then loads the lock
	 * counts: either it counts us and waits, or we see the removal.
	 */
	smp_mb();
	if (CONFIG_RCU_CHECKING)
		srcu_check_lock(ssp, idx);
	return idx;
}

static __always_inline void srcu_read_unlock(struct srcu_struct *ssp, int idx)
{
	if (CONFIG_RCU_CHECKING)
		srcu_check_unlock(ssp, idx);
	/*
	 * [srcu_unlock_mb] pairs [srcu_check_mb]: the critical section's
	 * accesses (and our lock count) are done before the unlock count is
	 * visible.  A grace period that counts this unlock frees nothing we
	 * still read, and counts our lock too.
	 */
	smp_mb();
	preempt_disable();	/* PREEMPT=1: this CPU's counter, counted on this CPU */
	srcu_count(&ssp->sda[smp_processor_id()].unlock_count[idx & 1]);
	preempt_enable();
}

#if !CONFIG_RCU_CHECKING
#define srcu_read_lock_held(ssp)	((void)(ssp), true)
#endif

/* Subscribe inside srcu_read_lock(ssp), or with c true (the update-side lock). */
#define srcu_dereference_check(p, ssp, c)				\
({									\
	RCU_LOCKDEP_WARN(!(c) && !srcu_read_lock_held(ssp),		\
			 "srcu_dereference_check() without protection");	\
	rcu_dereference_raw(p);						\
})
#define srcu_dereference(p, ssp)					\
({									\
	RCU_LOCKDEP_WARN(!srcu_read_lock_held(ssp),			\
			 "srcu_dereference() outside srcu_read_lock()");	\
	rcu_dereference_raw(p);						\
})

/*
 * Fault injections (srcu.inject=NAME; kernel/rcu/srcu.c), one line each as
 * RCU_INJECTIONS: the constant, the name on the command line, what it breaks.
 */
#define SRCU_INJECTIONS(X)						\
	X(SRCU_INJECT_NO_FLIP, "no_flip",				\
	  "grace periods never flip the index: they wait for the rank no reader uses") \
	X(SRCU_INJECT_BARRIER_SKIPS_IDLE, "barrier_skips_idle",	\
	  "srcu_barrier() returns at once when no callback is pending, though one may still run") \
	X(SRCU_INJECT_CLEANUP_NO_WAIT, "cleanup_no_wait",		\
	  "cleanup_srcu_struct() does not wait for the grace-period thread to let go of the domain")

#define __SRCU_INJECTION_ENUM(id, name, what)	id,
enum srcu_injection {
	SRCU_INJECTIONS(__SRCU_INJECTION_ENUM)
	NR_SRCU_INJECTIONS
};
bool srcu_injected(enum srcu_injection which);

#endif
