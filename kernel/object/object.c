/*
 * The base of every kernel object (object.h): creation charged to a
 * quota, references, the capability count and its hooks, and the free
 * a grace period after the last reference.
 */
#include "object/object.h"
#include "object/cap.h"
#include "object/endpoint.h"
#include "object/memory.h"
#include "object/notification.h"
#include "object/program.h"
#include "object/task.h"
#include "object/interrupt.h"
#include "object/device.h"
#include "object/console.h"
#include "object/holds.h"

struct kobj_type_info {
	const struct kobj_ops *ops;
	struct kcache cache;
	atomic_long_t created, freed;
};

static struct kobj_type_info types[NR_KOBJ_TYPES];
static atomic_long_t next_id;
static atomic_long_t uaf_caught;
static atomic_long_t deferred;		/* object_call_rcu() callbacks not yet run */

/*
 * cap.inject=NAME (object.h's CAP_INJECTIONS): the faults captorture and
 * the deterministic tests must catch.  One word per injection; several
 * may be given.
 */
static const struct {
	const char *name, *what;
} cap_injection_descs[NR_CAP_INJECTIONS] = {
#define __CAP_INJECTION_DESC(id, iname, iwhat)	[id] = { iname, iwhat },
	CAP_INJECTIONS(__CAP_INJECTION_DESC)
};
static bool cap_injections_on[NR_CAP_INJECTIONS];

static bool set_cap_inject(const struct kparam *p, const char *val)
{
	(void)p;
	for (int i = 0; i < NR_CAP_INJECTIONS; i++) {
		if (!strcmp(val, cap_injection_descs[i].name)) {
			cap_injections_on[i] = true;
			return true;
		}
	}
	return false;
}

#define __CAP_INJECTION_HELP(id, name, what)	" '" name "' (" what ")"
KPARAM_CALL("cap.inject", set_cap_inject, "one of:" CAP_INJECTIONS(__CAP_INJECTION_HELP));

bool cap_injected(enum cap_injection which)
{
	return CONFIG_RCU_CHECKING && cap_injections_on[which];
}

void (*object_bind_hook)(struct kobject *obj);

bool object_free_no_wait(void)
{
	return cap_injected(CAP_INJECT_FREE_NO_WAIT);
}

/* At boot, a loud line for each injection that is on (checking build only). */
static void cap_inject_announce(void)
{
	for (int i = 0; i < NR_CAP_INJECTIONS; i++)
		if (cap_injected(i))
			printk("cap: FAULT INJECTION cap.inject=%s: %s\n",
			       cap_injection_descs[i].name, cap_injection_descs[i].what);
}

void kobject_register(enum kobj_type type, const struct kobj_ops *ops)
{
	struct kobj_type_info *ti = &types[type];

	ti->ops = ops;
	/* The head and the reference count stay readable (and zero) once freed. */
	kcache_init(&ti->cache, ops->name, ops->size,
		    offsetof(struct kobject, refs) + sizeof(atomic_t), type);
}

const char *kobject_type_name(unsigned int type)
{
	if (type == KCACHE_CAP)
		return "capability";
	return type < NR_KOBJ_TYPES && types[type].ops ? types[type].ops->name : "?";
}

void kobject_describe(struct kobject *obj, char *buf, size_t size)
{
	const struct kobj_ops *ops = types[obj->head.type].ops;

	buf[0] = 0;
	if (ops->describe)
		ops->describe(obj, buf, size);
}

struct kobject *kobject_create(enum kobj_type type, struct quota *q, long extra)
{
	struct kobj_type_info *ti = &types[type];
	struct kobject *obj;

	if (!quota_charge(q, QUOTA_OBJECTS, ti->cache.size + extra))
		return NULL;
	obj = kcache_alloc(&ti->cache);
	if (!obj) {
		quota_uncharge(q, QUOTA_OBJECTS, ti->cache.size + extra);
		return NULL;
	}
	atomic_set(&obj->refs, 1);
	obj->id = atomic_long_inc_return_relaxed(&next_id);
	obj->quota = q;
	quota_get(q);
	atomic_long_inc(&ti->created);
	return obj;
}

void object_call_rcu(struct rcu_head *head, rcu_callback_t fn)
{
	if (object_free_no_wait()) {
		object_free_now(head, fn);	/* fault injection: no grace period */
		return;
	}
	atomic_long_inc(&deferred);
	call_rcu(head, fn);
}

void object_free_now(struct rcu_head *head, rcu_callback_t fn)
{
	atomic_long_inc(&deferred);	/* (fn ends in object_deferred_done()) */
	fn(head);
}

/* Every object_call_rcu() callback ends here. */
void object_deferred_done(void)
{
	atomic_long_dec(&deferred);
}

/* A grace period after the last reference went: nobody can be reading it now. */
static void kobject_free_rcu(struct rcu_head *rh)
{
	struct kobject *obj = container_of(rh, struct kobject, rcu);
	struct kobj_type_info *ti = &types[obj->head.type];
	struct quota *q = obj->quota;

	if (ti->ops->release)
		ti->ops->release(obj);
	quota_uncharge(q, QUOTA_OBJECTS, ti->cache.size);
	quota_free_done(q);
	quota_put(q);
	atomic_long_inc(&ti->freed);
	kcache_free(&ti->cache, obj);
	object_deferred_done();
}

void kobject_put(struct kobject *obj)
{
	/*
	 * [kobject_put_dec] pairs [kobject_put_last]: a release, so every
	 * holder's accesses to the object come before its decrement.  Not
	 * fully ordered: a put that is not the last orders nothing else
	 * (Linux's refcount_dec_and_test() is the same), and on AArch64 a
	 * fully ordered one costs two dmb, six an IPC round trip.
	 */
	if (atomic_sub_return_release(1, &obj->refs))
		return;
	/*
	 * [kobject_put_last] pairs [kobject_put_dec]: the last put's reads
	 * and the free come after every other holder's decrement, so after
	 * all it did (the ncaps check below reads what they wrote).  The
	 * free's stores already wait for the decrement (a control
	 * dependency); the reads need the barrier.
	 */
	smp_rmb();
	holds_check_free(HOLD_OBJECT, obj);
	if (atomic_read(&obj->ncaps))
		panic("BUG: %s %lu: last reference dropped with %d capabilities naming it",
		      kobject_type_name(obj->head.type), obj->id, atomic_read(&obj->ncaps));
	quota_free_queued(obj->quota);	/* (a charge refused meanwhile may wait for it) */
	object_call_rcu(&obj->rcu, kobject_free_rcu);
}

void kobject_cap_added(struct kobject *obj, unsigned int rights)
{
	const struct kobj_ops *ops = types[obj->head.type].ops;

	kobject_get(obj);
	atomic_inc(&obj->ncaps);
	if (ops->cap_added)
		ops->cap_added(obj, rights);
}

void kobject_cap_removed(struct kobject *obj, unsigned int rights)
{
	const struct kobj_ops *ops = types[obj->head.type].ops;

	if (ops->cap_removed)
		ops->cap_removed(obj, rights);
	/* [kobject_ncaps_dec] pairs [kobject_ncaps_dec]: the last capability's hook runs after every other's. */
	if (atomic_dec_and_test(&obj->ncaps) && ops->last_cap)
		ops->last_cap(obj);
	kobject_put(obj);
}

void object_uaf_caught(const char *what, const void *p, u32 want_gen, u32 found_gen,
		       unsigned int type)
{
	atomic_long_inc(&uaf_caught);
	printk("BUG: use-after-free caught: CPU%d %s: %s %s %p was generation %u, now %u (%s)\n",
	       smp_processor_id(), current->comm, what, kobject_type_name(type), p, want_gen,
	       found_gen, kcache_gen_free(found_gen) ? "freed" : "freed and reused");
}

void object_get_stats(struct object_stats *s)
{
	memset(s, 0, sizeof(*s));
	for (int t = 1; t < NR_KOBJ_TYPES; t++) {
		s->created[t] = atomic_long_read(&types[t].created);
		s->freed[t] = atomic_long_read(&types[t].freed);
		s->live[t] = s->created[t] - s->freed[t];
	}
	s->uaf_caught = atomic_long_read(&uaf_caught);
	s->deferred = atomic_long_read(&deferred);
}

bool object_frees_pending(void)
{
	return atomic_long_read(&deferred) > 0;
}

/*
 * A free may queue another (a capability node's free drops its object's
 * last reference; an emptied cache page waits one more grace period), so
 * one rcu_barrier() is not enough: wait until nothing is queued.
 */
void object_settle(void)
{
	while (atomic_long_read(&deferred) || kcache_pages_pending())
		rcu_barrier();
}

void object_init(void)
{
	holds_init();
	cap_inject_announce();
	cap_init();
	endpoint_init();
	notification_init();
	memory_init();
	task_obj_init();
	thread_obj_init();
	interrupt_obj_init();
	device_obj_init();
	console_obj_init();
	program_obj_init();
	quota_obj_init();
}
