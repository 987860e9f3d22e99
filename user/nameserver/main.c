/*
 * The name server (docs/microkernel.md, "Services in user space"): serves
 * the endpoint in slot 0, which the root task gives it.  A server
 * registers a capability under a name (NS_REGISTER, the capability with
 * the message: the name server keeps it) or replaces the one it
 * registered (NS_REPLACE); a client looks a name up (NS_LOOKUP) and gets
 * a copy of that capability in its reply.  A name is taken until the
 * badge that registered it unregisters it.  The name server never calls
 * anyone: a client that dies, or never reads its reply, cannot hold it up.
 *
 * On RCU (docs/urcu.md, "Servers on RCU"): a serving thread per CPU
 * receives on the one endpoint; lookups walk the names with no lock,
 * registrations, replacements and removals copy and publish under
 * update_lock, and an entry replaced or removed is freed -- and its
 * capability deleted -- a grace period later, by call_rcu().  A lookup
 * replies from inside its read-side section: the reply copies the
 * entry's capability, whose slot must not be deleted (and given to
 * another registration) until the reply is made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qservices.h"
#include "qserver.h"
#include "qlock.h"
#include "urcu-qsbr.h"
#include "names.h"

#define EP		0
#define MAX_NAMES	32
#define MAX_THREADS	4	/* serving threads: what SERVICE_QUOTA_KB pays for (user/root.c) */

static LIST_HEAD(names);
static struct q_mutex update_lock;	/* names' writers, and nnames */
static int nnames;
static unsigned long lookups, registrations;	/* (relaxed atomics: statistics) */
unsigned long ns_freed;			/* entries freed (a relaxed atomic: the demo's) */

struct name *find(const char *name)
{
	struct name *n;

	list_for_each_entry_rcu(n, &names, node)
		if (!strcmp(n->name, name))
			return n;
	return NULL;
}

/* call_rcu()'s callback: no reader can hold n any more. */
static void free_name(struct rcu_head *head)
{
	struct name *n = container_of(head, struct name, rcu);

	q_cap_delete(n->slot);
	q_entry_free(n, sizeof(*n), &n->live);
	__atomic_fetch_add(&ns_freed, 1, __ATOMIC_RELAXED);
}

static struct name *new_name(unsigned long badge, const char *name, int cap)
{
	struct name *n = malloc(sizeof(*n));

	if (!n)
		return NULL;
	strcpy(n->name, name);
	n->slot = cap;
	n->badge = badge;
	n->live = Q_ENTRY_LIVE;		/* all of it before list_*_rcu() publishes it */
	return n;
}

static long do_register(unsigned long badge, const char *name, int cap)
{
	struct name *n;

	if (cap < 0)
		return -SYS_EINVAL;	/* nothing to register (or it could not land) */
	if (find(name))
		return -SYS_EEXIST;
	if (nnames == MAX_NAMES || !(n = new_name(badge, name, cap)))
		return -SYS_ENOSPC;
	list_add_tail_rcu(&n->node, &names);
	nnames++;
	__atomic_fetch_add(&registrations, 1, __ATOMIC_RELAXED);
	printf("nameserver: \"%s\" registered (badge %lu, our slot %d)\n", name, badge, cap);
	return 0;
}

/* The entry name, if badge registered it: 0, or -ENOENT, -EPERM. */
static long owned(struct name *n, unsigned long badge)
{
	return !n ? -SYS_ENOENT : n->badge != badge ? -SYS_EPERM : 0;
}

static long do_replace(unsigned long badge, const char *name, int cap)
{
	struct name *old = find(name), *n;
	long r = owned(old, badge);

	if (cap < 0)
		return -SYS_EINVAL;
	if (r)
		return r;
	n = new_name(badge, name, cap);
	if (!n)
		return -SYS_ENOSPC;
	list_replace_rcu(&old->node, &n->node);	/* a lookup finds the old or the new */
	call_rcu(&old->rcu, free_name);
	return 0;
}

static long do_unregister(unsigned long badge, const char *name)
{
	struct name *n = find(name);
	long r = owned(n, badge);

	if (r)
		return r;
	list_del_rcu(&n->node);
	nnames--;
	call_rcu(&n->rcu, free_name);
	return 0;
}

long update(unsigned int label, unsigned long badge, const char *name, int cap)
{
	long r;

	q_mutex_lock(&update_lock);
	if (label == NS_REGISTER)
		r = do_register(badge, name, cap);
	else if (label == NS_REPLACE)
		r = do_replace(badge, name, cap);
	else
		r = do_unregister(badge, name);
	q_mutex_unlock(&update_lock);
	return r;
}

/*
 * A lookup, answered from inside the read-side section: the reply copies
 * n->slot, which free_name() deletes only a grace period after n left
 * the list.  Then n is checked: a grace period that ended under us shows.
 */
static long lookup_and_reply(const char *name, struct q_msg *reply)
{
	struct name *n;
	long r;

	rcu_read_lock();
	n = find(name);
	if (n)
		q_msg_give_cap(reply, n->slot);	/* a copy, derived from ours */
	reply->w[0] = n ? 0 : -SYS_ENOENT;
	r = q_reply(reply);
	if (n)
		q_entry_check("nameserver", READ_ONCE(n->live));
	rcu_read_unlock();
	__atomic_fetch_add(&lookups, 1, __ATOMIC_RELAXED);
	return r;
}

/* Answers req in reply; true if it replied already (a lookup). */
static bool handle(unsigned long badge, const struct q_msg *req, struct q_msg *reply)
{
	unsigned int label = q_msg_label(req);
	int cap = q_msg_cap(req);
	char name[Q_NAME_MAX + 1];

	q_name_unpack(req, name);
	if (label == NS_REGISTER || label == NS_REPLACE) {
		reply->w[0] = update(label, badge, name, cap);
		if ((long)reply->w[0] < 0 && cap >= 0)
			q_cap_delete(cap);	/* refused: its copy goes */
		return false;
	}
	if (cap >= 0)
		q_cap_delete(cap);	/* a capability nobody asked for */
	if (label == NS_LOOKUP) {
		lookup_and_reply(name, reply);
		return true;
	}
	reply->w[0] = label == NS_UNREGISTER ? update(label, badge, name, -1) : -SYS_EINVAL;
	return false;
}

/* One serving thread (q_serve_on_cpus()): a request, its answer, a quiescent state. */
static long serve(void *arg)
{
	(void)arg;
	return q_serve_replying(EP, handle);
}

int main(int argc, char **argv)
{
	char says[64];
	int threads;
	long r;

	if (q_mutex_init(&update_lock)) {
		printf("nameserver: no notification for its lock\n");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "--demo"))
		return ns_demo();
	snprintf(says, sizeof(says), "nameserver: task %d serves its slot %d", q_task_id(), EP);
	r = q_serve_on_cpus(says, serve, NULL, MAX_THREADS, &threads);
	printf("nameserver: ends (%ld): %lu registrations, %lu lookups, %d threads\n", r,
	       registrations, lookups, threads);
	return r == -SYS_EPIPE ? 0 : 1;
}
