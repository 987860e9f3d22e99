/*
 * Lab urcu_server, parts serves and readers (docs/labs/urcu_server.md):
 * first, one client's puts, gets and deletes, keys in one bucket and in
 * others, each answered right.  Then the key-value server's table under
 * a reader per CPU (up to 8) and a writer that,
 * ROUNDS times, replaces one key's value and removes or re-adds another.
 * Every get must find a value of its own key (the old or a new one, never
 * garbage) or, for the key that comes and goes, -ENOENT; and the server
 * must live to the end.  It ends on a library misuse (a read-side section
 * left open across a blocking call) or on poison (an entry freed under
 * its reader: a free with no grace period), each of which it prints
 * first: then every call says -EPIPE.  Many more replacements than
 * tests/user/services.c's, for make grade alone: a free at once is met
 * by some reader, whatever the timing.
 */
#include <stdbool.h>
#include "qcap.h"
#include "utest.h"
#include "qservices.h"

#define NAMESERVER	"user/nameserver"
#define KVSERVER	"user/kvserver"
#define NS_TASK		210
#define KV_TASK		211
#define MAX_READERS	8
#define ROUNDS		800
#define KEY		5UL		/* replaced each round */
#define BLINK		6UL		/* removed and re-added in turn */
#define VALUE(key, i)	((key) << 32 | (unsigned long)(i))

struct race {
	int kv;
	int stop;
	unsigned long gets, bad;	/* (relaxed atomics) */
	long first_bad;			/* what the first bad get said */
};

/* A get of key: 0, or -ENOENT where allowed; a value of that key. */
static bool get_ok(struct race *r, unsigned long key, bool may_miss)
{
	unsigned long v = 0;
	long got = q_kv_get(r->kv, key, &v);

	if (got == 0 && v >> 32 == key)
		return true;
	if (got == -SYS_ENOENT && may_miss)
		return true;
	if (__atomic_fetch_add(&r->bad, 1, __ATOMIC_RELAXED) == 0) {
		r->first_bad = got;
		printf("kv_readers: a get of key %lu said %ld, value %#lx: %s\n", key, got, v,
		       got == -SYS_EPIPE ? "the key-value server ended (its console line above says why)" :
		       got == -SYS_ENOENT ? "a key that is always there was not found: a replacement "
					    "must leave the old or the new entry in the list" :
		       "not a value of this key: an entry read after it was freed, or published "
		       "before it was filled");
	}
	return false;
}

static int reader(void *arg)
{
	struct race *r = arg;
	unsigned long n = 0;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) &&
	       !__atomic_load_n(&r->bad, __ATOMIC_RELAXED)) {
		get_ok(r, KEY, false);
		get_ok(r, BLINK, true);
		n++;
	}
	__atomic_fetch_add(&r->gets, 2 * n, __ATOMIC_RELAXED);
	return 0;
}

/* One client: each answer right, keys in one bucket (KV_BUCKETS, 64, apart) and in others. */
static void one_client(int kv)
{
	unsigned long v, k;

	for (k = 0; k < 4; k++)
		CHECK_EQ(q_kv_put(kv, 100 + 64 * k, k), 0);
	CHECK_EQ(q_kv_put(kv, 101, 7), 0);
	for (k = 0; k < 4; k++) {
		v = ~0UL;
		CHECK_EQ(q_kv_get(kv, 100 + 64 * k, &v), 0);
		CHECK_EQ(v, k);
	}
	CHECK_EQ(q_kv_put(kv, 164, 42), 0);		/* a new value for a key there */
	CHECK_EQ(q_kv_get(kv, 164, &v), 0);
	CHECK_EQ(v, 42);
	CHECK_EQ(q_kv_del(kv, 164), 0);
	CHECK_EQ(q_kv_get(kv, 164, &v), -SYS_ENOENT);
	CHECK_EQ(q_kv_del(kv, 164), -SYS_ENOENT);
	CHECK_EQ(q_kv_get(kv, 99, &v), -SYS_ENOENT);	/* never put */
	CHECK_EQ(q_kv_get(kv, 228, &v), 0);		/* its bucket's others stay */
	CHECK_EQ(v, 2);
	CHECK_EQ(q_kv_get(kv, 101, &v), 0);
	CHECK_EQ(v, 7);
}

static int start_servers(void)
{
	int ep = q_endpoint_create(SYS_CAP_ANY_SLOT), ns, kv;

	CHECK(q_spawn_caps(NAMESERVER, &ep, 1, NS_TASK) > 0);
	ns = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE | SYS_CAP_GRANT, 1);
	CHECK_EQ(q_cap_delete(ep), 0);
	CHECK(q_spawn_caps(KVSERVER, &ns, 1, KV_TASK) > 0);
	kv = q_ns_lookup_wait(ns, "kv", Q_NS_WAIT_MS);
	CHECK(kv >= 0);
	return kv;
}

int main(void)
{
	int ncpus = q_nr_cpus(), n = ncpus < MAX_READERS ? ncpus : MAX_READERS;
	struct race r = { .kv = start_servers() };
	struct sys_exit_status st;
	int tids[MAX_READERS], i;
	long put = 0;

	one_client(r.kv);
	CHECK_EQ(q_kv_put(r.kv, KEY, VALUE(KEY, 0)), 0);
	CHECK_EQ(q_kv_put(r.kv, BLINK, VALUE(BLINK, 0)), 0);
	for (i = 0; i < n; i++) {
		tids[i] = q_thread_create(reader, &r, ncpus > 1 ? (i + 1) % ncpus : 0);
		CHECK(tids[i] > 0);
	}
	for (i = 1; i <= ROUNDS && !put && !__atomic_load_n(&r.bad, __ATOMIC_RELAXED); i++) {
		put = q_kv_put(r.kv, KEY, VALUE(KEY, i));
		if (!put)
			put = i % 2 ? q_kv_del(r.kv, BLINK) : q_kv_put(r.kv, BLINK, VALUE(BLINK, i));
	}
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < n; i++) {
		CHECK_EQ(q_thread_join(tids[i], &st), 0);
		CHECK_EQ(st.status, 0);
	}
	printf("kv_readers: %d readers, %lu gets against %d rounds of updates, %lu bad\n", n,
	       r.gets, ROUNDS, r.bad);
	if (put)
		printf("kv_readers: an update said %ld%s\n", put, put == -SYS_EPIPE ?
		       ": the key-value server ended (its console line above says why)" : "");
	CHECK_EQ(put, 0);
	CHECK_EQ(r.bad, 0);
	CHECK(r.gets > 0);
	CHECK_EQ(q_kill(KV_TASK), 0);
	CHECK_EQ(q_wait_for(KV_TASK, &st), 0);
	CHECK_EQ(q_kill(NS_TASK), 0);
	CHECK_EQ(q_wait_for(NS_TASK, &st), 0);
	return check_result();
}
