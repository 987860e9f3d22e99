/*
 * The name server's table (main.c), for its demo (demo.c): an RCU list
 * of names, read with no lock, updated by copy under a sleeping mutex.
 */
#ifndef NAMESERVER_NAMES_H
#define NAMESERVER_NAMES_H

#include "qservices.h"
#include "urcu/urcu-common.h"	/* struct rcu_head */
#include "urcu/rculist.h"

struct name {
	struct list_head node;		/* in names: RCU readers, update_lock writers */
	struct rcu_head rcu;
	char name[Q_NAME_MAX + 1];
	int slot;			/* our copy of the registered capability */
	unsigned long badge;		/* who registered it */
	unsigned long live;		/* Q_ENTRY_LIVE until freed (qserver.h) */
};

/* The entry named name: inside rcu_read_lock() (QSBR), or with update_lock held. */
struct name *find(const char *name);
/*
 * NS_REGISTER, NS_REPLACE or NS_UNREGISTER of name by badge, with the
 * capability in cap: the answer.  Takes update_lock: never inside a
 * read-side section (q_mutex_lock() may sleep).  What it replaces or
 * removes is freed by call_rcu(), which counts it in ns_freed.
 */
long update(unsigned int label, unsigned long badge, const char *name, int cap);
extern unsigned long ns_freed;

/* `nameserver --demo` (demo.c, make run DEMO=urcu_server): its exit status. */
int ns_demo(void);

#endif
