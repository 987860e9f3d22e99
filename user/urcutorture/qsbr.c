/* urcutorture's QSBR flavor: urcu-qsbr.h's names, as a program uses them. */
#include "urcu-qsbr.h"
#include "urcutorture.h"

static void qsbr_read_lock(void) { rcu_read_lock(); }
static void qsbr_read_unlock(void) { rcu_read_unlock(); }

const struct ut_ops ut_qsbr_ops = {
	.name = "qsbr",
	.register_thread = rcu_register_thread,
	.unregister_thread = rcu_unregister_thread,
	.read_lock = qsbr_read_lock,
	.read_unlock = qsbr_read_unlock,
	.quiescent_state = rcu_quiescent_state,
	.offline = rcu_thread_offline,
	.online = rcu_thread_online,
	.synchronize = synchronize_rcu,
	.call = call_rcu,
	.wait_callbacks = rcu_barrier,
	.get_stats = urcu_qsbr_get_stats,
};
