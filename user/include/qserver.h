/*
 * What the servers on RCU share (user/lib/server.c, docs/urcu.md,
 * "Servers on RCU"): a serving thread per CPU, and entries that say when
 * a reader met one freed.
 *
 * Each server keeps its table as an RCU list: lookups read it with no
 * lock from every serving thread, each a registered QSBR thread (its
 * blocking IPC puts it offline while it waits for a request); updates
 * copy, publish with the list's rcu_assign_pointer(), and free the old
 * entry through call_rcu().  Freeing poisons: an entry carries
 * Q_ENTRY_LIVE from before it is published until its grace period has
 * passed, then Q_ENTRY_FREED and poison bytes; a reader checks it
 * (q_entry_check()) after it has used the entry, so a grace period
 * missing shows as a named panic, not as a quiet wrong answer.
 */
#ifndef QSERVER_H
#define QSERVER_H

#include <stdbool.h>
#include <stddef.h>
#include "qcap.h"

#define Q_ENTRY_LIVE	0x4c495645UL	/* "LIVE" */
#define Q_ENTRY_FREED	0x6b6b6b6bUL	/* the poison byte, as Linux's POISON_FREE */
#define Q_POISON_BYTE	0x6b
#define Q_SERVE_MAX_THREADS	16

/*
 * Runs serve(arg) on the calling thread (on CPU 0) and on one more thread
 * per other CPU, up to max threads in all and as many as the task's quota
 * pays for: each registered with QSBR, its receive slot set for any
 * capability.  Returns when every thread's serve() has: the first one's
 * value.  *threads: how many served.  Once they are started it prints
 * says and how many serve, on one line ("..., from 4 threads (CPUs 0-3)").
 */
long q_serve_on_cpus(const char *says, long (*serve)(void *arg), void *arg, int max,
		     int *threads);

/*
 * q_serve() (qcap.h) for a server whose handler may reply itself, with
 * q_reply(), from inside its read-side section: then it returns true,
 * and the next request is received with q_recv() (q_reply_recv() would
 * put a QSBR thread offline before the reply is made).  A lookup whose
 * reply copies a capability must reply so: the capability's slot is
 * deleted a grace period after its entry is removed, and a reply made
 * offline could copy the slot deleted, or given to another.
 */
long q_serve_replying(int ep, bool (*handle)(unsigned long badge, const struct q_msg *req,
					     struct q_msg *reply));

/* Panics, naming who, unless live is Q_ENTRY_LIVE (a reader met a freed entry). */
void q_entry_check(const char *who, unsigned long live);
/* Marks an entry of size bytes freed, its live word at live, poisons the rest, frees it. */
void q_entry_free(void *entry, size_t size, unsigned long *live);

#endif
