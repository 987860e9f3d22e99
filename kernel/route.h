/*
 * A routing table: destination address -> interface, in a hash table of
 * hlists, looked up far more often than it changes (perfbook's "route"
 * examples).  Lab rwlock_to_rcu (docs/labs/rwlock_to_rcu.md) hands the
 * student this file's functions as they were under a reader-writer lock;
 * kernel/route.c is the conversion to RCU.
 */
#ifndef KERNEL_ROUTE_H
#define KERNEL_ROUTE_H

#include "types.h"

/* Address addr hashes to bucket addr % ROUTE_BUCKETS (tests build long chains with it). */
#define ROUTE_BUCKETS	64

/* The interface for addr, in *iface; false if addr has no route. */
bool route_lookup(u32 addr, u32 *iface);
/* Adds a route; false if addr has one already or memory ran out. */
bool route_add(u32 addr, u32 iface);
/* Points addr's route at another interface; false if it has none. */
bool route_change(u32 addr, u32 iface);
/* Removes addr's route; false if it has none. */
bool route_del(u32 addr);
/* Routes in the table (updaters' view). */
int route_count(void);

/*
 * Hold the table's update lock, which updaters take (readers, after the
 * conversion, do not): no update runs in between.  Tests use it to show
 * what lookups wait for.
 */
void route_update_begin(void);
void route_update_end(void);

#endif
