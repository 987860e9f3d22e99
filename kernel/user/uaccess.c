/*
 * copy_from_user() and its kin (uaccess.h): the range check here, the
 * copy with its fault fix-up in the arch (arch_copy_from_user()).
 *
 * Why the range check, when the copy would fault anyway?  Because a
 * kernel address would not fault: the kernel may read its own memory.
 * A system call given a kernel pointer must not read or write the kernel
 * for the caller, so every address is checked to lie in user space first.
 */
#include "user/uaccess.h"
#include "user_layout.h"
#include <errno.h>

bool access_ok(uintptr_t addr, size_t n)
{
	return addr >= USER_BASE && addr <= USER_TOP && n <= USER_TOP - addr;
}

bool user_addr(uintptr_t addr)
{
	return addr >= USER_BASE && addr < USER_TOP;
}

int copy_from_user(void *dst, uintptr_t usrc, size_t n)
{
	if (!access_ok(usrc, n))
		return -EFAULT;
	return arch_copy_from_user(dst, (const void *)usrc, n) ? -EFAULT : 0;
}

int copy_to_user(uintptr_t udst, const void *src, size_t n)
{
	if (!access_ok(udst, n))
		return -EFAULT;
	return arch_copy_to_user((void *)udst, src, n) ? -EFAULT : 0;
}

/*
 * A byte at a time: simple, and a string that ends one byte before an
 * unmapped page is still read whole.  Strings here are short (a console
 * line, a command line).
 */
long strncpy_from_user(char *dst, uintptr_t usrc, size_t max)
{
	for (size_t i = 0; i < max; i++) {
		if (copy_from_user(&dst[i], usrc + i, 1))
			return -EFAULT;
		if (!dst[i])
			return i;
	}
	if (max)
		dst[max - 1] = '\0';
	return -E2BIG;
}

extern const struct exception_table_entry __ex_table_start[], __ex_table_end[];
static atomic_long_t fixups;

uintptr_t search_exception_table(uintptr_t pc)
{
	for (const struct exception_table_entry *e = __ex_table_start; e < __ex_table_end; e++)
		if (e->insn == pc)
			return e->fixup;
	return 0;
}

void uaccess_note_fixup(void)
{
	atomic_long_inc(&fixups);
}

unsigned long uaccess_faults_fixed(void)
{
	return atomic_long_read(&fixups);
}
