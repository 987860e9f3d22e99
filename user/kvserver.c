/*
 * The key-value server (docs/microkernel.md, "Services in user space"):
 * slot 0 is a capability to the name server, from the root task.  It
 * makes an endpoint, registers a send-only copy of it as "kv" (so no
 * client can receive its calls), and serves 64-bit keys and values:
 * KV_PUT, KV_GET, KV_DEL, KV_STATS (user/include/qservices.h).
 */
#include <stdio.h>
#include "qservices.h"

#define NS		0
#define MAX_KEYS	256

static struct { unsigned long key, value; int used; } table[MAX_KEYS];
static unsigned long served, nkeys;

static int find(unsigned long key)
{
	for (int i = 0; i < MAX_KEYS; i++)
		if (table[i].used && table[i].key == key)
			return i;
	return -1;
}

static long put(unsigned long key, unsigned long value)
{
	int i = find(key);

	for (int j = 0; i < 0 && j < MAX_KEYS; j++)
		if (!table[j].used)
			i = j;
	if (i < 0)
		return -SYS_ENOSPC;
	if (!table[i].used)
		nkeys++;
	table[i].key = key;
	table[i].value = value;
	table[i].used = 1;
	return 0;
}

static long handle(unsigned long badge, const struct q_msg *req, struct q_msg *reply, void *arg)
{
	unsigned long key = req->w[1];
	int i = find(key);

	(void)badge;
	(void)arg;
	served++;
	switch (q_msg_label(req)) {
	case KV_PUT:
		reply->w[0] = put(key, req->w[2]);
		break;
	case KV_GET:
		reply->w[0] = i < 0 ? -SYS_ENOENT : 0;
		reply->w[1] = i < 0 ? 0 : table[i].value;
		break;
	case KV_DEL:
		reply->w[0] = i < 0 ? -SYS_ENOENT : 0;
		if (i >= 0) {
			table[i].used = 0;
			nkeys--;
		}
		break;
	case KV_STATS:
		reply->w[0] = 0;
		reply->w[1] = served;
		reply->w[2] = nkeys;
		break;
	default:
		reply->w[0] = -SYS_EINVAL;
	}
	return 0;
}

int main(void)
{
	int ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	int send_only = ep < 0 ? ep : q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 0);
	long r;

	if (send_only < 0) {
		printf("kvserver: no endpoint (error %d)\n", send_only);
		return 1;
	}
	/*
	 * The name server gets a copy derived from send_only, and every
	 * client's copy derives from that: revoking send_only would cut
	 * every client off at once, so it stays here.
	 */
	r = q_ns_register(NS, "kv", send_only);
	if (r) {
		printf("kvserver: cannot register \"kv\" (error %ld)\n", r);
		return 1;
	}
	printf("kvserver: task %d serves \"kv\" (its endpoint in slot %d)\n", q_task_id(), ep);
	r = q_serve(ep, handle, NULL);
	printf("kvserver: ends (%ld) after %lu calls\n", r, served);
	return 1;
}
