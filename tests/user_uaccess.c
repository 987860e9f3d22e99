/*
 * copy_from_user() and its kin (kernel/user/uaccess.c): a kernel thread
 * borrows a user address space and copies at the edges of its pages.  A
 * bad pointer -- a kernel address, an unmapped page, a read-only page
 * written -- makes the copy fail with -EFAULT, through the fault fix-up,
 * and never oopses; touching user memory any other way does (SMAP, PAN).
 */
#include "ktest.h"
#include "user/thread.h"
#include "user/uaccess.h"
#include <errno.h>

#define P	PAGE_SIZE

/* Two pages at a, the second unmapped again; a read-only page at ro. */
static struct mm_struct *setup(uintptr_t *a, uintptr_t *ro)
{
	struct mm_struct *mm = mm_create(NULL);
	long m, r;

	if (!mm)
		return NULL;
	m = mm_map(mm, 0, 2 * P, SYS_PROT_READ | SYS_PROT_WRITE, VM_ANON);
	r = mm_map(mm, 0, P, SYS_PROT_READ, VM_ANON);
	if (m < 0 || r < 0 || mm_unmap(mm, m + P, P)) {
		mm_put(mm);
		return NULL;
	}
	memset(mm_frame(mm, m), 'a', P);
	strcpy((char *)mm_frame(mm, m) + P - 6, "edge!");	/* ends at the page's end */
	*a = m;
	*ro = r;
	return mm;
}

KTEST(user_copies_fail_cleanly_on_bad_user_pointers)
{
	unsigned long fixed = uaccess_faults_fixed();
	uintptr_t a, ro;
	struct mm_struct *mm = setup(&a, &ro);
	char buf[32];
	u64 v = 0;

	if (!mm)
		KTEST_SKIP("no user address space on this architecture yet");
	kthread_use_mm(mm);
	KEXPECT_EQ(copy_from_user(buf, a + P - 13, 13), 0);
	KEXPECT(!memcmp(buf + 7, "edge!", 6));
	KEXPECT_EQ(copy_from_user(buf, a + P - 13, 20), -EFAULT);	/* into the unmapped page */
	KEXPECT_EQ(copy_from_user(buf, a + P, 1), -EFAULT);
	KEXPECT_EQ(copy_to_user(ro, "x", 1), -EFAULT);			/* read-only */
	KEXPECT_EQ(copy_to_user(a, "xyz", 3), 0);
	KEXPECT_EQ(get_user(v, a), 0);
	KEXPECT_EQ(v & 0xffffff, 'x' | 'y' << 8 | 'z' << 16);
	KEXPECT_EQ(put_user(v, a + P - 4), -EFAULT);			/* 4 of its 8 bytes unmapped */
	KEXPECT_EQ(strncpy_from_user(buf, a + P - 6, sizeof(buf)), 5);
	KEXPECT(!strcmp(buf, "edge!"));
	KEXPECT_EQ(strncpy_from_user(buf, a + P - 4, sizeof(buf)), 3);	/* "ge!" and its NUL */
	memset(mm_frame(mm, a), 'b', P);				/* no NUL before the hole */
	KEXPECT_EQ(strncpy_from_user(buf, a + P - 4, sizeof(buf)), -EFAULT);
	KEXPECT_EQ(strncpy_from_user(buf, a, 8), -E2BIG);
	/* Kernel addresses are refused before any access: nothing to fix up. */
	KEXPECT_EQ(copy_from_user(buf, (uintptr_t)buf, 8), -EFAULT);
	KEXPECT_EQ(copy_to_user((uintptr_t)&v, buf, 8), -EFAULT);
	KEXPECT_EQ(copy_from_user(buf, USER_TOP - 4, 8), -EFAULT);
	kthread_unuse_mm(mm);
	/* Each of the unmapped or read-only accesses went through the fix-up. */
	KEXPECT(uaccess_faults_fixed() - fixed >= 5);
	mm_put(mm);
}

KTEST_EXPECT_PANIC(user_memory_touched_outside_copy_from_user_oopses,
		   "outside copy_from_user()")
{
	uintptr_t a, ro;
	struct mm_struct *mm = setup(&a, &ro);

	if (!mm)
		KTEST_SKIP("no user address space on this architecture yet");
	if (!arch_user_access_guarded())
		KTEST_SKIP("this CPU has no SMAP or PAN: the kernel could read user memory");
	kthread_use_mm(mm);
	printk("reading user memory at %#lx directly: %d\n", (unsigned long)a,
	       *(volatile char *)a);
}
