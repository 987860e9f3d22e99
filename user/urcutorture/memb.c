/* urcutorture's memb flavor: urcu.h's names, as a program uses them. */
#include "urcu.h"
#include "urcutorture.h"

static void memb_read_lock(void) { rcu_read_lock(); }
static void memb_read_unlock(void) { rcu_read_unlock(); }

const struct ut_ops ut_memb_ops = {
	.name = "memb",
	.register_thread = rcu_register_thread,
	.unregister_thread = rcu_unregister_thread,
	.read_lock = memb_read_lock,
	.read_unlock = memb_read_unlock,
	.synchronize = synchronize_rcu,
	.call = call_rcu,
	.wait_callbacks = rcu_barrier,
	.get_stats = urcu_memb_get_stats,
};
