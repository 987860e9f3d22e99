/*
 * The RCU lists for programs: lib/rculist.h, the copy the kernel uses
 * too, over the library's publish and subscribe (urcu/pointer.h).  Linux's
 * names: list_add_rcu(), list_del_rcu(), list_replace_rcu(),
 * list_for_each_entry_rcu(), hlist_add_head_rcu(), hlist_del_rcu(),
 * hlist_for_each_entry_rcu(), ...; lib/rculist.h states each one's
 * contract.  Updaters exclude one another (a lock); readers walk inside
 * rcu_read_lock() of their flavor.
 */
#ifndef URCU_RCULIST_H
#define URCU_RCULIST_H

#include "quiescent.h"		/* panic(), which lib/ headers may call */
#include "urcu/pointer.h"

/* Programs have no lockdep: a walk's optional condition is only type-checked. */
#define rcu_list_check(cond)	((void)0)

#include "../../../lib/rculist.h"

#endif
