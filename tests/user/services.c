/*
 * The services in user space (docs/microkernel.md): the root task runs
 * the name server, the key-value server and two clients, and exits 0 only
 * if every client got its values back and a call to the killed server
 * failed with -EPIPE.  It gets the programs it starts from us, as
 * capabilities, and nothing else: without them it starts nothing.  Then the name server's rules, one by one, against
 * a name server of our own: a registration needs a capability and the
 * endpoint's grant right, a name is taken once, an unknown name is
 * -ENOENT, only the registrant unregisters, and what a lookup returns is
 * a working copy of what was registered; a lookup that waits finds a name
 * registered after it began, and says -ETIMEDOUT when its bound passes.
 *
 * Last, both servers on RCU (docs/urcu.md, "Servers on RCU") under
 * readers on every CPU while a writer replaces and removes what they read:
 * a lookup finds the old capability or the new one, never neither or a
 * third; a get finds the old value or the new one; and neither server
 * ever meets an entry freed under its reader -- each poisons what it
 * frees and checks what it read, and a server that meets poison panics,
 * which its next caller sees as -EPIPE.
 */
#include <string.h>
#include "qcap.h"
#include "utest.h"
#include "qservices.h"

#define ROOT		"user/root"
#define NAMESERVER	"user/nameserver"
#define KVSERVER	"user/kvserver"
#define KVCLIENT	"user/kvclient"
#define NS_TASK		200
#define KV_TASK		201

static int ns_for_later, ntf_for_later;

/* Registers "later" some time after the lookup that waits for it began. */
static int register_later(void *arg)
{
	(void)arg;
	q_sleep_ns(50 * 1000000UL);
	return q_ns_register(ns_for_later, "later", ntf_for_later) ? 1 : 0;
}

static void lookup_waits(int ns, int other, int ntf)
{
	struct sys_exit_status st;
	int tid;

	CHECK_EQ(q_ns_lookup_wait(other, "later", 20), -SYS_ETIMEDOUT);	/* the bound passed */
	ns_for_later = ns;
	ntf_for_later = ntf;
	tid = q_thread_create(register_later, NULL, SYS_CPU_ANY);
	CHECK(tid > 0);
	CHECK(q_ns_lookup_wait(other, "later", Q_NS_WAIT_MS) >= 0);	/* found once registered */
	CHECK_EQ(q_thread_join(tid, &st), 0);
	CHECK_EQ(st.status, 0);
	CHECK_EQ(q_ns_unregister(ns, "later"), 0);
}

/* The root task with the capabilities to the first n of its programs: its exit status. */
static int run_root(int n)
{
	int programs[] = { q_program(NAMESERVER), q_program(KVSERVER), q_program(KVCLIENT) };
	struct sys_exit_status st = { -1, -1 };
	int id = q_spawn_caps(ROOT, programs, n, SYS_RECV_SLOT_NONE);

	CHECK(id > 0);
	CHECK_EQ(q_task_wait(id, &st), 0);
	CHECK_EQ(st.killed, 0);
	return st.status;
}

static void root_task_runs_the_services(void)
{
	CHECK_EQ(run_root(3), 0);
	/* Without the name server's program it cannot start it, and says so. */
	CHECK_EQ(run_root(0), 1);
}

/* The name server's rules, against one of our own: our capability to it, to call it again. */
static int name_server_rules(void)
{
	int ep = q_endpoint_create(SYS_CAP_ANY_SLOT), ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	int ns, other, no_grant, copy;
	struct sys_cap_info info;

	CHECK(q_spawn_caps(NAMESERVER, &ep, 1, NS_TASK) > 0);
	ns = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE | SYS_CAP_GRANT, 1);
	other = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE | SYS_CAP_GRANT, 2);
	no_grant = q_cap_mint(ep, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, 1);
	CHECK_EQ(q_cap_delete(ep), 0);

	CHECK_EQ(q_ns_lookup(ns, "signal"), -SYS_ENOENT);
	CHECK_EQ(q_ns_register(ns, "signal", -1), -SYS_EINVAL);	/* no capability with it */
	CHECK_EQ(q_ns_register(no_grant, "signal", ntf), -SYS_EACCES);	/* the kernel refuses */
	CHECK_EQ(q_ns_register(ns, "a-name-that-is-far-too-long", ntf), -SYS_EINVAL);
	CHECK_EQ(q_ns_register(ns, "signal", ntf), 0);
	CHECK_EQ(q_ns_register(other, "signal", ntf), -SYS_EEXIST);

	copy = q_ns_lookup(other, "signal");
	CHECK(copy >= 0);
	CHECK_EQ(q_cap_inspect(copy, &info), 0);
	CHECK_EQ(info.type, SYS_OBJ_NOTIFICATION);
	CHECK_EQ(q_signal(copy, 4), 0);		/* the copy reaches our notification */
	CHECK_EQ(q_poll(ntf), 4);

	CHECK_EQ(q_ns_unregister(other, "signal"), -SYS_EPERM);	/* badge 2 did not register it */
	CHECK_EQ(q_ns_unregister(ns, "signal"), 0);
	CHECK_EQ(q_ns_lookup(other, "signal"), -SYS_ENOENT);
	lookup_waits(ns, other, ntf);

	return ns;
}

/* The name server killed: every call after is an error at once, never a hang. */
static void dead_name_server(int ns)
{
	struct sys_exit_status st;

	CHECK_EQ(q_kill(NS_TASK), 0);
	CHECK_EQ(q_wait_for(NS_TASK, &st), 0);
	CHECK_EQ(q_ns_lookup(ns, "signal"), -SYS_EPIPE);	/* a dead server: an error, no hang */
	CHECK_EQ(q_ns_lookup_wait(ns, "signal", Q_NS_WAIT_MS), -SYS_EPIPE);	/* at once */
}

/* ---- Readers on every CPU against a writer ---- */

#define MAX_READERS	8
#define utest_failed_yet()	__atomic_load_n(&utest_failures, __ATOMIC_RELAXED)
#define REPLACEMENTS	60	/* each a grace period for the server's call_rcu() */
#define KV_KEY		11
#define BLINK_EVERY	16

struct race {
	int ns, kv;			/* our capabilities to the servers */
	unsigned long objects[2];	/* the objects "flip" names in turn */
	unsigned long values[2];	/* the values KV_KEY holds in turn */
	int stop;
	unsigned long reads, flips_seen;
};

/* The object a capability reaches (its number: unique for the boot). */
static unsigned long object_of(int slot)
{
	struct sys_cap_info info = { 0 };

	CHECK_EQ(q_cap_inspect(slot, &info), 0);
	return info.object;
}

/* One reader: "flip" and "blink" looked up, KV_KEY read, until the writer is done. */
static int race_reader(void *arg)
{
	struct race *r = arg;
	unsigned long v, seen[2] = { 0, 0 }, n = 0;
	long slot, got;

	/* (until the first failure: one says enough) */
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE) && !utest_failed_yet()) {
		slot = q_ns_lookup(r->ns, "flip");	/* the old or the new: always one */
		CHECK(slot >= 0);
		if (slot < 0)
			return 1;
		v = object_of(slot);
		CHECK(v == r->objects[0] || v == r->objects[1]);
		seen[v == r->objects[1]]++;
		q_cap_delete(slot);
		slot = q_ns_lookup(r->ns, "blink");	/* there or not: nothing else */
		CHECK(slot >= 0 || slot == -SYS_ENOENT);
		if (slot >= 0)
			q_cap_delete(slot);
		got = q_kv_get(r->kv, KV_KEY, &v);
		CHECK_EQ(got, 0);
		CHECK(v == r->values[0] || v == r->values[1]);
		got = q_kv_get(r->kv, KV_KEY + 1, &v);	/* there or not */
		CHECK(got == 0 || got == -SYS_ENOENT);
		n++;
	}
	__atomic_fetch_add(&r->reads, n, __ATOMIC_RELAXED);
	__atomic_fetch_add(&r->flips_seen, seen[0] && seen[1], __ATOMIC_RELAXED);
	return 0;
}

/* The writer: replaces "flip" and KV_KEY, removes and adds "blink" and KV_KEY + 1. */
static void race_writer(struct race *r, const int ntf[2])
{
	for (int i = 1; i <= REPLACEMENTS && !utest_failed_yet(); i++) {
		CHECK_EQ(q_ns_replace(r->ns, "flip", ntf[i % 2]), 0);
		CHECK_EQ(q_kv_put(r->kv, KV_KEY, r->values[i % 2]), 0);
		if (i % 2) {
			CHECK_EQ(q_kv_del(r->kv, KV_KEY + 1), 0);
		} else {
			CHECK_EQ(q_kv_put(r->kv, KV_KEY + 1, i), 0);
		}
		if (i % BLINK_EVERY == 0)	/* (each registration is a line on the console) */
			CHECK_EQ(q_ns_register(r->ns, "blink", ntf[0]), 0);
		else if (i % BLINK_EVERY == BLINK_EVERY / 2)
			CHECK_EQ(q_ns_unregister(r->ns, "blink"), 0);
	}
}

static void servers_under_readers(int ns)
{
	int ntf[2] = { q_notification_create(SYS_CAP_ANY_SLOT), q_notification_create(SYS_CAP_ANY_SLOT) };
	int ncpus = q_nr_cpus(), n = ncpus < MAX_READERS ? ncpus : MAX_READERS, tids[MAX_READERS];
	struct race r = { .ns = ns, .values = { 0x1111, 0x2222 } };
	struct sys_exit_status st;

	CHECK(q_spawn_caps(KVSERVER, &ns, 1, KV_TASK) > 0);
	r.kv = q_ns_lookup_wait(ns, "kv", Q_NS_WAIT_MS);
	CHECK(r.kv >= 0);
	r.objects[0] = object_of(ntf[0]);
	r.objects[1] = object_of(ntf[1]);
	CHECK_EQ(q_ns_register(ns, "flip", ntf[0]), 0);
	CHECK_EQ(q_ns_register(ns, "blink", ntf[0]), 0);
	CHECK_EQ(q_kv_put(r.kv, KV_KEY, r.values[0]), 0);
	CHECK_EQ(q_kv_put(r.kv, KV_KEY + 1, 1), 0);
	for (int i = 0; i < n; i++) {
		tids[i] = q_thread_create(race_reader, &r, ncpus > 1 ? (i + 1) % ncpus : 0);
		CHECK(tids[i] > 0);
	}
	race_writer(&r, ntf);
	__atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(q_thread_join(tids[i], &st), 0);
		CHECK_EQ(st.status, 0);
	}
	printf("services: %d readers, %lu rounds of reads against %d replacements; %lu readers saw "
	       "both of \"flip\"'s capabilities\n", n, r.reads, REPLACEMENTS, r.flips_seen);
	CHECK(r.reads > 0);
	CHECK_EQ(q_ns_lookup(ns, "flip") >= 0, 1);	/* (both servers still up: no poison met) */
	CHECK_EQ(q_kv_get(r.kv, KV_KEY, &r.values[0]), 0);
	CHECK_EQ(q_kill(KV_TASK), 0);
	CHECK_EQ(q_wait_for(KV_TASK, &st), 0);
}

int main(void)
{
	int ns;

	root_task_runs_the_services();
	ns = name_server_rules();
	servers_under_readers(ns);
	dead_name_server(ns);
	return check_result();
}
