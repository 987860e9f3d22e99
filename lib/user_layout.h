/*
 * Where user space lies in every address space, on both architectures
 * (docs/user.md draws it).  Freestanding and free of C: the kernel, the
 * user runtime and the user linker script (user/user.ld, through cpp)
 * include it.
 *
 * The kernel keeps the first 512 GiB of every address space: it is
 * identity-mapped there, in the first top-level entry (x86-64 PML4[0],
 * AArch64 L0[0]), which every address space shares and only the kernel
 * may touch.  User space is the rest of the lower half, from 512 GiB to
 * the last page below 128 TiB (x86-64's lower canonical half; AArch64's
 * TTBR0 reaches 256 TiB, of which we use the same range).
 */
#ifndef LIB_USER_LAYOUT_H
#define LIB_USER_LAYOUT_H

/* The first user address: the second top-level entry (512 GiB). */
#define USER_BASE		0x0000008000000000
/*
 * The end of user space (exclusive).  The last page below 128 TiB is
 * never mapped: a `syscall` in its last bytes would leave a return
 * address of 2^47, which is not canonical, and sysret to it faults in
 * ring 0 on Intel CPUs (docs/user.md).
 */
#define USER_TOP		0x00007ffffffff000

/* Where programs are linked (user/user.ld): 4 MiB into user space. */
#define USER_PROGRAM_BASE	0x0000008000400000

/* Where SYS_map and the stacks find room: from 1 TiB up. */
#define USER_MAP_BASE		0x0000010000000000

/* Where the user runtime's heap (malloc's sbrk()) grows from: 2 TiB up. */
#define USER_HEAP_BASE		0x0000020000000000

/*
 * Each thread's stack, with an unmapped guard page below it; the first
 * thread's is larger (main() and what it calls may keep big arrays
 * there, as on a hosted system).  Mapped whole at once: no demand paging,
 * so every page is charged to the task's quota -- which is why the first
 * is 128 KiB, not the 512 it was: it would be most of every share, and
 * make test's programs use one or two pages of it.
 */
#define USER_STACK_PAGES	16		/* 64 KiB */
#define USER_MAIN_STACK_PAGES	32		/* 128 KiB */

#endif
