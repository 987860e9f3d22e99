/*
 * Capabilities (cap.h): nodes, the derivation tree, and the operations on
 * both.  Everything here holds cap_mutex; the slots are published and
 * unpublished through cspace_set(), so the lock-free lookup (cspace.c)
 * sees each change in one store.
 */
#include "object/cap.h"
#include "object/memory.h"
#include "object/thread.h"
#include "object/types.h"
#include "user/task.h"
#include "user/user.h"
#include <errno.h>

DEFINE_MUTEX(cap_mutex);
static struct kcache cap_cache;
static atomic_long_t nr_derived, nr_deleted, nr_revokes, nr_revoked, nr_busy;

/* Deletions a revoke makes between two releases of cap_mutex. */
#define REVOKE_BATCH		16
/* A revoke (or a dying space) that meets the root of another revoke waits this long, and looks again. */
#define PINNED_WAIT_MS		1

bool cap_mutex_held(void)
{
	return READ_ONCE(cap_mutex.owner) == current;
}

void (*cap_revoke_batch_hook)(struct cspace *cs, long slot);

/* Between two batches of a revoke: others' updates get the mutex, and the CPU may go. */
static void relax_cap_mutex(void)
{
	mutex_unlock(&cap_mutex);
	user_cond_resched();	/* (as long as the program made the tree: kernel/user/resched.c) */
	mutex_lock(&cap_mutex);
}

/* cap_mutex held: a node charged to cs's quota, never waiting for it (NULL: -ENOMEM). */
static struct cap *node_alloc(struct cspace *cs)
{
	struct cap *c;

	if (!quota_try_charge(cs->quota, QUOTA_OBJECTS, cap_cache.size))
		return NULL;
	c = kcache_alloc(&cap_cache);
	if (!c) {
		quota_uncharge(cs->quota, QUOTA_OBJECTS, cap_cache.size);
		return NULL;
	}
	c->quota = cs->quota;
	quota_get(c->quota);
	INIT_LIST_HEAD(&c->children);
	INIT_LIST_HEAD(&c->sibling);
	return c;
}

/* A grace period after the delete: no lookup can still hold the node. */
static void node_free_rcu(struct rcu_head *rh)
{
	struct cap *c = container_of(rh, struct cap, rcu);
	struct quota *q = c->quota;

	kcache_free(&cap_cache, c);
	quota_uncharge(q, QUOTA_OBJECTS, cap_cache.size);
	quota_free_done(q);
	quota_put(q);
	object_deferred_done();
}

/* Fills node c (a child of parent, or an original) and publishes it in slot. */
static void node_install(struct cap *c, struct cspace *cs, int slot, struct kobject *obj,
			 unsigned int rights, unsigned long badge, struct cap *parent)
{
	c->obj = obj;
	c->obj_gen = obj->head.gen;
	c->type = obj->head.type;
	c->rights = rights;
	c->badge = badge;
	c->cs = cs;
	c->parent = parent;
	if (parent) {
		list_add_tail(&c->sibling, &parent->children);
		atomic_long_inc(&nr_derived);
	}
	kobject_cap_added(obj, rights);
	cspace_set(cs, slot, c);
}

void cap_delete_locked(struct cap *c)
{
	struct cap *child, *n;

	cspace_set(c->cs, c->slot, NULL);
	/* Its children stay derived from its parent: a revoke above still reaches them. */
	list_for_each_entry_safe(child, n, &c->children, sibling) {
		list_del(&child->sibling);
		child->parent = c->parent;
		if (c->parent)
			list_add_tail(&child->sibling, &c->parent->children);
		else
			INIT_LIST_HEAD(&child->sibling);
	}
	if (c->parent)
		list_del(&c->sibling);
	if (c->map_mm)
		memory_cap_unmap(c);	/* waits for the TLB shootdown */
	kobject_cap_removed(c->obj, c->rights);
	atomic_long_inc(&nr_deleted);
	quota_free_queued(c->quota);
	object_call_rcu(&c->rcu, node_free_rcu);
}

/*
 * A revoke, or a dying space, that must delete the root of another revoke
 * (pinned: it released the mutex between two batches) waits until that
 * revoke ended, then looks again from where it stands: the other revoke
 * only deletes, so it ends.
 */
void cap_wait_unpinned(void)
{
	atomic_long_inc(&nr_busy);
	mutex_unlock(&cap_mutex);
	msleep(PINNED_WAIT_MS);
	mutex_lock(&cap_mutex);
}

static unsigned int type_rights(unsigned int type)
{
	switch (type) {
	case KOBJ_ENDPOINT:	return SYS_CAP_READ | SYS_CAP_WRITE | SYS_CAP_GRANT;
	case KOBJ_NOTIFICATION:	return SYS_CAP_READ | SYS_CAP_WRITE;
	case KOBJ_MEMORY:	return SYS_CAP_READ | SYS_CAP_WRITE | SYS_CAP_EXEC;
	case KOBJ_TASK:		return SYS_CAP_READ | SYS_CAP_WRITE;
	case KOBJ_THREAD:	return SYS_CAP_READ | SYS_CAP_WRITE;
	case KOBJ_INTERRUPT:	return SYS_CAP_WRITE;
	case KOBJ_DEVICE:	return SYS_CAP_WRITE;
	case KOBJ_CONSOLE:	return SYS_CAP_WRITE;
	case KOBJ_PROGRAM:	return SYS_CAP_READ | SYS_CAP_EXEC;
	case KOBJ_QUOTA:	return SYS_CAP_READ | SYS_CAP_WRITE;
	default:		return 0;
	}
}

int cap_insert_object(struct cspace *cs, long slot, struct kobject *obj, unsigned int rights)
{
	return cap_insert_badged(cs, slot, obj, rights, 0);
}

int cap_insert_badged(struct cspace *cs, long slot, struct kobject *obj, unsigned int rights,
		      unsigned long badge)
{
	bool retried = false;
	struct cap *c;
	int s;

again:
	mutex_lock(&cap_mutex);
	s = cspace_reserve(cs, slot);
	if (s >= 0) {
		c = node_alloc(cs);
		if (c)
			node_install(c, cs, s, obj, rights & type_rights(obj->head.type), badge, NULL);
		else
			s = -ENOMEM;
	}
	mutex_unlock(&cap_mutex);
	if (quota_retry_after_reclaim(s, cs->quota, &retried))
		goto again;
	return s;
}

int cap_create(struct cspace *cs, unsigned int type, long slot, long arg)
{
	struct kobject *obj;
	int err = 0, s;

	switch (type) {
	case KOBJ_ENDPOINT:
		obj = endpoint_create(cs->quota, &err);
		break;
	case KOBJ_NOTIFICATION:
		obj = notification_create(cs->quota, &err);
		break;
	case KOBJ_MEMORY:
		obj = memory_create(cs->quota, arg, &err);
		break;
	case KOBJ_THREAD:
		obj = thread_obj_of_tid(cs->task, arg, &err);
		break;
	case KOBJ_QUOTA:
		obj = quota_obj_carve(cs->quota, arg, &err);
		break;
	default:
		return -EINVAL;		/* (a task comes from SYS_cap_spawn, a program from the boot) */
	}
	if (!obj)
		return err;
	s = cap_insert_object(cs, slot, obj, SYS_CAP_ALL);
	kobject_put(obj);		/* the creator's: the capability holds its own */
	return s;
}

/* A copy or a mint of src, child of it, in dst: rights narrowed to `rights`, badge set if none. */
static int derive(struct cspace *cs, long src, long dst, unsigned long rights,
		  unsigned long badge)
{
	bool retried = false;
	struct cap *s, *c;
	int slot;

	if (rights & ~(unsigned long)SYS_CAP_ALL || badge > SYS_BADGE_MAX)
		return -EINVAL;
again:
	mutex_lock(&cap_mutex);
	s = cspace_get(cs, src);
	if (!s) {
		slot = -EBADF;
	} else if (s->revoking) {
		atomic_long_inc(&nr_busy);
		slot = -EBUSY;		/* nothing escapes a revoke */
	} else if (badge && s->badge && badge != s->badge) {
		slot = -EPERM;		/* a badge is never changed, only given once */
	} else {
		slot = cspace_reserve(cs, dst);
	}
	if (slot >= 0) {
		c = node_alloc(cs);
		if (c)
			node_install(c, cs, slot, s->obj, s->rights & rights,
				     badge ? badge : s->badge, s);
		else
			slot = -ENOMEM;
	}
	mutex_unlock(&cap_mutex);
	if (quota_retry_after_reclaim(slot, cs->quota, &retried))
		goto again;
	return slot;
}

int cap_copy(struct cspace *cs, long src, long dst)
{
	return derive(cs, src, dst, SYS_CAP_ALL, 0);
}

int cap_mint(struct cspace *cs, long src, long dst, unsigned long rights, unsigned long badge)
{
	return derive(cs, src, dst, rights, badge);
}

int cap_move(struct cspace *cs, long src, long dst)
{
	bool retried = false;
	struct cap *s;
	int slot;

again:
	mutex_lock(&cap_mutex);
	s = cspace_get(cs, src);
	if (!s)
		slot = -EBADF;
	else if (s->revoking)
		slot = -EBUSY;
	else if (dst == src)
		slot = src;
	else
		slot = cspace_reserve(cs, dst);
	if (slot >= 0 && slot != src) {
		cspace_set(cs, src, NULL);
		cspace_set(cs, slot, s);
	}
	mutex_unlock(&cap_mutex);
	if (quota_retry_after_reclaim(slot, cs->quota, &retried))	/* (a larger table) */
		goto again;
	return slot;
}

/* Can s go (cap_transfer_check())?  0, or why not. */
static int transfer_refused(const struct cap *s, bool move)
{
	if (!s)
		return -EBADF;
	if (s->revoking || (move && s->map_mm))
		return -EBUSY;	/* being revoked; or mapped here, and a mapping never leaves its space */
	return 0;
}

int cap_transfer_check(struct cspace *from, long src, bool move)
{
	return transfer_refused(cspace_get(from, src), move);
}

void cap_transfer_prepare(struct cap_xfer *x, struct cspace *from, long src, struct cspace *to,
			  long dst, bool move)
{
	*x = (struct cap_xfer){ .src = cspace_get(from, src), .from = from, .to = to, .move = move };
	x->slot = transfer_refused(x->src, move);
	if (!x->slot)
		x->slot = cspace_reserve(to, dst);	/* (it stays free: we hold cap_mutex) */
	if (x->slot >= 0 && !move) {
		x->node = node_alloc(to);
		if (!x->node)
			x->slot = -ENOMEM;
	}
}

int cap_transfer_commit(struct cap_xfer *x)
{
	struct cap *s = x->src;

	if (x->slot < 0)
		return x->slot;
	if (x->move) {
		cspace_set(x->from, s->slot, NULL);
		s->cs = x->to;
		cspace_set(x->to, x->slot, s);
	} else {
		node_install(x->node, x->to, x->slot, s->obj, s->rights, s->badge, s);
		x->node = NULL;
	}
	return x->slot;
}

void cap_transfer_cancel(struct cap_xfer *x)
{
	if (x->node) {
		quota_free_queued(x->node->quota);	/* (node_free_rcu() counts it done) */
		object_free_now(&x->node->rcu, node_free_rcu);	/* never published: nobody holds it */
	}
	x->node = NULL;
	x->slot = -ENOENT;
}

int cap_transfer(struct cspace *from, long src, struct cspace *to, long dst, bool move)
{
	struct cap_xfer x;
	int slot;

	mutex_lock(&cap_mutex);
	cap_transfer_prepare(&x, from, src, to, dst, move);
	slot = cap_transfer_commit(&x);
	mutex_unlock(&cap_mutex);
	return slot;
}

static int revoke_subtree(struct cspace *cs, long slot, struct cap *root);

void (*cap_revoke_object_hook)(struct cspace *cs, long slot);

/*
 * The node checked is the node revoked and deleted: cap_mutex is held
 * from the check on (the revoke drops it between batches, but its root
 * is pinned and revoking meanwhile: nobody moves or deletes it).
 */
int cap_revoke_object(struct cspace *cs, long slot, struct kobject *obj)
{
	struct cap *c;

	mutex_lock(&cap_mutex);
	c = cspace_get(cs, slot);
	if (!c || c->obj != obj || c->revoking) {
		mutex_unlock(&cap_mutex);
		return -EBADF;	/* its owner moved, deleted or revokes it: what it did stands */
	}
	if (CONFIG_RCU_CHECKING && cap_revoke_object_hook)
		cap_revoke_object_hook(cs, slot);
	revoke_subtree(cs, slot, c);	/* (copies made meanwhile, by its other threads) */
	cap_delete_locked(c);
	mutex_unlock(&cap_mutex);
	return 0;
}

int cap_delete(struct cspace *cs, long slot)
{
	struct cap *c;
	int err = 0;

	mutex_lock(&cap_mutex);
	c = cspace_get(cs, slot);
	if (!c)
		err = -EBADF;
	else if (c->pinned)
		err = -EBUSY;		/* its revoke is under way (in another thread) */
	else
		cap_delete_locked(c);
	mutex_unlock(&cap_mutex);
	return err;
}

/* The node after c in a pre-order walk of root's subtree (root excluded), or NULL. */
static struct cap *subtree_next(struct cap *root, struct cap *c)
{
	if (!list_empty(&c->children))
		return list_first_entry(&c->children, struct cap, sibling);
	for (; c != root; c = c->parent)
		if (!list_is_last(&c->sibling, &c->parent->children))
			return list_next_entry(c, sibling);
	return NULL;
}

/*
 * Steps of a walk of the derivation tree between two chances for the CPU
 * to go: a tree is as large and as deep as its programs made it (their
 * quotas bound it).  cap_mutex stays held (a mutex: sleeping is allowed),
 * so the tree cannot change meanwhile.
 */
#define WALK_RESCHED	64

static void mark_subtree(struct cap *root, int delta)
{
	unsigned long n = 0;

	for (struct cap *c = root; c; c = subtree_next(root, c)) {
		c->revoking += delta;
		if (++n % WALK_RESCHED == 0)
			user_cond_resched();
	}
}

/* A leaf of root's subtree: deleting leaves first keeps the tree whole as it shrinks. */
static struct cap *subtree_leaf(struct cap *root)
{
	struct cap *c = root;
	unsigned long n = 0;

	while (!list_empty(&c->children)) {
		c = list_first_entry(&c->children, struct cap, sibling);
		if (++n % WALK_RESCHED == 0)
			user_cond_resched();	/* (a chain of copies of copies is deep) */
	}
	return c == root ? NULL : c;
}

/*
 * Every capability derived from the one in slot, transitively, in every
 * space, is deleted; the capability itself stays.  First everything under
 * it is marked revoking, in one pass with the mutex held, so that from
 * then on nothing can be derived, moved or sent from any of them; then
 * they are deleted leaves first, in batches, with the mutex released in
 * between (other spaces' updates go on; what they cannot do is make the
 * subtree grow).
 */
int cap_revoke(struct cspace *cs, long slot)
{
	struct cap *root;
	int n;

	mutex_lock(&cap_mutex);
	root = cspace_get(cs, slot);
	if (!root || root->revoking) {
		mutex_unlock(&cap_mutex);
		return root ? -EBUSY : -EBADF;
	}
	n = revoke_subtree(cs, slot, root);
	mutex_unlock(&cap_mutex);
	return n;
}

/* cap_mutex held (released between batches, held again at the end): cap_revoke()'s work. */
static int revoke_subtree(struct cspace *cs, long slot, struct cap *root)
{
	struct cap *leaf;
	int n = 0, batch = 0;

	atomic_long_inc(&nr_revokes);
	root->pinned = true;
	mark_subtree(root, 1);
	while ((leaf = subtree_leaf(root))) {
		if (leaf->pinned) {
			cap_wait_unpinned();
			continue;
		}
		cap_delete_locked(leaf);
		n++;
		if (++batch < REVOKE_BATCH)
			continue;
		batch = 0;
		if (CONFIG_RCU_CHECKING && cap_revoke_batch_hook) {
			mutex_unlock(&cap_mutex);
			cap_revoke_batch_hook(cs, slot);
			mutex_lock(&cap_mutex);
		}
		relax_cap_mutex();
	}
	root->revoking--;
	root->pinned = false;
	atomic_long_add(n, &nr_revoked);
	return n;
}

int cap_inspect(struct cspace *cs, long slot, struct sys_cap_info *info)
{
	struct cap *c, *child;
	int err = 0;

	memset(info, 0, sizeof(*info));
	mutex_lock(&cap_mutex);
	c = cspace_get(cs, slot);
	if (c) {
		info->type = c->type;
		info->rights = c->rights;
		info->badge = c->badge;
		info->object = c->obj->id;
		info->parent_slot = c->parent && c->parent->cs == cs ? c->parent->slot : -1;
		list_for_each_entry(child, &c->children, sibling)
			if (++info->children % WALK_RESCHED == 0)
				user_cond_resched();	/* (cap_mutex held: the list stays) */
		info->revoking = c->revoking > 0;
		info->mapped = c->map_mm != NULL;
		info->addr = c->map_addr;
	} else {
		err = -EBADF;
	}
	mutex_unlock(&cap_mutex);
	return err;
}

/* "rw-g": the rights a capability carries, as the monitor prints them. */
static void rights_str(unsigned int rights, char out[5])
{
	out[0] = rights & SYS_CAP_READ ? 'r' : '-';
	out[1] = rights & SYS_CAP_WRITE ? 'w' : '-';
	out[2] = rights & SYS_CAP_EXEC ? 'x' : '-';
	out[3] = rights & SYS_CAP_GRANT ? 'g' : '-';
	out[4] = 0;
}

/* Where c was derived from: "slot 3", "task 9 slot 0", "-" (it made the object). */
static void parent_str(const struct cap *c, char *out, size_t size)
{
	const struct cap *p = c->parent;

	if (!p)
		snprintf(out, size, "-");
	else if (p->cs == c->cs)
		snprintf(out, size, "slot %d", p->slot);
	else if (p->cs->task)
		snprintf(out, size, "task %d slot %d", p->cs->task->id, p->slot);
	else
		snprintf(out, size, "a kernel space, slot %d", p->slot);
}

void cap_show_space(struct cspace *cs)
{
	char rights[5], from[48], what[64];
	int n = 0;

	mutex_lock(&cap_mutex);
	printk("  slot  type          rights  badge                 object  derived from  [what]\n");
	for (long slot = 0; slot < SYS_CAP_MAX_SLOTS; slot++) {
		struct cap *c = cspace_get(cs, slot);

		if (!c)
			continue;
		rights_str(c->rights, rights);
		parent_str(c, from, sizeof(from));
		kobject_describe(c->obj, what, sizeof(what));
		printk("  %4ld  %-12s  %-6s  %-20lu  %6lu  %s%s%s%s%s\n", slot,
		       kobject_type_name(c->type), rights, c->badge, c->obj->id, from,
		       c->revoking ? " (revoking)" : "", *what ? "  [" : "", what, *what ? "]" : "");
		n++;
	}
	printk("  %d capabilit%s in a table of %u slots\n", n, n == 1 ? "y" : "ies",
	       cspace_nslots(cs));
	mutex_unlock(&cap_mutex);
}

void cap_get_stats(struct cap_stats *s)
{
	s->derived = atomic_long_read(&nr_derived);
	s->deleted = atomic_long_read(&nr_deleted);
	s->revokes = atomic_long_read(&nr_revokes);
	s->revoked = atomic_long_read(&nr_revoked);
	s->busy = atomic_long_read(&nr_busy);
}

void cap_init(void)
{
	/* A node's head stays readable once freed: the lookup checks its generation. */
	kcache_init(&cap_cache, "capability", sizeof(struct cap), sizeof(struct kcache_head),
		    KCACHE_CAP);
}
