/*
 * The only way the kernel touches user memory (kernel/user/uaccess.c).
 * A system call hands the kernel user addresses; any of them may be NULL,
 * a kernel address, unmapped, or unmapped by another thread while the
 * call runs.  These check the range lies in user space, then copy with
 * the arch's fault fix-up: a bad pointer makes the copy fail (-EFAULT),
 * never the kernel.  With SMAP/PAN on, any other access to user memory
 * from the kernel faults (docs/user.md).
 */
#ifndef KERNEL_USER_UACCESS_H
#define KERNEL_USER_UACCESS_H

#include "kernel.h"

/* Is [addr, addr + n) inside user space (and not wrapping)? */
bool access_ok(uintptr_t addr, size_t n);
/* Is addr itself a user address (one the kernel may jump to, or keep as a thread pointer)? */
bool user_addr(uintptr_t addr);

/* 0, or -EFAULT if any byte could not be copied (then dst is partly written). */
int copy_from_user(void *dst, uintptr_t usrc, size_t n);
int copy_to_user(uintptr_t udst, const void *src, size_t n);

/* One value of its own size: 0, or -EFAULT. */
#define get_user(x, uptr)	copy_from_user(&(x), (uintptr_t)(uptr), sizeof(x))
#define put_user(x, uptr)						\
({									\
	__typeof__(x) __pu_val = (x);					\
	copy_to_user((uintptr_t)(uptr), &__pu_val, sizeof(__pu_val));	\
})

/*
 * Copies a string of at most max - 1 bytes and its NUL into dst: its
 * length, -EFAULT, or -E2BIG if no NUL came within max bytes.
 */
long strncpy_from_user(char *dst, uintptr_t usrc, size_t max);

/*
 * The fix-up table (the .ex_table section): each entry names an
 * instruction that may fault on a user address and where to go on if it
 * does.  The arch's fault handler asks here for a fault in kernel mode.
 */
struct exception_table_entry {
	uintptr_t insn, fixup;
};
uintptr_t search_exception_table(uintptr_t pc);	/* the fixup, or 0 */

/* Faults fixed up so far (each a system call given a bad pointer), for tests. */
unsigned long uaccess_faults_fixed(void);
void uaccess_note_fixup(void);

#endif
