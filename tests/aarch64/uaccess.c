/*
 * AArch64: how the kernel reaches user memory (arch/aarch64/uaccess.S,
 * trap.c).  With PAN on, a plain kernel load or store to a user page
 * faults and is reported as a kernel bug; copy_from_user() and its kin
 * get through with ldtr/sttr, which the CPU checks as EL0 accesses: so a
 * copy to read-only user memory fails as the user's own write would, and
 * a copy that runs into an unmapped page stops at the word (or byte) that
 * faulted, having copied all before it and nothing after, and says so.
 * The kernel never executes user memory (PXN).  (That PAN stops a plain
 * access is tests/user_uaccess.c's, on both architectures.)
 */
#include "ktest.h"
#include "aarch64.h"
#include "user/mm.h"
#include "user/uaccess.h"
#include <errno.h>

/* An address space with one writable and one read-only page, loaded here (IRQs off). */
static struct mm_struct *load_test_mm(uintptr_t *rw, uintptr_t *ro, unsigned long *flags)
{
	struct mm_struct *mm = mm_create(NULL);
	long a, b;

	if (!mm)
		return NULL;
	a = mm_map(mm, 0, PAGE_SIZE, SYS_PROT_READ | SYS_PROT_WRITE, VM_ANON);
	b = mm_map(mm, 0, PAGE_SIZE, SYS_PROT_READ, VM_ANON);
	if (a < 0 || b < 0) {
		mm_put(mm);
		return NULL;
	}
	*rw = a;
	*ro = b;
	memset(mm_frame(mm, a), 0x5a, PAGE_SIZE);	/* through the kernel's own alias */
	local_irq_save(*flags);
	switch_mm(mm);
	return mm;
}

static void unload_test_mm(struct mm_struct *mm, unsigned long flags)
{
	switch_mm(NULL);
	local_irq_restore(flags);
	mm_put(mm);
}

KTEST(uaccess_copies_through_pan_with_the_users_rights)
{
	unsigned long flags, fixed = uaccess_faults_fixed();
	uintptr_t rw, ro;
	struct mm_struct *mm = load_test_mm(&rw, &ro, &flags);
	u8 buf[64], back[64];
	int r_from, r_to, r_ro, r_partial;
	bool read_right;
	size_t left;

	KASSERT(mm);
	r_from = copy_from_user(buf, rw + 100, sizeof(buf));
	read_right = buf[0] == 0x5a && buf[sizeof(buf) - 1] == 0x5a;
	memset(buf, 0xa5, sizeof(buf));
	r_to = copy_to_user(rw + 3, buf, sizeof(buf));		/* unaligned: words, then bytes */
	r_ro = copy_to_user(ro, buf, 8);			/* EL0 may not write it: nor may we */
	/* 13 bytes before the end of the page: the next one is the guard page (unmapped) */
	left = arch_copy_from_user(back, (const void *)(rw + PAGE_SIZE - 13), 40);
	r_partial = copy_from_user(back, rw + PAGE_SIZE - 13, 40);
	switch_mm(NULL);
	local_irq_restore(flags);

	KEXPECT_EQ(r_from, 0);
	KEXPECT(read_right);
	KEXPECT_EQ(r_to, 0);
	KEXPECT(!memcmp((u8 *)mm_frame(mm, rw) + 3, buf, sizeof(buf)));
	KEXPECT_EQ(((u8 *)mm_frame(mm, rw))[2], 0x5a);	/* nothing before */
	KEXPECT_EQ(((u8 *)mm_frame(mm, rw))[3 + sizeof(buf)], 0x5a);	/* nor after */
	mm_put(mm);
	KEXPECT_EQ(r_ro, -EFAULT);
	KEXPECT_EQ(left, 40 - 8);	/* the second word faults: one copied */
	KEXPECT_EQ(r_partial, -EFAULT);
	KEXPECT_EQ(uaccess_faults_fixed() - fixed, 3);	/* each failed copy, once */
	KEXPECT(cpu_has_pan() ? pan_enabled() : true);
}

/*
 * Copies of 24 bytes (three words) and of 7 (bytes) starting k bytes
 * before an unmapped page: the words, or bytes, that fit are copied, the
 * one that faults and all after it are not, and the count says so.
 */
KTEST(uaccess_copy_stops_at_the_word_or_byte_that_faults_in_both_directions)
{
	unsigned long flags;
	uintptr_t rw, ro;
	struct mm_struct *mm;
	u8 buf[64], *frame;
	size_t from[17], to[17], from7[8], to7[8];
	bool kept = true;

	memset(buf, 1, sizeof(buf));
	mm = load_test_mm(&rw, &ro, &flags);
	KASSERT(mm);
	frame = mm_frame(mm, rw);
	for (int k = 0; k <= 16; k++) {		/* k bytes before the page's end */
		memset(frame + PAGE_SIZE - 24, 0x5a, 24);
		from[k] = arch_copy_from_user(buf, (const void *)(rw + PAGE_SIZE - k), 24);
		to[k] = arch_copy_to_user((void *)(rw + PAGE_SIZE - k), buf, 24);
		/* nothing written past the words copied */
		for (int i = k / 8 * 8; i < k; i++)
			kept &= frame[PAGE_SIZE - k + i] == 0x5a;
	}
	for (int k = 0; k < 8; k++) {
		from7[k] = arch_copy_from_user(buf, (const void *)(rw + PAGE_SIZE - k), 7);
		to7[k] = arch_copy_to_user((void *)(rw + PAGE_SIZE - k), buf, 7);
	}
	unload_test_mm(mm, flags);
	for (int k = 0; k <= 16; k++) {
		KEXPECT_EQ(from[k], 24 - k / 8 * 8);
		KEXPECT_EQ(to[k], 24 - k / 8 * 8);
	}
	KEXPECT(kept);
	for (int k = 0; k < 8; k++) {
		KEXPECT_EQ(from7[k], 7 - k);
		KEXPECT_EQ(to7[k], 7 - k);
	}
}

KTEST_EXPECT_PANIC(uaccess_kernel_never_executes_user_memory,
		   "BUG: kernel tried to execute user memory")
{
	unsigned long flags;
	struct mm_struct *mm = mm_create(NULL);
	long code = mm ? mm_map(mm, 0, PAGE_SIZE, SYS_PROT_READ | SYS_PROT_EXEC, VM_ANON) : -1;

	KASSERT(code > 0);
	*(u32 *)mm_frame(mm, code) = 0xd65f03c0;	/* ret: harmless, if it ran */
	local_irq_save(flags);
	switch_mm(mm);
	((void (*)(void))code)();
	switch_mm(NULL);
	local_irq_restore(flags);
	mm_put(mm);
}
