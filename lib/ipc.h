/*
 * The capability and IPC ABI: what user programs and the kernel agree on
 * beyond the system-call numbers (lib/syscall.h, which includes this
 * file).  Freestanding, as syscall.h.  docs/microkernel.md explains each
 * rule; this file is the reference.
 *
 * Capabilities.  A task names kernel objects by slot number in its own
 * capability space: slot 0 .. SYS_CAP_MAX_SLOTS - 1.  A slot holds one
 * capability: (object, rights, badge).  Any slot number that is out of
 * range or empty is -SYS_EBADF; a capability of the wrong type for the
 * call is -SYS_ENOTSUP; a missing right is -SYS_EACCES.
 *
 * IPC.  A message is a label, up to SYS_MSG_WORDS words and at most one
 * capability, passed in registers: the system call's arguments 1 to 5
 * are the message registers MR0 (the info word: label and capability)
 * and MR1..MR4 (the words); argument 0 is the endpoint's slot.  A call
 * that receives a message writes it back into the same registers, and
 * its result (the return register) is the sender's badge (>= 0), or a
 * negative error:
 *
 *   x86-64   in: rdi = slot, rsi = info, rdx r10 r8 r9 = words
 *            out: rax = badge or -error, rsi = info, rdx r10 r8 r9 = words
 *   AArch64  in: x0 = slot, x1 = info, x2-x5 = words
 *            out: x0 = badge or -error, x1 = info, x2-x5 = words
 *
 * IPC has no timeouts: a thread waits until its partner comes, or the
 * endpoint can never deliver (its last capability that could send or
 * receive is gone: -SYS_EPIPE), or its own task is killed.  A sender who
 * does not want to wait asks SYS_MSG_NONBLOCK (-SYS_EAGAIN if no
 * receiver waits).
 */
#ifndef LIB_IPC_H
#define LIB_IPC_H

/* Object types (SYS_cap_create's type; struct sys_cap_info's type). */
#define SYS_OBJ_ENDPOINT	1	/* synchronous IPC: send, receive, call, reply */
#define SYS_OBJ_NOTIFICATION	2	/* a word of signal bits: signal, wait, poll */
#define SYS_OBJ_MEMORY		3	/* frames a task may map (arg: how many pages) */
#define SYS_OBJ_TASK		4	/* a task: made by SYS_cap_spawn, never by SYS_cap_create */
#define SYS_OBJ_THREAD		5	/* a thread of the caller's task (arg: its id) */
#define SYS_OBJ_INTERRUPT	6	/* a device interrupt line: granted by the kernel, never created */
#define SYS_OBJ_DEVICE		7	/* a device's registers: granted by the kernel, never created */
#define SYS_OBJ_CONSOLE		8	/* the kernel's console, whole lines: granted, never created */
#define SYS_OBJ_PROGRAM		9	/* a boot module: granted by the kernel, never created */
#define SYS_OBJ_QUOTA		10	/* memory to spend on objects (arg: KiB carved out of the caller's) */
#define SYS_OBJ_TYPES		11

/* Rights: what a capability lets its holder do with the object. */
#define SYS_CAP_READ		1	/* endpoint: receive; notification: wait, poll; memory: map readable; task, thread: wait for it;
					   program: read its name; quota: read its counts */
#define SYS_CAP_WRITE		2	/* endpoint: send, call; notification: signal; memory: map writable; task, thread: kill;
					   quota: spawn a task that spends from it; interrupt: bind, ack; device: map;
					   console: print, push keys */
#define SYS_CAP_GRANT		4	/* endpoint: send capabilities with messages */
#define SYS_CAP_EXEC		8	/* memory: map executable; program: start it (SYS_cap_spawn) */
#define SYS_CAP_ALL		15

/* The most slots a capability space holds; it grows to this from SYS_CAP_FIRST_SLOTS. */
#define SYS_CAP_MAX_SLOTS	1024
#define SYS_CAP_FIRST_SLOTS	16
/*
 * The console server's endpoint (docs/drivers.md): while one serves the
 * console, every program the kernel starts finds a capability to it here
 * (send and grant, a badge of its own), and its runtime sends
 * standard input and output there.
 */
#define SYS_CAP_CONSOLE_SLOT	(SYS_CAP_FIRST_SLOTS - 1)
/* A slot argument that asks for the first empty slot (SYS_cap_create, copy, mint, move). */
#define SYS_CAP_ANY_SLOT	(-1)
/* Badges: 0 (none) up to this; a badge tells a server which client called. */
#define SYS_BADGE_MAX		((1UL << 62) - 1)

/* The words a message carries besides its info word. */
#define SYS_MSG_WORDS		4

/*
 * The info word (MR0):
 *   bits  0..31  the label: what the message means (the receiver's business)
 *   bits 32..47  a capability: its slot + 1 (0: none).  On sending, the
 *                sender's slot (the endpoint capability needs
 *                SYS_CAP_GRANT); on receiving, the slot it landed in
 *   bit  48      SYS_MSG_MOVE: the capability leaves the sender's space
 *                (otherwise the receiver gets a copy derived from it)
 *   bit  49      SYS_MSG_NONBLOCK: send only if a receiver waits (-SYS_EAGAIN)
 *   bit  50      SYS_MSG_CAP_LOST (received): a capability was sent but
 *                the receiver had no empty receive slot (SYS_ipc_recv_slot)
 */
#define SYS_MSG_LABEL_MASK	0xffffffffUL
#define SYS_MSG_CAP_SHIFT	32
#define SYS_MSG_CAP_MASK	(0xffffUL << SYS_MSG_CAP_SHIFT)
#define SYS_MSG_MOVE		(1UL << 48)
#define SYS_MSG_NONBLOCK	(1UL << 49)
#define SYS_MSG_CAP_LOST	(1UL << 50)
#define SYS_MSG_FLAGS_MASK	(SYS_MSG_MOVE | SYS_MSG_NONBLOCK | SYS_MSG_CAP_LOST)

#define SYS_MSG_INFO(label)	((unsigned long)(label) & SYS_MSG_LABEL_MASK)
#define SYS_MSG_CAP(slot)	(((unsigned long)(slot) + 1) << SYS_MSG_CAP_SHIFT)
#define SYS_MSG_LABEL(info)	((unsigned int)((info) & SYS_MSG_LABEL_MASK))
/* The capability slot an info word names, or -1. */
#define SYS_MSG_CAP_SLOT(info)	((int)(((info) & SYS_MSG_CAP_MASK) >> SYS_MSG_CAP_SHIFT) - 1)

/* SYS_ipc_recv_slot's slot that refuses capabilities (a thread's default). */
#define SYS_RECV_SLOT_NONE	(-2)

/* SYS_ipc_recv's flags (argument 1). */
#define SYS_RECV_NONBLOCK	1	/* -SYS_EAGAIN if no sender waits */

/*
 * The boot capabilities: what a task the kernel starts itself begins
 * with -- the root task under make run, each user test under make test,
 * a program a kernel test starts as it would start the root task
 * (docs/microkernel.md, "The root task").  Its own quota, and one
 * program capability per boot module, in boot order (the first, the
 * root task's own, included), each with SYS_CAP_READ | SYS_CAP_EXEC.
 * High in the space, so that the slots from 0 stay the program's own.
 * A task another task spawns starts with only what its parent passed.
 */
#define SYS_BOOT_SLOT_QUOTA	895
#define SYS_BOOT_SLOT_PROGRAMS	896	/* boot module i in slot 896 + i */
#define SYS_BOOT_PROGRAMS_MAX	128

/*
 * SYS_cap_spawn's request: the program to start, with copies of the
 * caller's capabilities caps[0 .. ncaps-1] in the child's slots 0 ..
 * ncaps-1 (at most SYS_SPAWN_MAX_CAPS), spending from a quota the caller
 * names, and a capability to the child in the caller's task_slot
 * (SYS_CAP_ANY_SLOT: the first empty one; SYS_RECV_SLOT_NONE: none).
 * Its argv is the program's name, then the words of args (args_len
 * bytes, no NUL needed; 0: no arguments).
 */
struct sys_spawn {
	int program;			/* a program capability with SYS_CAP_EXEC */
	int quota;			/* a quota capability with SYS_CAP_WRITE, or SYS_SPAWN_MY_QUOTA */
	int task_slot;
	int ncaps;
	const int *caps;
	const char *args;
	unsigned long args_len;
};
#define SYS_SPAWN_MY_QUOTA	(-1)	/* the child spends from the caller's own quota */
#define SYS_SPAWN_MAX_CAPS	8

/*
 * What SYS_quota_info tells about a quota (bytes).  used is the sum of
 * the six after refused: every page the kernel spends for the tasks
 * spending from it (docs/microkernel.md, "Quotas").
 */
struct sys_quota_info {
	long limit;			/* the most that may be charged to it at once */
	long used;			/* charged now, in all */
	long peak;			/* the most ever charged */
	unsigned long refused;		/* charges refused (one let through after a wait counts too) */
	long objects;			/* kernel objects, capability nodes and tables, memory objects */
	long shares;			/* quotas carved out of it */
	long tasks;			/* its tasks' own structures */
	long threads;			/* each thread's kernel stack */
	long pages;			/* user pages: SYS_map's, stacks, program images */
	long tables;			/* page tables */
};

/* What SYS_cap_inspect tells about a capability. */
struct sys_cap_info {
	int type;			/* SYS_OBJ_* */
	int rights;			/* SYS_CAP_* */
	unsigned long badge;
	unsigned long object;		/* the object's number (unique for the boot) */
	int parent_slot;		/* the slot of what it was derived from, in this space; -1: none here */
	int children;			/* capabilities derived from it, directly */
	int revoking;			/* a revoke of it (or of an ancestor) is under way */
	int mapped;			/* memory: mapped by this capability (at `addr`) */
	unsigned long addr;
};

#endif
