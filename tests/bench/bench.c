/*
 * make bench: the command line, result lines, the shared structures and
 * their node pool, and the "busy CPU" threads (see bench.h).
 */
#include "bench.h"
#include "user/task.h"
#include "user/user.h"

int bench_reps = 5;
KPARAM_INT("bench.reps", bench_reps, 1, 100);
int bench_window_ms = 100;
KPARAM_INT("bench.window_ms", bench_window_ms, 20, 10000);

const char *const bench_method_names[BM_NR] = {
	[BM_NONE] = "none", [BM_RCU] = "rcu", [BM_RWLOCK] = "rwlock",
	[BM_SPINLOCK] = "spinlock", [BM_SEQLOCK] = "seqlock", [BM_REFCOUNT] = "refcount",
};

void bench_emit(const char *bench, const char *labels, int rep, const char *metric,
		u64 value_milli, const char *unit)
{
	printk("# BENCH bench=%s %s%scpus=%d rep=%d metric=%s value=%llu.%03llu unit=%s\n",
	       bench, labels, labels[0] ? " " : "", num_online_cpus(), rep, metric,
	       (unsigned long long)(value_milli / 1000),
	       (unsigned long long)(value_milli % 1000), unit);
}

/* count * 1e12 / ns without overflowing 64 bits for any sane count. */
u64 bench_rate_milli(u64 count, u64 ns)
{
	if (!ns)
		ns = 1;
	if (count < (~0ULL / 1000000000000ULL))
		return count * 1000000000000ULL / ns;
	return count / ns * 1000000000000ULL;
}

u64 bench_mean_milli(u64 total, u64 count)
{
	if (!count)
		return 0;
	if (total < ~0ULL / 1000)
		return total * 1000 / count;
	return total / count * 1000;
}

u64 bench_run_program(const char *cmdline)
{
	struct sys_exit_status st;
	struct user_task *t;
	u64 t0 = ktime_get_ns();
	int err;

	t = user_spawn_root(cmdline, &err);	/* (pingpong starts its server task) */
	if (!t)
		return 0;
	if (user_task_wait_timeout(t, ktest_budget_ns(120, 2), &st)) {
		ktest_info("%s: still running after its time: killed", cmdline);
		user_task_kill(t, SYS_KILLED_BY_KERNEL);	/* (not left to load the next run) */
		user_task_wait_timeout(t, 0, &st);
		st.killed = SYS_KILLED_BY_KERNEL;
	}
	if (st.killed || st.status) {
		user_task_put(t);
		return 0;
	}
	user_task_put(t);
	return ktime_get_ns() - t0;
}

/* The pool: type-stable nodes, taken by the writer, given back after use. */
struct bench_node *bench_pool_get(struct bench_table *t)
{
	struct bench_node *n;
	unsigned long flags;

	spin_lock_irqsave(&t->pool_lock, flags);
	n = t->pool;
	if (n) {
		t->pool = n->pool_next;
		t->pool_count--;
	}
	spin_unlock_irqrestore(&t->pool_lock, flags);
	return n;
}

void bench_pool_put(struct bench_table *t, struct bench_node *n)
{
	unsigned long flags;

	spin_lock_irqsave(&t->pool_lock, flags);
	n->pool_next = t->pool;
	t->pool = n;
	t->pool_count++;
	spin_unlock_irqrestore(&t->pool_lock, flags);
}

struct bench_table *bench_table_create(enum bench_kind kind)
{
	struct bench_table *t = kzalloc(sizeof(*t), GFP_KERNEL);
	int total;

	if (!t)
		return NULL;
	t->kind = kind;
	t->nelem = kind == BENCH_LIST ? BENCH_LIST_SIZE : BENCH_HASH_SIZE;
	total = t->nelem + BENCH_SPARE_NODES;
	t->nodes = kcalloc(total, sizeof(*t->nodes), GFP_KERNEL);
	t->cur = kcalloc(t->nelem, sizeof(*t->cur), GFP_KERNEL);
	if (kind == BENCH_HASH)
		t->buckets = kcalloc(BENCH_HASH_BUCKETS, sizeof(*t->buckets), GFP_KERNEL);
	if (!t->nodes || !t->cur || (kind == BENCH_HASH && !t->buckets)) {
		bench_table_destroy(t);
		return NULL;
	}
	spin_lock_init(&t->pool_lock);
	spin_lock_init(&t->lock);
	spin_lock_init(&t->wlock);
	INIT_LIST_HEAD(&t->list);
	for (int i = 0; i < total; i++) {
		struct bench_node *n = &t->nodes[i];

		if (i >= t->nelem) {
			n->key = BENCH_POISON_KEY;
			bench_pool_put(t, n);
			continue;
		}
		n->key = i;
		n->value = i;
		n->ref = 1;		/* the structure's reference */
		t->cur[i] = n;
		if (kind == BENCH_LIST)
			list_add_tail(&n->list, &t->list);
		else
			hlist_add_head(&n->hnode, &t->buckets[bench_hash(i)]);
	}
	return t;
}

/* Call with no reader or writer left and every call_rcu() done (rcu_barrier()). */
void bench_table_destroy(struct bench_table *t)
{
	if (!t)
		return;
	kfree(t->buckets);
	kfree(t->cur);
	kfree(t->nodes);
	kfree(t);
}

/* Busy CPUs: RCU readers with a quiescent state every 64 lookups. */
static struct bench_table *busy_table;
static struct workers busy_workers;
static bool busy_stop;

static int busy_fn(void *arg)
{
	u32 rng = prandom_seed(0x9e3779b9u ^ (u32)(smp_processor_id() + 1));
	unsigned long sink = 0;

	(void)arg;
	while (!READ_ONCE(busy_stop)) {
		for (int i = 0; i < 64; i++) {
			int key = prandom_u32(&rng) % BENCH_LIST_SIZE;
			struct bench_node *n;

			rcu_read_lock();
			list_for_each_entry_rcu(n, &busy_table->list, list) {
				if (READ_ONCE(n->key) == key) {
					sink += READ_ONCE(n->value);
					break;
				}
			}
			rcu_read_unlock();
		}
		cond_resched();
	}
	return (int)(sink & 1);
}

bool bench_busy_start(int first_cpu)
{
	busy_table = bench_table_create(BENCH_LIST);
	if (!busy_table)
		return false;
	WRITE_ONCE(busy_stop, false);
	return workers_start_spread(&busy_workers, num_online_cpus() - first_cpu, first_cpu,
				    busy_fn, NULL, 0, "bench_busy");
}

void bench_busy_stop(void)
{
	WRITE_ONCE(busy_stop, true);
	workers_stop(&busy_workers);
	bench_table_destroy(busy_table);
	busy_table = NULL;
}
