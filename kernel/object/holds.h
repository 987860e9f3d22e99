/*
 * Who holds whom (kernel/object/holds.c; docs/microkernel.md's table of
 * the same name): the checking build's record of the pointers one kernel
 * object stores to another.  The rule (NOVA counts every such pointer):
 * a pointer from one object to another that can outlive a read-side
 * critical section holds a reference on what it names.  So an object is
 * freed only once nothing names it any more -- and if something still
 * does, the reference it should have held is missing: the checking build
 * panics at that free, with both names:
 *
 *   BUG: freeing task 14 (caller) while user thread 15's ->task still names it
 *
 * Each place that stores such a pointer says so (holds_link()) and each
 * place that clears it says so too (holds_unlink()); the frees of the
 * kinds below ask holds_check_free() first.  In the production build
 * all three are empty.  The record is a hash of the targets, from a pool
 * of HOLDS_MAX entries: past that (never in the tests) further pointers
 * go unrecorded, said once.
 */
#ifndef KERNEL_OBJECT_HOLDS_H
#define KERNEL_OBJECT_HOLDS_H

#include "kernel.h"

/* What a holder or a target is, for the names in the report. */
enum hold_kind {
	HOLD_OBJECT,		/* a struct kobject (any type: its name and number) */
	HOLD_TASK,		/* a struct user_task */
	HOLD_USER_THREAD,	/* a struct user_thread */
	HOLD_MM,		/* a struct mm_struct */
	HOLD_CAP,		/* a capability node (struct cap) */
	HOLD_LINE,		/* a device interrupt line's action (the pointer is the line number) */
	HOLD_KERNEL,		/* a pointer the kernel keeps in a variable (the pointer is its name) */
};

void __holds_link(enum hold_kind hk, const void *holder, const char *field, enum hold_kind tk,
		  const void *target);
void __holds_unlink(const void *holder, const char *field, const void *target);
void __holds_check_free(enum hold_kind tk, const void *target);

/* holder->field now names target, with a reference. */
static inline void holds_link(enum hold_kind hk, const void *holder, const char *field,
			      enum hold_kind tk, const void *target)
{
	if (CONFIG_RCU_CHECKING)
		__holds_link(hk, holder, field, tk, target);
}

/* holder->field no longer names target (its reference goes, or goes elsewhere). */
static inline void holds_unlink(const void *holder, const char *field, const void *target)
{
	if (CONFIG_RCU_CHECKING)
		__holds_unlink(holder, field, target);
}

/* target's last reference went: nothing may name it now (panics otherwise). */
static inline void holds_check_free(enum hold_kind tk, const void *target)
{
	if (CONFIG_RCU_CHECKING)
		__holds_check_free(tk, target);
}

/* Pointers recorded now (tests). */
long holds_count(void);
void holds_init(void);		/* (object_init(), before the first object) */

#endif
