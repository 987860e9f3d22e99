/*
 * The insides of the user-space RCU library (docs/urcu.md), private to
 * user/lib:
 *
 *   urcu_domain.c   what the flavors share: a domain's set-up, the
 *                   registry of readers, the grace period, the writer's
 *                   wait for its readers, the sleeping mutex
 *   urcu_memb.c     the memb flavor: SYS_membarrier orders its writer
 *   urcu_qsbr.c     the QSBR flavor: quiescent states, offline, online
 *   urcu_call.c     call_rcu()'s queue and thread, rcu_barrier()
 *   urcu_check.c    misuse reports, fault injection
 *
 * Nothing here spins or yields for long: a writer that waits for readers,
 * call_rcu()'s thread without work, rcu_barrier() and a contended mutex
 * sleep on a notification (a kernel object: docs/microkernel.md), which
 * the one who lets them go signals.
 */
#ifndef USER_LIB_URCU_DOMAIN_H
#define USER_LIB_URCU_DOMAIN_H

#include "urcu/urcu-memb.h"
#include "urcu/urcu-qsbr.h"
#include "qcap.h"

/* A mutex whose waiters sleep: the holder's unlock wakes one (urcu_domain.c). */
struct urcu_mutex {
	int state;		/* 0 free, 1 held, 2 held and someone may sleep */
	int ntf;		/* the notification they sleep on */
};

/* call_rcu()'s queue and the thread that runs it (urcu_call.c). */
struct urcu_call {
	struct urcu_mutex lock;		/* everything below but ntf and barrier_ntf */
	struct rcu_head *head, **tail;	/* callbacks waiting for the thread */
	bool sleeping;			/* the thread sleeps on ntf: wake it */
	int tid;			/* the thread; 0 until the first call_rcu() */
	int ntf;
	unsigned long barriers_done;	/* rcu_barrier() markers the thread ran */
	struct urcu_mutex barrier_mutex;	/* one rcu_barrier() at a time */
	int barrier_ntf;		/* where it sleeps until its marker ran */
};

/* One per flavor: its readers, its grace periods, its callbacks. */
struct urcu_domain {
	enum urcu_flavor flavor;
	struct urcu_gp *gp;		/* what the readers read */
	void (*setup)(void);		/* once, at the flavor's first use (NULL: none) */
	/*
	 * The flavor's barrier between the writer and every reader: memb,
	 * SYS_membarrier (a full barrier on each CPU running the task);
	 * QSBR, smp_mb() (its readers have their own).
	 */
	void (*order_readers)(void);
	/* The flavor's calls, for call_rcu()'s thread. */
	void (*register_thread)(void);
	void (*synchronize)(void);
	void (*quiescent_state)(void);		/* QSBR only (NULL: none) */
	bool (*block_begin)(const char *call);	/* QSBR only: offline while it sleeps */
	void (*block_end)(void);
	struct urcu_mutex gp_mutex;	/* one grace period at a time */
	int gp_ntf;			/* the writer sleeps here (gp->waiting says which) */
	struct urcu_mutex registry_mutex;
	struct list_head registry;	/* struct urcu_reader, every registered thread */
	struct urcu_call call;
	struct urcu_stats stats;	/* atomic counters (relaxed: statistics) */
	bool ready;			/* set up (urcu_domain_init()) */
};

/* urcu_domain.c */
void urcu_domain_init(struct urcu_domain *d);
struct urcu_reader *urcu_register(struct urcu_domain *d, const char *call);
/* Takes the caller's reader off the registry and frees it; NULL if it had none. */
bool urcu_unregister(struct urcu_domain *d);
void urcu_synchronize(struct urcu_domain *d);
/* Is the caller inside a read-side section of d's flavor?  Then call is a misuse, named. */
bool urcu_waits_for_itself(struct urcu_domain *d, const char *call);
void urcu_get_stats(struct urcu_domain *d, struct urcu_stats *s);
void urcu_mutex_lock(struct urcu_mutex *m);
void urcu_mutex_unlock(struct urcu_mutex *m);
/* Sleeps until ntf is signalled (bits already there: at once); the flavor goes offline. */
void urcu_sleep(struct urcu_domain *d, int ntf);
/* A new notification, or the task ends with a named error. */
int urcu_notification(struct urcu_domain *d, const char *what);
#define urcu_stat_inc(d, field)	__atomic_fetch_add(&(d)->stats.field, 1, __ATOMIC_RELAXED)

/* urcu_call.c */
void urcu_call(struct urcu_domain *d, struct rcu_head *head, void (*func)(struct rcu_head *head));
void urcu_barrier(struct urcu_domain *d);
/* Is the caller d's callback thread?  (rcu_barrier() there would wait for itself.) */
bool urcu_in_callback_thread(struct urcu_domain *d);

/* urcu_check.c */
const char *urcu_flavor_name(enum urcu_flavor f);
void urcu_check_thread_exit(void);
bool urcu_injected_no_wait(void);

#endif
