/*
 * rcu.inject=NAME: break RCU on purpose, so that a test can show that it
 * catches the break (CI runs each as an expected failure).  The names and
 * what each breaks are the one-line entries of RCU_INJECTIONS in
 * rcupdate.h; the code that breaks asks rcu_injected(RCU_INJECT_...).
 */
#include "kernel.h"
#include "rcu.h"

struct rcu_injection_desc {
	const char *name;	/* on the command line */
	const char *what;	/* what it breaks, for the boot banner */
};

#define __RCU_INJECTION_DESC(id, iname, iwhat)	[id] = { .name = iname, .what = iwhat },
static const struct rcu_injection_desc rcu_injection_descs[NR_RCU_INJECTIONS] = {
	RCU_INJECTIONS(__RCU_INJECTION_DESC)
};

/* Which injections the command line asked for (read by gdb's qrcu too). */
static bool rcu_injections_on[NR_RCU_INJECTIONS];

static bool set_inject(const struct kparam *p, const char *val)
{
	(void)p;
	for (int i = 0; i < NR_RCU_INJECTIONS; i++) {
		if (!strcmp(val, rcu_injection_descs[i].name)) {
			rcu_injections_on[i] = true;
			return true;
		}
	}
	return false;
}

/* What a bad value gets told: "expected one of: 'no_wait' (...)". */
#define __RCU_INJECTION_HELP(id, name, what)	" '" name "' (" what ")"
KPARAM_CALL("rcu.inject", set_inject,
	    "one of:" RCU_INJECTIONS(__RCU_INJECTION_HELP));

bool rcu_injected(enum rcu_injection which)
{
	return rcu_injections_on[which];
}

int rcu_inject_victim(int cpu)
{
	int next = cpu_next_online(cpu);

	return next < NR_CPUS ? next : cpu_next_online(-1);
}

/* At boot, a loud line for each injection that is on. */
void rcu_inject_announce(void)
{
	for (int i = 0; i < NR_RCU_INJECTIONS; i++)
		if (rcu_injections_on[i])
			printk("rcu: FAULT INJECTION rcu.inject=%s: %s\n", rcu_injection_descs[i].name,
			       rcu_injection_descs[i].what);
}
