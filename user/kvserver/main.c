/*
 * The key-value server (docs/microkernel.md, "Services in user space"):
 * slot 0 is a capability to the name server, from the root task.  It
 * makes an endpoint, registers a send-only copy of it as "kv" (so no
 * client can receive its calls), and serves 64-bit keys and values:
 * KV_PUT, KV_GET, KV_DEL, KV_STATS (user/include/qservices.h).
 *
 * On RCU (docs/urcu.md, "Servers on RCU"): a serving thread per CPU
 * receives on the endpoint; gets read the table (table.h) with no lock,
 * puts and deletes copy under update_lock and free what they replace a
 * grace period later.  `kvserver --bench` measures the table's readers
 * instead of serving (bench.c, make bench).
 */
#include <stdio.h>
#include <string.h>
#include "qservices.h"
#include "qserver.h"
#include "qlock.h"
#include "urcu-qsbr.h"
#include "table.h"

#define NS		0
#define MAX_THREADS	4	/* serving threads: what user/root.c's SERVER_QUOTA_KB pays for */

static struct kv_table table = { .retire = kv_free_qsbr };
static struct q_mutex update_lock;	/* table's writers */
static unsigned long served;		/* (a relaxed atomic: a statistic) */

int kv_bench(int argc, char **argv);	/* bench.c */

/*
 * A get replies from inside its read-side section (q_serve_replying())
 * and checks its entry after: a grace period that ends under the reader
 * would have the length of a system call to show in, not a few loads.
 */
static void get_and_reply(unsigned long key, struct q_msg *reply)
{
	struct kv_entry *e;

	rcu_read_lock();
	e = kv_find(&table, key);
	reply->w[0] = e ? 0 : -SYS_ENOENT;
	reply->w[1] = e ? READ_ONCE(e->value) : 0;
	q_reply(reply);
	if (e)
		q_entry_check("kvserver", READ_ONCE(e->live));
	rcu_read_unlock();
}

static long update(unsigned int label, unsigned long key, unsigned long value)
{
	long r;

	q_mutex_lock(&update_lock);
	r = label == KV_PUT ? kv_put(&table, key, value) : kv_del(&table, key);
	q_mutex_unlock(&update_lock);
	return r;
}

/* Answers req in reply; true if it replied already (a get). */
static bool handle(unsigned long badge, const struct q_msg *req, struct q_msg *reply)
{
	unsigned long key = req->w[1];

	(void)badge;
	__atomic_fetch_add(&served, 1, __ATOMIC_RELAXED);
	switch (q_msg_label(req)) {
	case KV_PUT:
	case KV_DEL:
		reply->w[0] = update(q_msg_label(req), key, req->w[2]);
		break;
	case KV_GET:
		get_and_reply(key, reply);
		return true;
	case KV_STATS:
		reply->w[0] = 0;
		reply->w[1] = __atomic_load_n(&served, __ATOMIC_RELAXED);
		reply->w[2] = READ_ONCE(table.nkeys);
		break;
	default:
		reply->w[0] = -SYS_EINVAL;
	}
	return false;
}

/* One serving thread (q_serve_on_cpus()): its blocking IPC is its quiescent state. */
static long serve(void *ep)
{
	return q_serve_replying(*(int *)ep, handle);
}

int main(int argc, char **argv)
{
	int ep, send_only, threads;
	char says[80];
	long r;

	if (argc > 1 && !strcmp(argv[1], "--bench"))
		return kv_bench(argc - 1, argv + 1);
	ep = q_endpoint_create(SYS_CAP_ANY_SLOT);
	send_only = ep < 0 ? ep : q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 0);
	if (send_only < 0 || q_mutex_init(&update_lock)) {
		printf("kvserver: no endpoint or notification (error %d)\n", send_only);
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
	snprintf(says, sizeof(says), "kvserver: task %d serves \"kv\" (its endpoint in slot %d)",
		 q_task_id(), ep);
	r = q_serve_on_cpus(says, serve, &ep, MAX_THREADS, &threads);
	printf("kvserver: ends (%ld) after %lu calls\n", r, served);
	return 1;
}
