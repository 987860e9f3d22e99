/*
 * The routing table (route.h), converted from a reader-writer lock to RCU.
 *
 * Before (lab rwlock_to_rcu's starting point): lookups took read_lock(),
 * updaters write_lock(), and route_del() freed the entry at once, since no
 * reader could be inside.  After: lookups take rcu_read_lock() and never
 * wait or write shared memory; updaters still exclude each other with the
 * write side of the lock, which readers no longer take; an entry is
 * changed by replacing it with an updated copy (readers see the old or
 * the new one, whole), and a removed or replaced entry is freed only
 * after a grace period (kfree_rcu()), since a reader may still hold it.
 */
#include "kernel.h"
#include "route.h"
#include "rwlock.h"

struct route_entry {
	struct hlist_node node;
	u32 addr;
	u32 iface;
	struct rcu_head rcu;
};

static struct hlist_head route_table[ROUTE_BUCKETS];
static DEFINE_RWLOCK(route_lock);	/* updaters: the write side */
static int route_entries;		/* under the write side */

static struct hlist_head *route_bucket(u32 addr)
{
	return &route_table[addr % ROUTE_BUCKETS];
}

/* Updaters only, with the write side held. */
static struct route_entry *route_find_locked(u32 addr)
{
	struct route_entry *e;

	hlist_for_each_entry(e, route_bucket(addr), node)
		if (e->addr == addr)
			return e;
	return NULL;
}

bool route_lookup(u32 addr, u32 *iface)
{
	struct route_entry *e;
	bool found = false;

	rcu_read_lock();
	hlist_for_each_entry_rcu(e, route_bucket(addr), node) {
		if (e->addr == addr) {
			*iface = e->iface;
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

bool route_add(u32 addr, u32 iface)
{
	struct route_entry *e = kmalloc(sizeof(*e), GFP_KERNEL);
	bool added = false;

	if (!e)
		return false;
	e->addr = addr;
	e->iface = iface;
	write_lock(&route_lock);
	if (!route_find_locked(addr)) {
		hlist_add_head_rcu(&e->node, route_bucket(addr));	/* publishes e, whole */
		route_entries++;
		added = true;
	}
	write_unlock(&route_lock);
	if (!added)
		kfree(e);	/* never published */
	return added;
}

bool route_change(u32 addr, u32 iface)
{
	struct route_entry *new = kmalloc(sizeof(*new), GFP_KERNEL), *old;

	if (!new)
		return false;
	write_lock(&route_lock);
	old = route_find_locked(addr);
	if (old) {
		/* Copy, update, publish: a reader sees old or new, never half of each. */
		*new = *old;
		new->iface = iface;
		hlist_replace_rcu(&old->node, &new->node);
	}
	write_unlock(&route_lock);
	if (!old) {
		kfree(new);
		return false;
	}
	kfree_rcu(old, rcu);	/* readers may still hold old */
	return true;
}

bool route_del(u32 addr)
{
	struct route_entry *e;

	write_lock(&route_lock);
	e = route_find_locked(addr);
	if (e) {
		hlist_del_rcu(&e->node);
		route_entries--;
	}
	write_unlock(&route_lock);
	if (e)
		kfree_rcu(e, rcu);	/* readers may still hold e */
	return e != NULL;
}

int route_count(void)
{
	int n;

	write_lock(&route_lock);
	n = route_entries;
	write_unlock(&route_lock);
	return n;
}

void route_update_begin(void)
{
	write_lock(&route_lock);
}

void route_update_end(void)
{
	write_unlock(&route_lock);
}
