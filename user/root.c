/*
 * The root task (docs/microkernel.md, "Services in user space"): the
 * kernel starts it from the first boot module under make run, with a
 * capability to its quota and one to each boot program (lib/ipc.h's
 * boot slots), and it starts everything else -- through those
 * capabilities, the only way a program starts.  First the program its
 * arguments name (make run's USER_RUN, user/hello by default), waited
 * for as the kernel used to; then the services, each spending from a
 * quota carved out of ours (SERVICE_QUOTA_KB), so that none can spend
 * what the others need:
 *
 *   1. an endpoint for the name server, and user/nameserver with the only
 *      capability that can receive on it (its slot 0);
 *   2. a send-and-grant copy of that endpoint for everyone else, and
 *      user/kvserver with it, which registers "kv";
 *   3. clients (user/kvclient) with the same copy: they find "kv" by name;
 *   4. the key-value server killed: a call through "kv" then fails with
 *      -EPIPE at once (a server that dies wakes its clients with an error);
 *   5. the name server killed.
 *
 * With --serve as its first argument (make run's root task), steps 4 and
 * 5 give way: the two servers stay up after the root task ends, so that
 * the monitor's `caps` and `ps` show live services.
 *
 * Exit status 0 if every step did what it should (tests/user/services.c).
 */
#include <stdio.h>
#include <string.h>
#include "qservices.h"

#define NAMESERVER	"user/nameserver"
#define KVSERVER	"user/kvserver"
#define KVCLIENT	"user/kvclient"
#define NR_CLIENTS	2
#define NS_TASK		100	/* our slots for the task capabilities */
#define KV_TASK		101
#define CLIENT_TASK	102
/*
 * Each service's share of our quota.  It pays for everything the service
 * makes the kernel spend: its program's pages (about 80 KiB), its first
 * stack (128 KiB), its thread's kernel stack, its page tables, its heap
 * and capabilities -- measured at 274 to 278 KiB for each of the name
 * server, the key-value server and a client (x86-64; AArch64's programs
 * are smaller), so 320 leaves room for a few more keys and names.
 */
#define SERVICE_QUOTA_KB 320
/*
 * The two servers serve from a thread per CPU (docs/urcu.md, "Servers
 * on RCU"), up to four, and call_rcu() starts a thread of its own: each
 * thread more costs its 64 KiB stack, its kernel stack and their tables.
 */
#define SERVER_QUOTA_KB	704

static int failed;

static void check(int ok, const char *what)
{
	if (!ok) {
		printf("root: FAILED: %s\n", what);
		failed = 1;
	}
}

/* A program of the user-space issue: started, waited for, its end reported. */
static void run_program(const char *cmd)
{
	struct sys_exit_status st;
	int id = q_spawn(cmd, strlen(cmd));

	if (id < 0 || q_task_wait(id, &st)) {
		printf("root: %s did not start (error %d)\n", cmd, id);
		return;
	}
	if (st.killed || st.status)
		printf("root: %s[%d] ended: %s %d\n", cmd, id, st.killed ? "killed, reason" : "exit status",
		       st.killed ? st.killed : st.status);
}

/* The words of argv joined by spaces into buf: a command line again. */
static const char *join(char *buf, size_t size, int argc, char **argv)
{
	size_t len = 0;

	buf[0] = 0;
	for (int i = 0; i < argc && len < size; i++)
		len += snprintf(buf + len, size - len, "%s%s", i ? " " : "", argv[i]);
	return buf;
}

/* cmd with cap in its slot 0, spending from a quota of its own carved out of ours. */
static int spawn(const char *cmd, int cap, int task_slot, int kb)
{
	int quota = q_quota_create(SYS_CAP_ANY_SLOT, kb);
	int id = quota < 0 ? quota : q_spawn_quota(cmd, quota, &cap, 1, task_slot);

	if (id < 0)
		printf("root: %s did not start (error %d)\n", cmd, id);
	else
		printf("root: started %s, task %d, with a capability in its slot 0 and %d KiB\n",
		       cmd, id, kb);
	if (quota >= 0)
		q_cap_delete(quota);	/* (the child's task keeps the quota) */
	return id;
}

/* What the kernel gave us, if it started us (another parent passes what it chooses). */
static void say_we_start(void)
{
	struct sys_quota_info q;
	struct sys_cap_info info;
	int n = 0;

	if (q_quota_info(SYS_BOOT_SLOT_QUOTA, &q)) {
		printf("root: task %d starts the services\n", q_task_id());
		return;
	}
	while (n < SYS_BOOT_PROGRAMS_MAX && !q_cap_inspect(SYS_BOOT_SLOT_PROGRAMS + n, &info) &&
	       info.type == SYS_OBJ_PROGRAM)
		n++;
	printf("root: task %d starts the services; it holds its quota (slot %d, %ld KiB) and %d "
	       "programs (slots %d-%d)\n", q_task_id(), SYS_BOOT_SLOT_QUOTA, q.limit / 1024, n,
	       SYS_BOOT_SLOT_PROGRAMS, SYS_BOOT_SLOT_PROGRAMS + n - 1);
}

static void run_clients(int ns)
{
	struct sys_exit_status st;
	int ids[NR_CLIENTS];
	char cmd[48];

	for (int i = 0; i < NR_CLIENTS; i++) {
		snprintf(cmd, sizeof(cmd), KVCLIENT " %d", i + 1);
		ids[i] = spawn(cmd, ns, CLIENT_TASK + i, SERVICE_QUOTA_KB);
	}
	for (int i = 0; i < NR_CLIENTS; i++) {
		if (ids[i] < 0)
			continue;
		check(!q_wait_for(CLIENT_TASK + i, &st) && !st.killed && !st.status,
		      "a client ended with an error");
		q_cap_delete(CLIENT_TASK + i);
	}
}

static void stop(int task_slot, const char *what)
{
	struct sys_exit_status st;

	check(q_kill(task_slot) == 0 && q_wait_for(task_slot, &st) == 0, what);
	q_cap_delete(task_slot);
}

/* --serve: the services stay up for the monitor; say where to look. */
static int leave_up(int ns_id, int kv_id)
{
	printf("root: the name server (task %d) and the key-value server (task %d) stay up: "
	       "try `caps %d` at the monitor\n", ns_id, kv_id, kv_id);
	return failed;
}

int main(int argc, char **argv)
{
	int ns = q_endpoint_create(SYS_CAP_ANY_SLOT), ns_send, ns_id, kv_id;
	int serve = argc > 1 && !strcmp(argv[1], "--serve");
	char cmd[256];			/* (the kernel takes 255 bytes at most) */
	unsigned long v;
	long kv, r;

	argc -= serve;
	argv += serve;
	if (argc > 1)
		run_program(join(cmd, sizeof(cmd), argc - 1, argv + 1));
	say_we_start();
	ns_id = ns < 0 ? ns : spawn(NAMESERVER, ns, NS_TASK, SERVER_QUOTA_KB);
	if (ns_id < 0)
		return 1;
	/* Everyone else may call the name server and send it capabilities, never receive. */
	ns_send = q_cap_mint(ns, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE | SYS_CAP_GRANT, 0);
	q_cap_delete(ns);
	kv_id = ns_send < 0 ? ns_send : spawn(KVSERVER, ns_send, KV_TASK, SERVER_QUOTA_KB);
	if (kv_id < 0) {
		stop(NS_TASK, "kill the name server");
		return 1;
	}
	kv = q_ns_lookup_wait(ns_send, "kv", Q_NS_WAIT_MS);	/* (it registers as it starts) */
	check(kv >= 0, "no \"kv\" registered");
	if (kv >= 0) {
		printf("root: \"kv\" found through the name server, in our slot %ld\n", kv);
		run_clients(ns_send);
		check(q_kv_put(kv, 7, 49) == 0 && q_kv_get(kv, 7, &v) == 0 && v == 49,
		      "our own call to \"kv\"");
	}
	if (serve && kv >= 0 && !failed)
		return leave_up(ns_id, kv_id);
	/* (a task that ends leaves its children running: we stop ours, in any case) */
	stop(KV_TASK, "kill the key-value server");
	if (kv >= 0) {
		r = q_kv_get(kv, 7, &v);
		printf("root: key-value server killed: a call through \"kv\" now returns %ld\n", r);
		check(r == -SYS_EPIPE, "a call to a dead server must fail with -EPIPE");
	}
	stop(NS_TASK, "kill the name server");
	printf("root: %s\n", failed ? "FAILED" : "the services answered; all stopped");
	return failed;
}
