/*
 * make profile's QEMU TCG plugin (docs/benchmarks.md, "make profile"):
 * counts every guest instruction executed between the window marks of
 * lib/profile_mark.h, per instruction, and writes each window's counts
 * to a file that tools/profile.py symbolizes and classifies.
 *
 *   qemu-system-... -icount shift=0,sleep=off \
 *       -plugin build/profile/insncount.so,out=FILE
 *
 * How: when QEMU translates a block, each instruction gets a counter (one
 * per address and encoding, shared by every translation of it) that the
 * translated code itself increments (an inline add: no call per
 * instruction).  A mark gets a callback instead: the open mark takes a
 * snapshot of every counter, the close mark writes each counter's growth
 * since then.  The marks are not counted.
 *
 * The inline adds are not atomic: with several vCPUs running at once
 * (MTTCG) counts are lost.  Under -icount one vCPU runs at a time, in
 * one host thread: make profile always runs so.
 *
 * The file (text; tools/lib/profile_data.py reads it):
 *
 *	insncount 1 x86_64
 *	window 1
 *	ffffffff80104a20 1000 0f05
 *	...		(address, count in the window, the instruction's bytes)
 *	end 1 399012
 *	windows 1
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qemu_plugin_v1.h"
#include "profile_mark.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MAX_INSN	15	/* x86's longest instruction */

struct insn {
	uint64_t vaddr;
	uint64_t count;		/* incremented by the translated code */
	uint64_t snap;		/* count when the window opened */
	uint8_t size;
	uint8_t bytes[MAX_INSN];
};

/* The counters live in chunks that never move (the translated code holds their addresses). */
#define CHUNK		65536
static struct insn **chunks;
static size_t nr_insns, nr_chunks;
/* An open-addressing index over them: slot -> insn number + 1 (0: empty). */
static uint32_t *index_slots;
static size_t index_size;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static int is_x86;
static int window_open;
static unsigned long windows, stray_marks;

enum mark { MARK_NONE, MARK_OPEN, MARK_CLOSE };

static struct insn *insn_at(size_t i)
{
	return &chunks[i / CHUNK][i % CHUNK];
}

static uint64_t hash(uint64_t vaddr, const uint8_t *bytes, size_t size)
{
	uint64_t h = vaddr * 0x9e3779b97f4a7c15ULL;

	for (size_t i = 0; i < size; i++)
		h = (h ^ bytes[i]) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

static void die(const char *why)
{
	qemu_plugin_outs("insncount: ");
	qemu_plugin_outs(why);
	qemu_plugin_outs("\n");
	exit(1);
}

static void index_put(size_t i)
{
	struct insn *e = insn_at(i);
	size_t s = hash(e->vaddr, e->bytes, e->size) & (index_size - 1);

	while (index_slots[s])
		s = (s + 1) & (index_size - 1);
	index_slots[s] = i + 1;
}

/* Twice the slots once half are used: the probes stay short. */
static void index_grow(void)
{
	free(index_slots);
	index_size = index_size ? index_size * 2 : 1 << 16;
	index_slots = calloc(index_size, sizeof(*index_slots));
	if (!index_slots)
		die("out of memory");
	for (size_t i = 0; i < nr_insns; i++)
		index_put(i);
}

/* The counter of this instruction (address and bytes), made on first sight; lock held. */
static struct insn *insn_get(uint64_t vaddr, const uint8_t *bytes, size_t size)
{
	size_t s;
	struct insn *e;

	if (size > MAX_INSN)
		size = MAX_INSN;
	if ((nr_insns + 1) * 2 > index_size)
		index_grow();
	for (s = hash(vaddr, bytes, size) & (index_size - 1); index_slots[s];
	     s = (s + 1) & (index_size - 1)) {
		e = insn_at(index_slots[s] - 1);
		if (e->vaddr == vaddr && e->size == size && !memcmp(e->bytes, bytes, size))
			return e;
	}
	if (nr_insns == nr_chunks * CHUNK) {
		chunks = realloc(chunks, (nr_chunks + 1) * sizeof(*chunks));
		if (!chunks || !(chunks[nr_chunks] = calloc(CHUNK, sizeof(struct insn))))
			die("out of memory");
		nr_chunks++;
	}
	e = insn_at(nr_insns);
	e->vaddr = vaddr;
	e->size = size;
	memcpy(e->bytes, bytes, size);
	index_slots[s] = ++nr_insns;
	return e;
}

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static enum mark mark_of(const uint8_t *b, size_t size)
{
	uint32_t v;

	if (is_x86) {
		if (size != 7 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
			return MARK_NONE;
		v = le32(b + 3);
		return v == PROFILE_MARK_X86_OPEN ? MARK_OPEN :
		       v == PROFILE_MARK_X86_CLOSE ? MARK_CLOSE : MARK_NONE;
	}
	if (size != 4)
		return MARK_NONE;
	v = le32(b);
	return v == PROFILE_MARK_A64_OPEN ? MARK_OPEN :
	       v == PROFILE_MARK_A64_CLOSE ? MARK_CLOSE : MARK_NONE;
}

static void window_start(void)
{
	if (window_open)
		stray_marks++;		/* opened twice: the later one counts */
	for (size_t i = 0; i < nr_insns; i++)
		insn_at(i)->snap = insn_at(i)->count;
	window_open = 1;
}

static void window_end(void)
{
	uint64_t total = 0;

	if (!window_open) {
		stray_marks++;
		return;
	}
	window_open = 0;
	fprintf(out, "window %lu\n", ++windows);
	for (size_t i = 0; i < nr_insns; i++) {
		struct insn *e = insn_at(i);
		uint64_t n = e->count - e->snap;

		if (!n)
			continue;
		total += n;
		fprintf(out, "%" PRIx64 " %" PRIu64 " ", e->vaddr, n);
		for (int b = 0; b < e->size; b++)
			fprintf(out, "%02x", e->bytes[b]);
		fputc('\n', out);
	}
	fprintf(out, "end %lu %" PRIu64 "\n", windows, total);
	fflush(out);
}

static void on_mark(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	pthread_mutex_lock(&lock);
	if ((uintptr_t)udata == MARK_OPEN)
		window_start();
	else
		window_end();
	pthread_mutex_unlock(&lock);
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *bytes = qemu_plugin_insn_data(insn);
		size_t size = qemu_plugin_insn_size(insn);
		enum mark m = mark_of(bytes, size);

		if (m != MARK_NONE) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)m);
			continue;
		}
		qemu_plugin_register_vcpu_insn_exec_inline(
			insn, QEMU_PLUGIN_INLINE_ADD_U64,
			&insn_get(qemu_plugin_insn_vaddr(insn), bytes, size)->count, 1);
	}
	pthread_mutex_unlock(&lock);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	(void)udata;
	pthread_mutex_lock(&lock);
	fprintf(out, "windows %lu%s", windows, window_open ? " open" : "");
	if (stray_marks)
		fprintf(out, " stray %lu", stray_marks);
	fprintf(out, "\n");
	fclose(out);
	out = NULL;
	pthread_mutex_unlock(&lock);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	}
	if (!path) {
		qemu_plugin_outs("insncount: give out=FILE\n");
		return 1;
	}
	if (!strcmp(info->target_name, "x86_64") || !strcmp(info->target_name, "i386"))
		is_x86 = 1;
	else if (strcmp(info->target_name, "aarch64")) {
		qemu_plugin_outs("insncount: knows the marks of x86_64 and aarch64 only\n");
		return 1;
	}
	out = fopen(path, "w");
	if (!out) {
		qemu_plugin_outs("insncount: cannot write the out= file\n");
		return 1;
	}
	fprintf(out, "insncount 1 %s\n", info->target_name);
	index_grow();
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
