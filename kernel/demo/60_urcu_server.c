/*
 * Beyond the article: RCU in user space (docs/urcu.md, "Servers on RCU").
 * The name server's own table, in its own program (`user/nameserver
 * --demo`, user/nameserver/demo.c): a reader on every other CPU looks a
 * name up with no lock while the server replaces it; one reader holds
 * the old entry across the replacement, and the old entry is freed only
 * when it lets go -- the kernel's grace period, in a program, with the
 * QSBR flavor of the user-space library.
 */
#include "demo.h"
#include "user/task.h"
#include "user/user.h"
#include "user/module.h"
#include "object/object.h"

#define PROGRAM		"user/nameserver --demo"
#define BUDGET_NS	(120 * NSEC_PER_SEC)

DEMO(urcu_server, "RCU in user space: a server replaces a name under readers on every CPU")
{
	struct sys_exit_status st;
	struct user_task *t;
	int err;

	demo_step("A server on RCU in user space");
	if (!boot_module_find("user/nameserver")) {
		demo_say("(no user programs on this boot: make run puts them there)");
		return;
	}
	demo_say("The name server's table is an RCU list in its own memory.  Its readers");
	demo_say("are threads of the program, one per CPU, registered with the library's");
	demo_say("QSBR flavor: a lookup takes no lock, and between two lookups each says");
	demo_say("\"I hold nothing\" (rcu_quiescent_state()).  The writer replaces a name by");
	demo_say("copy and frees the old entry through call_rcu(): after a grace period.");
	t = user_spawn_root(PROGRAM, &err);
	if (!t) {
		demo_fail("%s did not start (error %d)", PROGRAM, err);
		return;
	}
	if (user_task_wait_timeout(t, BUDGET_NS, &st)) {
		user_task_kill(t, SYS_KILLED_BY_KERNEL);
		user_task_wait_timeout(t, 0, &st);
		demo_fail("%s did not end in time", PROGRAM);
	} else if (st.killed || st.status) {
		demo_fail("%s ended badly (%s %d)", PROGRAM, st.killed ? "killed" : "status",
			  st.killed ? st.killed : st.status);
	}
	user_task_put(t);
	user_settle();		/* its threads and task reaped, before the demo's leak check */
	object_settle();
	demo_step("What the program showed");
	demo_say("No lookup waited, and none met a freed entry: each entry was freed only");
	demo_say("after every reader that could hold it had passed a quiescent state.");
}
