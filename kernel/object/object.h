/*
 * Kernel objects (kernel/object/, docs/microkernel.md): what capabilities
 * name.  One file per kind of object, and this base that every kind
 * starts with, in the manner of NOVA's reference-counted Kobject:
 *
 *   object.c        the base: references, capabilities, the free after a grace period
 *   cache.c         the type-stable caches every object comes from
 *   quota.c         what each task may make the kernel allocate; quota objects
 *   cspace.c        a task's capability space: the table of slots, the RCU lookup
 *   cap.c           capabilities: create, copy, mint, move, delete, revoke (the derivation tree)
 *   endpoint.c      synchronous IPC rendezvous; ipc.c a thread's half of it
 *   ipc_fast.c      IPC's fast path: the object halves of a call and a reply-and-receive
 *   notification.c  signal bits
 *   memory.c        frames a task may map
 *   task.c          a task (kernel/user/task.h's, named by a capability)
 *   program.c       a boot module, as a program a capability lets its holder start
 *   thread.c        a thread (kernel/user/thread.h's), and its IPC state
 *   interrupt.c     a device interrupt line, bound to a notification (docs/drivers.md)
 *   device.c        a device's registers, for its driver (docs/drivers.md)
 *   console.c       the kernel's console, for the console server (docs/drivers.md)
 *
 * Life of an object.  It is created with one reference, its creator's;
 * each capability naming it holds another, and so does each thread
 * blocked on it and anything else that keeps a pointer past an RCU
 * read-side critical section (taken there with kobject_tryget(), which
 * fails once the count reached zero).  When its last capability goes,
 * its type's last_cap() runs (an endpoint wakes every blocked thread
 * with an error); when its last reference goes, it is freed with
 * call_rcu(): a lookup that found it inside rcu_read_lock() may still be
 * reading it.  The free poisons it and makes its generation odd.
 */
#ifndef KERNEL_OBJECT_OBJECT_H
#define KERNEL_OBJECT_OBJECT_H

#include "kernel.h"
#include "syscall.h"
#include "object/cache.h"
#include "object/quota.h"

enum kobj_type {
	KOBJ_ENDPOINT = SYS_OBJ_ENDPOINT,
	KOBJ_NOTIFICATION = SYS_OBJ_NOTIFICATION,
	KOBJ_MEMORY = SYS_OBJ_MEMORY,
	KOBJ_TASK = SYS_OBJ_TASK,
	KOBJ_THREAD = SYS_OBJ_THREAD,
	KOBJ_INTERRUPT = SYS_OBJ_INTERRUPT,
	KOBJ_DEVICE = SYS_OBJ_DEVICE,
	KOBJ_CONSOLE = SYS_OBJ_CONSOLE,
	KOBJ_PROGRAM = SYS_OBJ_PROGRAM,
	KOBJ_QUOTA = SYS_OBJ_QUOTA,
	NR_KOBJ_TYPES = SYS_OBJ_TYPES,
	KCACHE_CAP = 16,		/* capability nodes (cap.c): not objects */
};

struct kobject {
	struct kcache_head head;	/* generation and type (cache.h) */
	atomic_t refs;			/* references, each capability's included */
	atomic_t ncaps;			/* capabilities naming it */
	unsigned long id;		/* its number, for reports and inspect (never reused) */
	struct quota *quota;		/* charged for it (with a reference) */
	struct rcu_head rcu;
};

/* What each type adds (its file fills one in; object.c calls them). */
struct kobj_ops {
	const char *name;		/* "endpoint", ... */
	size_t size;			/* of the type's struct, struct kobject first */
	/* A capability with these rights now names it, or no longer does (may be NULL). */
	void (*cap_added)(struct kobject *obj, unsigned int rights);
	void (*cap_removed)(struct kobject *obj, unsigned int rights);
	/* Its last capability is gone (may be NULL; may sleep). */
	void (*last_cap)(struct kobject *obj);
	/* Its last reference is gone, a grace period ago: drop what it holds (may be NULL; must not sleep). */
	void (*release)(struct kobject *obj);
	/* A few words on what it is, for the monitor's caps (may be NULL). */
	void (*describe)(struct kobject *obj, char *buf, size_t size);
};

/* Registers a type's ops and makes its cache (object_init() calls each type's init). */
void kobject_register(enum kobj_type type, const struct kobj_ops *ops);
const char *kobject_type_name(unsigned int type);
/* The type's describe(), or an empty string. */
void kobject_describe(struct kobject *obj, char *buf, size_t size);

/* A new object of type, charged to q (size plus extra bytes it will allocate): refs 1. */
struct kobject *kobject_create(enum kobj_type type, struct quota *q, long extra);

static inline void kobject_get(struct kobject *obj)
{
	atomic_inc(&obj->refs);
}

/* A reference, unless the count already reached zero (the object is on its way out). */
static inline bool kobject_tryget(struct kobject *obj)
{
	return atomic_inc_not_zero(&obj->refs);
}

/*
 * kobject_tryget() ordering nothing, for a caller that holds a lock which
 * every put of the new reference takes before it (so the increment is
 * ordered before that put by the lock's release and acquire), and that
 * reads nothing of obj which the increment must come before: no
 * generation to check again, since a capability seen under the lock
 * still holds its own reference.  ipc_enqueue_locked()'s, under the
 * queue's lock: on AArch64 the full ordering was a dmb ish on each side
 * of every queued thread's increment.
 */
static inline bool kobject_tryget_relaxed(struct kobject *obj)
{
	return atomic_inc_not_zero_relaxed(&obj->refs);
}

void kobject_put(struct kobject *obj);

/* Is obj still the object of generation gen (not freed, not reused)? */
static inline bool kobject_is(const struct kobject *obj, u32 gen)
{
	return READ_ONCE(obj->head.gen) == gen;
}

/*
 * Test hook (checking build): called by a system call that is about to
 * make state outliving it on obj -- a binding, a device grant -- before
 * it takes obj's lock and looks whether obj's last capability went
 * (captorture lingers there, the window Rule 2 closes; NULL: nothing).
 */
extern void (*object_bind_hook)(struct kobject *obj);
static inline void object_bind_hook_call(struct kobject *obj)
{
	if (CONFIG_RCU_CHECKING && object_bind_hook)
		object_bind_hook(obj);
}

/* Capabilities come and go (cap.c): the counts above, and the type's hooks. */
void kobject_cap_added(struct kobject *obj, unsigned int rights);
void kobject_cap_removed(struct kobject *obj, unsigned int rights);

/*
 * A use-after-free caught: a reader found a capability node or an object
 * whose generation moved on while it held it.  Says so on the console
 * ("BUG: use-after-free caught ...") and counts it; the caller fails the
 * system call with -EBADF without touching the object again.
 */
void object_uaf_caught(const char *what, const void *p, u32 want_gen, u32 found_gen,
		       unsigned int type);

/* Statistics for captorture, the monitor and the tests. */
struct object_stats {
	unsigned long created[NR_KOBJ_TYPES], freed[NR_KOBJ_TYPES];
	long live[NR_KOBJ_TYPES];
	unsigned long uaf_caught;
	long deferred;			/* frees queued with call_rcu() and not yet run */
};
void object_get_stats(struct object_stats *s);

/* Are frees of objects or capability nodes waiting for their grace period? */
bool object_frees_pending(void);
/* Waits until every free queued so far has run (the leak check, tests). */
void object_settle(void);
void object_init(void);

/*
 * cap.inject=NAME: break an object's lifetime on purpose, so that the
 * tests can show they catch it (CI runs each as an expected failure;
 * docs/microkernel.md, "Injections").  Checking build only.
 */
#define CAP_INJECTIONS(X)							\
	X(CAP_INJECT_FREE_NO_WAIT, "free_no_wait",				\
	  "objects and capability nodes are freed without waiting for a grace period") \
	X(CAP_INJECT_NO_REF, "no_ref",						\
	  "a user thread's ->task holds no reference once the reaper freed the thread's kernel half") \
	X(CAP_INJECT_BIND_UNCHECKED, "bind_unchecked",			\
	  "SYS_irq_bind and SYS_dev_map do not look again, under the object's lock, whether its last capability went") \
	X(CAP_INJECT_LOST_WAKEUP, "lost_wakeup",				\
	  "a caller killed while a receiver claims it is moved to REPLY_WAIT without a wake-up") \
	X(CAP_INJECT_NOREF_SLEEP, "noref_sleep",				\
	  "IPC sleeps on cap_mutex with its endpoint looked up without a reference, and takes none") \
	X(CAP_INJECT_FAST_CAP, "fast_cap",					\
	  "IPC's fast path takes calls that carry a capability, and moves only the registers")

#define __CAP_INJECTION_ENUM(id, name, what)	id,
enum cap_injection {
	CAP_INJECTIONS(__CAP_INJECTION_ENUM)
	NR_CAP_INJECTIONS
};
bool cap_injected(enum cap_injection which);
/* cap.inject=free_no_wait: objects and capability nodes freed at once, no grace period. */
bool object_free_no_wait(void);
/*
 * Frees after a grace period, or at once under the injection (object.c);
 * fn ends with object_deferred_done(), so object_settle() knows when all
 * have run.
 */
void object_call_rcu(struct rcu_head *head, rcu_callback_t fn);
/*
 * The same free, now: right only where no reader can still hold head
 * (cap.inject=free_no_wait uses it wrongly on purpose; so does lab
 * cap_rcu's starter, whose lookups hold cap_mutex instead).
 */
void object_free_now(struct rcu_head *head, rcu_callback_t fn);
void object_deferred_done(void);

#endif
