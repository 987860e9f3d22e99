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

static void name_server_rules(void)
{
	int ep = q_endpoint_create(SYS_CAP_ANY_SLOT), ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	int ns, other, no_grant, copy;
	struct sys_exit_status st;
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

	CHECK_EQ(q_kill(NS_TASK), 0);
	CHECK_EQ(q_wait_for(NS_TASK, &st), 0);
	CHECK_EQ(q_ns_lookup(ns, "signal"), -SYS_EPIPE);	/* a dead server: an error, no hang */
	CHECK_EQ(q_ns_lookup_wait(ns, "signal", Q_NS_WAIT_MS), -SYS_EPIPE);	/* at once */
}

int main(void)
{
	root_task_runs_the_services();
	name_server_rules();
	return check_result();
}
