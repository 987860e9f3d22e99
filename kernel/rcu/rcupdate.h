/*
 * RCU: the API of Linux's <linux/rcupdate.h>, for a non-preemptive kernel.
 *
 * Readers: rcu_read_lock()/rcu_read_unlock() around code that never blocks,
 * rcu_dereference() to subscribe to a pointer.  Updaters: rcu_assign_pointer()
 * to publish, then synchronize_rcu() (kernel/rcu/sync.c: the article's
 * `for_each_online_cpu(cpu) run_on(cpu);`) or call_rcu() (kernel/rcu/callbacks.c,
 * on grace periods driven by the context-switch hook, kernel/rcu/gp.c) before freeing.
 *
 * Two builds: the checking build (CONFIG_RCU_CHECKING=1, what make run and
 * make test use) counts the read-side nesting per task so that sleeping in
 * a reader, an unbalanced unlock or rcu_dereference() outside a reader is
 * reported.  The production build (CHECKING=0, what make bench uses)
 * reduces rcu_read_lock() and rcu_read_unlock() to a compiler barrier:
 * no instructions at all, as the article says of non-preemptible kernels.
 */
#ifndef KERNEL_RCU_RCUPDATE_H
#define KERNEL_RCU_RCUPDATE_H

#include "compiler.h"
#include "barrier.h"
#include "sched.h"
#include "preempt.h"
#include "trace.h"

#ifndef CONFIG_RCU_CHECKING
#define CONFIG_RCU_CHECKING 1
#endif

/* What call_rcu() queues; embed it in the structure to be freed. */
struct rcu_head {
	struct rcu_head *next;
	void (*func)(struct rcu_head *head);
};
typedef void (*rcu_callback_t)(struct rcu_head *head);

void rcu_warn_suspicious(const char *file, int line, const char *what);
void rcu_read_unlock_underflow(void) __noreturn;
/* might_sleep_check() in an RCU callback (checking build): reports it. */
void rcu_callback_might_sleep(const char *what) __noreturn;

/*
 * The read side's part that the PREEMPT=1 build needs (Linux's names for
 * it): a reader must not be preempted, since a preempted reader's CPU
 * switches context -- a quiescent state -- while the reader still holds
 * its pointers.  The preempt count nests, as readers do.  In the other
 * builds nothing preempts, and these are compiler barriers: no
 * instruction (lab preempt, docs/labs/preempt.md).
 */
static __always_inline void __rcu_read_lock(void)
{
	preempt_disable();
}

static __always_inline void __rcu_read_unlock(void)
{
	preempt_enable();
}

#if CONFIG_RCU_CHECKING

static __always_inline void rcu_read_lock(void)
{
	__rcu_read_lock();
	if (current->rcu_read_lock_nesting++ == 0)
		trace_record(TR_READ_LOCK, 0, 0);
	barrier();	/* the critical section's accesses stay after this */
}

static __always_inline void rcu_read_unlock(void)
{
	int nesting;

	barrier();	/* ...and before this */
	nesting = --current->rcu_read_lock_nesting;
	if (nesting == 0)
		trace_record(TR_READ_UNLOCK, 0, 0);
	else if (unlikely(nesting < 0))
		rcu_read_unlock_underflow();
	__rcu_read_unlock();
}

static inline bool rcu_read_lock_held(void)
{
	return current->rcu_read_lock_nesting > 0;
}

/* Warns once per call site when cond is true ("suspicious RCU usage"). */
#define RCU_LOCKDEP_WARN(cond, what)					\
	do {								\
		static bool __warned;					\
		if (unlikely(cond) && !__warned) {			\
			__warned = true;				\
			rcu_warn_suspicious(__FILE__, __LINE__, what);	\
		}							\
	} while (0)

#else /* production: readers are free */

static __always_inline void rcu_read_lock(void) { __rcu_read_lock(); barrier(); }
static __always_inline void rcu_read_unlock(void) { barrier(); __rcu_read_unlock(); }
static inline bool rcu_read_lock_held(void) { return true; }
#define RCU_LOCKDEP_WARN(cond, what)	do { (void)sizeof(cond); } while (0)

#endif

/*
 * Test seam (checking build; NULL: nothing): rcu_assign_pointer() calls
 * it just before its release store, with where it stores and what, so a
 * test can look at the element being published at the moment it becomes
 * reachable: its fields must be set by then (tests/rcu_lists_publish.c).
 */
extern void (*rcu_publish_hook)(const void *where, const void *p);
#if CONFIG_RCU_CHECKING
#define rcu_publish_seam(where, p)					\
	do {								\
		void (*__hook)(const void *, const void *) = READ_ONCE(rcu_publish_hook); \
		if (unlikely(__hook))					\
			__hook((where), (p));				\
	} while (0)
#else
#define rcu_publish_seam(where, p)	do { } while (0)
#endif

/*
 * Publish: a release store (plain mov on x86-64, stlr on AArch64).
 * [rcu_assign_pointer_release] pairs [rcu_dereference_dep]: the stores
 * that initialised *v are visible before the store that makes v
 * reachable, so a reader that finds v never sees its fields unset.
 */
#define rcu_assign_pointer(p, v)					\
	do {								\
		__typeof__(p) __new = (v);				\
		trace_record(TR_PUBLISH, 0, (uintptr_t)__new);		\
		rcu_publish_seam(&(p), __new);				\
		smp_store_release(&(p), __new);				\
	} while (0)
#define RCU_INIT_POINTER(p, v)		WRITE_ONCE((p), (v))

/*
 * Subscribe: one untorn load (READ_ONCE), no barrier instruction.
 * [rcu_dereference_dep] pairs [rcu_assign_pointer_release]: every later
 * access through the loaded pointer depends on its address, which orders
 * it after the load on every CPU Linux runs on except DEC Alpha -- and on
 * both of ours -- so it reads the initialised fields, not older memory.
 */
#define rcu_dereference_raw(p)		READ_ONCE(p)
#define rcu_dereference_check(p, c)					\
({									\
	RCU_LOCKDEP_WARN(!(c) && !rcu_read_lock_held(),			\
			 "rcu_dereference_check() without protection");	\
	rcu_dereference_raw(p);						\
})
#define rcu_dereference(p)						\
({									\
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),				\
			 "rcu_dereference() outside rcu_read_lock()");	\
	rcu_dereference_raw(p);						\
})
/*
 * RCU-sched, Linux's name for readers that are regions where nothing can
 * switch: preemption or interrupts off, an interrupt handler, a spinlock
 * held.  A context switch is the only quiescent state, so such a region
 * is a reader for every grace period here (as in Linux since its RCU
 * flavours were consolidated).  Code that relies on such a region says so
 * with rcu_dereference_sched(); plain rcu_dereference() there warns, as in
 * Linux.  In the default and production builds preempt_disable() leaves
 * no trace to check: rcu_read_lock_sched() is rcu_read_lock(), which the
 * checking build counts.
 */
static inline bool rcu_read_lock_sched_held(void)
{
	return rcu_read_lock_held() || arch_irqs_disabled() || in_interrupt() ||
	       preempt_count() || this_cpu()->locks_held;
}
#define rcu_read_lock_sched()		rcu_read_lock()
#define rcu_read_unlock_sched()		rcu_read_unlock()
#define rcu_dereference_sched(p)					\
({									\
	RCU_LOCKDEP_WARN(!rcu_read_lock_sched_held(),			\
			 "rcu_dereference_sched() where a switch may happen"); \
	rcu_dereference_raw(p);						\
})

/* Update side, with the lock that keeps p from changing (say so in c). */
#define rcu_dereference_protected(p, c)					\
({									\
	RCU_LOCKDEP_WARN(!(c), "rcu_dereference_protected() without its lock"); \
	(p);								\
})
/* Only the pointer's value, never dereferenced: no protection needed. */
#define rcu_access_pointer(p)		READ_ONCE(p)

#define rcu_replace_pointer(rcu_ptr, ptr, c)				\
({									\
	__typeof__(ptr) __old = rcu_dereference_protected((rcu_ptr), (c)); \
	rcu_assign_pointer((rcu_ptr), (ptr));				\
	__old;								\
})

/* The lockdep hook of rculist.h's list_for_each_entry_rcu(..., cond). */
#define rcu_list_check(cond)						\
	RCU_LOCKDEP_WARN(!(cond) && !rcu_read_lock_held(),		\
			 "RCU-list traversed outside a reader and without its lock")

/* Waiting for readers (from a per-CPU thread: through synchronize_rcu_by_callback()). */
void synchronize_rcu(void);
/* The same wait through an asynchronous grace period: call_rcu() and a completion. */
void synchronize_rcu_by_callback(void);
/* The same wait, asking every CPU at once (kernel/rcu/expedited.c). */
void synchronize_rcu_expedited(void);
void call_rcu(struct rcu_head *head, rcu_callback_t func);
void rcu_barrier(void);

/*
 * kfree_rcu(ptr, member): kfree(ptr) after a grace period, with no
 * callback to write.  As Linux once did, the member's offset travels in
 * place of the function pointer: page 0 is unmapped, so no function lives
 * below KFREE_RCU_MAX_OFFSET, and a smaller "function" is an offset.  So
 * the rcu_head must lie in the first 4096 bytes of its structure, or its
 * offset would be taken for a function and called: the static assertion
 * refuses such a structure at compile time.
 */
#define KFREE_RCU_MAX_OFFSET	4096
#define kfree_rcu(ptr, rhf)						\
	do {								\
		_Static_assert(offsetof(__typeof__(*(ptr)), rhf) < KFREE_RCU_MAX_OFFSET, \
			       "kfree_rcu(): the rcu_head must lie in the first 4096 " \
			       "bytes of its structure (its offset stands for a function)"); \
		call_rcu(&(ptr)->rhf,					\
			 (rcu_callback_t)(uintptr_t)offsetof(__typeof__(*(ptr)), rhf)); \
	} while (0)

/* Polled grace periods. */
unsigned long get_state_synchronize_rcu(void);
unsigned long start_poll_synchronize_rcu(void);
bool poll_state_synchronize_rcu(unsigned long cookie);
void cond_synchronize_rcu(unsigned long cookie);

/* Hooks for the scheduler, idle loop and interrupt entry. */
void rcu_note_context_switch(void);
/* Does a grace period wait for this CPU's quiescent state (IPC's fast switch asks)? */
bool rcu_qs_wanted(void);
void rcu_idle_enter(void);
void rcu_idle_exit(void);
void rcu_irq_enter(void);
void rcu_irq_exit(void);
/* Returning to user mode: a quiescent state (kernel/user/entry.c; docs/user.md). */
void rcu_user_return(void);
/* Quiescent states cpu reported on its way back to user mode (expedited: to those). */
unsigned long rcu_user_qs_count(int cpu, bool expedited);
void rcu_init(void);
void rcu_init_cpu_threads(void);
void rcu_check_stalls(void);
/*
 * CPU hotplug (kernel/hotplug.c): the arriving CPU sets itself online,
 * the leaving CPU reports its quiescent state and sets itself offline
 * (each under rcu_state.lock, interrupts off), and a CPU that stays takes
 * the callbacks of the one that left; rcu_online_cpu() starts rcuc/N for
 * a CPU that was never up before.
 */
void rcu_cpu_starting(int cpu);
void rcu_report_dead(int cpu);
void rcu_migrate_callbacks(int cpu);
void rcu_online_cpu(int cpu);

/* State for reports, the monitor and tests. */
struct rcu_stats {
	unsigned long gp_seq;
	struct cpumask qs_mask;
	unsigned long gps_completed;
	/*
	 * Quiescent-state reports to call_rcu()'s grace periods, those that
	 * found rcu_state.lock taken, and the nanoseconds they waited for it
	 */
	unsigned long qs_reports, qs_contended;
	u64 qs_lock_wait_ns;
	unsigned long gp_requests;	/* requests for a grace period, each under that lock */
	unsigned long tours_started;	/* synchronize_rcu() tours */
	unsigned long tours_completed;
	long cbs_queued;
	unsigned long long cbs_invoked;
	unsigned long stall_reports;
	/*
	 * synchronize_rcu_expedited(): calls started and completed, the CPUs
	 * it still waits for, and those whose IPI found a task running (they
	 * report at their next context switch)
	 */
	unsigned long exp_started, exp_completed;
	struct cpumask exp_mask, exp_noted;
	/* Reports on the way back to user mode (rcu_user_return()), all CPUs */
	unsigned long user_qs, exp_user_qs;
};
void rcu_get_stats(struct rcu_stats *s);
/* Sets rcu_cpu_stall_timeout (seconds, 3 at least); returns the old value. */
int rcu_set_stall_timeout(int seconds);
bool rcu_cpu_in_eqs(int cpu);
/* A call_rcu() grace period runs and still waits for cpu's quiescent state. */
bool rcu_cpu_owes_qs(int cpu);

/*
 * Fault injections: each breaks RCU on purpose, so that a test can show it
 * catches the break (rcu.inject=NAME on the command line, one word per
 * injection; kernel/rcu/inject.c).  One line each: the constant the code
 * tests with rcu_injected(), the name on the command line, what it breaks.
 */
#define RCU_INJECTIONS(X)						\
	X(RCU_INJECT_NO_WAIT, "no_wait", "grace periods wait for nothing")	\
	X(RCU_INJECT_SNAP_SHORT, "snap_short",				\
	  "a callback waits only for the grace period already running") \
	X(RCU_INJECT_SEG_MERGE, "seg_merge",				\
	  "the next segment joins a non-empty wait segment and takes its earlier grace period") \
	X(RCU_INJECT_SEG_DONE_EARLY, "seg_done_early",			\
	  "callbacks are ready once their grace period has started, not ended") \
	X(RCU_INJECT_MASK_SKIP_CPU, "mask_skip_cpu",			\
	  "a grace period does not wait for the last online CPU")	\
	X(RCU_INJECT_IDLE_EXIT_FORGETS, "idle_exit_forgets",		\
	  "a CPU that leaves idle stays marked idle (an extended quiescent state)") \
	X(RCU_INJECT_IRQ_STAYS_IDLE, "irq_stays_idle",			\
	  "an interrupt on an idle CPU does not leave the extended quiescent state") \
	X(RCU_INJECT_TOUR_SKIP_CPU, "tour_skip_cpu",			\
	  "synchronize_rcu() does not visit the CPU after its own")	\
	X(RCU_INJECT_BARRIER_SKIP_CPU, "barrier_skip_cpu",		\
	  "rcu_barrier() queues no marker on the CPU after its own")	\
	X(RCU_INJECT_BARRIER_NO_HOTPLUG_LOCK, "barrier_no_hotplug_lock", \
	  "rcu_barrier() lets CPUs come and go while it queues its markers") \
	X(RCU_INJECT_BARRIER_SKIPS_READY, "barrier_skips_ready",	\
	  "rcu_barrier() queues no marker where no callback waits for a grace period") \
	X(RCU_INJECT_POLL_GP_EARLY, "poll_gp_early",			\
	  "a cookie reads done once a grace period numbered above it has started") \
	X(RCU_INJECT_POLL_TOUR_EARLY, "poll_tour_early",		\
	  "a cookie reads done after a tour that started before the cookie") \
	X(RCU_INJECT_OFFLINE_NO_QS, "offline_no_qs",			\
	  "a CPU going offline does not report its quiescent state")	\
	X(RCU_INJECT_OFFLINE_CBS_LEFT, "offline_cbs_left",		\
	  "a CPU going offline leaves its callbacks behind")		\
	X(RCU_INJECT_OFFLINE_CBS_READY, "offline_cbs_ready",		\
	  "the callbacks of a CPU going offline run without waiting for their grace period") \
	X(RCU_INJECT_OFFLINE_CBS_MERGE, "offline_cbs_merge",		\
	  "the callbacks of a CPU going offline join the same segments here, with this CPU's grace periods") \
	X(RCU_INJECT_OFFLINE_WINDOW, "offline_window",			\
	  "a CPU going offline sends a tour's hop on before its last readers end") \
	X(RCU_INJECT_DYING_SENDS_QUEUE_ON, "dying_sends_queue_on",	\
	  "remove_cpu() sends the tasks queued on the CPU going down elsewhere before it switches") \
	X(RCU_INJECT_DYING_REDIRECTS, "dying_redirects",		\
	  "a task queued on a CPU going down goes elsewhere at once, as if it were offline") \
	X(RCU_INJECT_ONLINE_STARTS_IDLE, "online_starts_idle",		\
	  "a CPU coming online keeps the idle flag it went down with (grace periods report for it)") \
	X(RCU_INJECT_EXP_IPI_REPORTS_BUSY, "exp_ipi_reports_busy",	\
	  "the expedited IPI reports a quiescent state even when it interrupted a task") \
	X(RCU_INJECT_EXP_NUMBERED_LATE, "exp_numbered_late",		\
	  "synchronize_rcu_expedited() takes its polled wait number when its wait is over") \
	X(RCU_INJECT_REQUEST_ONLY_ONCE, "request_only_once",		\
	  "call_rcu() asks for a grace period only the first time on each CPU")

#define __RCU_INJECTION_ENUM(id, name, what)	id,
enum rcu_injection {
	RCU_INJECTIONS(__RCU_INJECTION_ENUM)
	NR_RCU_INJECTIONS
};
/* True when the command line asked for this injection. */
bool rcu_injected(enum rcu_injection which);
/* The CPU the *_skip_cpu injections leave out: the online CPU after cpu (wrapping). */
int rcu_inject_victim(int cpu);

#endif
