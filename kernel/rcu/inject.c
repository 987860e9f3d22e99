/*
 * rcu.inject=NAME: break RCU on purpose, so that a test can show that it
 * catches the break (CI runs each as an expected failure).  The names and
 * what each breaks are the one-line entries of RCU_INJECTIONS in
 * rcupdate.h; the code that breaks asks rcu_injected(RCU_INJECT_...).
 * The table's parser and boot banner serve srcu.inject= (srcu.c) too.
 */
#include "kernel.h"
#include "rcu.h"

static const struct rcu_injection_desc rcu_injection_descs[NR_RCU_INJECTIONS] = {
	RCU_INJECTIONS(__INJECTION_DESC)
};

/* Which injections the command line asked for (read by gdb's qrcu too). */
static bool rcu_injections_on[NR_RCU_INJECTIONS];

bool rcu_inject_table_set(const struct rcu_injection_desc *descs, bool *on, int n,
			  const char *val)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(val, descs[i].name)) {
			on[i] = true;
			return true;
		}
	}
	return false;
}

void rcu_inject_table_announce(const char *key, const struct rcu_injection_desc *descs,
			       const bool *on, int n)
{
	for (int i = 0; i < n; i++)
		if (on[i])
			printk("%s: FAULT INJECTION %s.inject=%s: %s\n", key, key,
			       descs[i].name, descs[i].what);
}

static bool set_inject(const struct kparam *p, const char *val)
{
	(void)p;
	return rcu_inject_table_set(rcu_injection_descs, rcu_injections_on,
				    NR_RCU_INJECTIONS, val);
}

KPARAM_CALL("rcu.inject", set_inject, "one of:" RCU_INJECTIONS(__INJECTION_HELP));

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
	rcu_inject_table_announce("rcu", rcu_injection_descs, rcu_injections_on,
				  NR_RCU_INJECTIONS);
}
