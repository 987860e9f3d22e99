/*
 * The name server (docs/microkernel.md, "Services in user space"): serves
 * the endpoint in slot 0, which the root task gives it.  A server
 * registers a capability under a name (NS_REGISTER, the capability with
 * the message: the name server keeps it); a client looks a name up
 * (NS_LOOKUP) and gets a copy of that capability in its reply.  A name is
 * taken until the badge that registered it unregisters it.  The name
 * server never calls anyone: a client that dies, or never reads its
 * reply, cannot hold it up.
 */
#include <stdio.h>
#include <string.h>
#include "qservices.h"

#define EP		0
#define MAX_NAMES	32

struct name {
	char name[Q_NAME_MAX + 1];
	int slot;			/* our copy of the registered capability; -1: free */
	unsigned long badge;		/* who registered it */
};

static struct name names[MAX_NAMES];
static unsigned long lookups, registrations;

static struct name *find(const char *name)
{
	for (int i = 0; i < MAX_NAMES; i++)
		if (names[i].slot >= 0 && !strcmp(names[i].name, name))
			return &names[i];
	return NULL;
}

static long do_register(unsigned long badge, const char *name, int cap)
{
	if (cap < 0)
		return -SYS_EINVAL;	/* nothing to register (or it could not land) */
	if (find(name))
		return -SYS_EEXIST;
	for (int i = 0; i < MAX_NAMES; i++) {
		if (names[i].slot < 0) {
			strcpy(names[i].name, name);
			names[i].slot = cap;
			names[i].badge = badge;
			registrations++;
			printf("nameserver: \"%s\" registered (badge %lu, our slot %d)\n", name, badge,
			       cap);
			return 0;
		}
	}
	return -SYS_ENOSPC;
}

static long handle(unsigned long badge, const struct q_msg *req, struct q_msg *reply, void *arg)
{
	int cap = q_msg_cap(req);
	char name[Q_NAME_MAX + 1];
	struct name *n;
	long r;

	(void)arg;
	q_name_unpack(req, name);
	switch (q_msg_label(req)) {
	case NS_REGISTER:
		r = do_register(badge, name, cap);
		if (r < 0 && cap >= 0)
			q_cap_delete(cap);	/* refused: its copy goes */
		reply->w[0] = r;
		return 0;
	case NS_LOOKUP:
		n = find(name);
		lookups++;
		if (n)
			q_msg_give_cap(reply, n->slot);	/* a copy, derived from ours */
		reply->w[0] = n ? 0 : -SYS_ENOENT;
		break;
	case NS_UNREGISTER:
		n = find(name);
		r = !n ? -SYS_ENOENT : n->badge != badge ? -SYS_EPERM : 0;
		if (!r) {
			q_cap_delete(n->slot);
			n->slot = -1;
		}
		reply->w[0] = r;
		break;
	default:
		reply->w[0] = -SYS_EINVAL;
	}
	if (cap >= 0)
		q_cap_delete(cap);	/* a capability nobody asked for */
	return 0;
}

int main(void)
{
	long r;

	for (int i = 0; i < MAX_NAMES; i++)
		names[i].slot = -1;
	q_recv_slot(SYS_CAP_ANY_SLOT);	/* registrations bring capabilities */
	printf("nameserver: task %d serves its slot %d\n", q_task_id(), EP);
	r = q_serve(EP, handle, NULL);
	printf("nameserver: ends (%ld): %lu registrations, %lu lookups\n", r, registrations, lookups);
	return r == -SYS_EPIPE ? 0 : 1;
}
