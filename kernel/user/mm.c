/*
 * Address spaces: the regions of one, their frames and page tables
 * (struct mm_struct, mm.h).  The page-table format is the arch's
 * (arch_mm_*: arch/<arch>/user_mm.c); this file decides what is mapped.
 *
 * The lock is a mutex, not a spinlock: an unmap waits for other CPUs to
 * flush their TLBs (tlb.c), which they do in an interrupt, and a CPU
 * spinning on a lock with interrupts off could never take it.
 *
 * Every page is charged to the address space's quota (mm->quota): each
 * frame mm_map() zeroes for it, before the lock is taken, so the charge
 * may wait for a grace period; and each page table, charged under the
 * lock by the walk that adds it (pgtable.c), never waiting -- refused,
 * map_region() undoes, lets go of the lock, reclaims and tries once more;
 * or, where its caller holds a lock of its own (a memory capability's
 * map under cap_mutex, a device's under its lock), returns -ENOMEM and
 * the caller does that once it let go (quota_retry_after_reclaim()).
 * A frame is uncharged when it is freed; a table when the address space
 * is.  A memory object's frames are its own (charged as an object), a
 * device's registers are not memory.  A region's own struct is not
 * charged: each maps at least one charged page, or is the mapping of a
 * memory capability, which is charged (48 bytes for 4 KiB at the most).
 */
#include "user/mm.h"
#include "user/user.h"
#include "object/holds.h"
#include "object/quota.h"
#include <errno.h>

/* Pages a loop over pages zeroes or unmaps between two chances for the CPU to go. */
#define RESCHED_PAGES	16

static atomic_long_t live_mms;

struct mm_struct *mm_create(struct quota *q)
{
	struct mm_struct *mm = kzalloc(sizeof(*mm), GFP_KERNEL);
	int err;

	if (!mm)
		return NULL;
	err = arch_mm_init(&mm->arch, q);
	/* (its top-level table's charge never waits: refused, reclaim and try once more) */
	if (err && q && quota_reclaim(q))
		err = arch_mm_init(&mm->arch, q);
	if (err) {
		kfree(mm);
		return NULL;
	}
	mm->quota = q;
	if (q)
		quota_get(q);
	atomic_set(&mm->users, 1);
	mutex_init(&mm->lock);
	INIT_LIST_HEAD(&mm->regions);
	atomic_long_inc(&live_mms);
	return mm;
}

void mm_get(struct mm_struct *mm)
{
	atomic_inc(&mm->users);
}

static bool prot_valid(int prot)
{
	if (prot & ~(SYS_PROT_READ | SYS_PROT_WRITE | SYS_PROT_EXEC))
		return false;
	/* User memory is never both writable and executable (docs/user.md). */
	return (prot & (SYS_PROT_WRITE | SYS_PROT_EXEC)) != (SYS_PROT_WRITE | SYS_PROT_EXEC);
}

/* Is [start, end) a non-empty page-aligned range inside user space? */
static bool user_range(uintptr_t start, uintptr_t end)
{
	return start < end && start >= USER_BASE && end <= USER_TOP &&
	       !(start % PAGE_SIZE) && !(end % PAGE_SIZE);
}

static bool overlaps(struct mm_struct *mm, uintptr_t start, uintptr_t end)
{
	struct vm_region *r;

	list_for_each_entry(r, &mm->regions, node)
		if (start < r->end && end > r->start)
			return true;
	return false;
}

/*
 * The lowest room for len bytes from USER_MAP_BASE up, one unmapped page
 * below it and one above it: a stack that overflows, or an array that
 * runs off its end, faults instead of reaching the next region.  0: none.
 */
static uintptr_t find_room(struct mm_struct *mm, size_t len)
{
	uintptr_t start = USER_MAP_BASE + PAGE_SIZE;
	struct vm_region *r;

	list_for_each_entry(r, &mm->regions, node) {
		if (r->end + PAGE_SIZE <= start)
			continue;
		if (start + len + PAGE_SIZE <= r->start)
			return start;
		start = max(start, r->end + PAGE_SIZE);
	}
	return start + len <= USER_TOP - PAGE_SIZE ? start : 0;
}

/* Inserts r in address order. */
static void insert_region(struct mm_struct *mm, struct vm_region *r)
{
	struct vm_region *pos;

	list_for_each_entry(pos, &mm->regions, node) {
		if (pos->start > r->start) {
			list_add_tail(&r->node, &pos->node);
			return;
		}
	}
	list_add_tail(&r->node, &mm->regions);
}

/* The quota the frames mm_map() zeroes are charged to (NULL: nobody, or quota.inject=uncharged_pages). */
static struct quota *pages_quota(struct mm_struct *mm)
{
	return quota_pages_uncharged() ? NULL : mm->quota;
}

static bool charge_pages(struct mm_struct *mm, size_t npages)
{
	struct quota *q = pages_quota(mm);

	return !q || quota_charge(q, QUOTA_PAGES, npages * PAGE_SIZE);
}

static void uncharge_pages(struct mm_struct *mm, size_t npages)
{
	struct quota *q = pages_quota(mm);

	if (q)
		quota_uncharge(q, QUOTA_PAGES, npages * PAGE_SIZE);
}

/*
 * Unmaps the frames of [start, end), in batches, and frees them once the
 * TLBs forgot them (tlb.c) -- unless they are not ours (VM_SHARED: a
 * memory object's, freed with it).  How many it freed: the caller
 * uncharges them.  mm->lock held; the range is as long as the program
 * asked, so the CPU may go every RESCHED_PAGES pages (user_cond_resched():
 * the frames unmapped so far stay ours, and reachable through other CPUs'
 * TLBs, until the batch's shootdown).
 */
#define UNMAP_BATCH	64

static size_t unmap_pages(struct mm_struct *mm, uintptr_t start, uintptr_t end, bool free)
{
	void *frames[UNMAP_BATCH];
	size_t freed = 0, walked = 0;

	while (start < end) {
		uintptr_t batch_start = start;
		int n = 0;

		for (; start < end && n < UNMAP_BATCH; start += PAGE_SIZE) {
			uintptr_t pa = arch_mm_unmap(&mm->arch, start);

			if (pa)
				frames[n++] = (void *)pa;
			if (++walked % RESCHED_PAGES == 0 && start + PAGE_SIZE < end)
				user_cond_resched();
		}
		if (!n)
			continue;
		/*
		 * The frames are out of the page tables, but a CPU may still
		 * translate to them from its TLB: only after every such CPU
		 * has flushed may they be reused.
		 */
		tlb_shootdown(mm, batch_start, start);
		for (int i = 0; free && i < n; i++)
			page_free(frames[i], 1);
		freed += free ? n : 0;
		mm->pages -= n;
	}
	return freed;
}

/*
 * One try of map_region(), the frames already charged: the address, or
 * -ENOMEM (no memory, or a page table the quota refused), -EEXIST.
 * Nothing is left behind on failure.
 */
static long try_map_region(struct mm_struct *mm, struct vm_region *r, uintptr_t addr,
			   size_t len, void *frames)
{
	uintptr_t a;

	mutex_lock(&mm->lock);
	if (!addr)
		addr = find_room(mm, len);
	if (!addr) {
		mutex_unlock(&mm->lock);
		return -ENOMEM;
	}
	if (overlaps(mm, addr, addr + len)) {
		mutex_unlock(&mm->lock);
		return -EEXIST;
	}
	for (a = addr; a < addr + len; a += PAGE_SIZE) {
		void *frame = frames ? (char *)frames + (a - addr) : page_alloc(1);

		if (!frame)
			break;
		if (!frames)
			memset(frame, 0, PAGE_SIZE);
		if (arch_mm_map(&mm->arch, a, (uintptr_t)frame, r->prot)) {
			if (!frames)
				page_free(frame, 1);
			break;
		}
		mm->pages++;
		if ((a - addr) / PAGE_SIZE % RESCHED_PAGES == RESCHED_PAGES - 1 &&
		    a + PAGE_SIZE < addr + len)
			user_cond_resched();	/* (as many pages as the program asked) */
	}
	if (a < addr + len) {
		unmap_pages(mm, addr, a, !frames);	/* out of memory: undo (map_region() uncharges) */
		mutex_unlock(&mm->lock);
		return -ENOMEM;
	}
	r->start = addr;
	r->end = addr + len;
	insert_region(mm, r);
	mutex_unlock(&mm->lock);
	return addr;
}

/*
 * Maps [addr, addr + len) (addr 0: where there is room) with prot as a
 * region of kind: the frames of a memory object (frames, contiguous), or
 * new zeroed ones (frames NULL), charged to the quota first.  The
 * address, or -ENOMEM (no memory, no room, the quota spent), -EEXIST.
 * caller_locked: the caller holds a lock, so no reclaim here (above).
 */
static long map_region(struct mm_struct *mm, uintptr_t addr, size_t len, int prot,
		       enum vm_kind kind, void *frames, bool caller_locked)
{
	struct vm_region *r = kzalloc(sizeof(*r), GFP_KERNEL);
	size_t npages = frames ? 0 : len / PAGE_SIZE;
	long ret;

	if (!r)
		return -ENOMEM;
	r->prot = prot;
	r->kind = kind;
	if (!charge_pages(mm, npages)) {
		kfree(r);
		return -ENOMEM;
	}
	ret = try_map_region(mm, r, addr, len, frames);
	/* A page table its quota refused under the lock: reclaim now, unlocked, and once more. */
	if (ret == -ENOMEM && !caller_locked && mm->quota && quota_reclaim(mm->quota))
		ret = try_map_region(mm, r, addr, len, frames);
	if (ret < 0) {
		uncharge_pages(mm, npages);
		kfree(r);
	}
	return ret;
}

long mm_map(struct mm_struct *mm, uintptr_t addr, size_t len, int prot, enum vm_kind kind)
{
	if (!len || len > USER_TOP - USER_BASE || !prot_valid(prot))
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (len / PAGE_SIZE > page_free_count())
		return -ENOMEM;		/* would fail anyway, after taking every page */
	if (addr && !user_range(addr, addr + len))
		return -EINVAL;
	return map_region(mm, addr, len, prot, kind, NULL, false);
}

long mm_map_shared(struct mm_struct *mm, uintptr_t addr, void *frames, size_t npages, int prot)
{
	size_t len = npages * PAGE_SIZE;

	if (!npages || !prot_valid(prot) || (addr && !user_range(addr, addr + len)))
		return -EINVAL;
	return map_region(mm, addr, len, prot, VM_SHARED, frames, true);
}

long mm_map_device(struct mm_struct *mm, uintptr_t addr, uintptr_t pa, size_t npages)
{
	size_t len = npages * PAGE_SIZE;

	if (!npages || pa % PAGE_SIZE || (addr && !user_range(addr, addr + len)))
		return -EINVAL;
	return map_region(mm, addr, len, SYS_PROT_READ | SYS_PROT_WRITE | ARCH_PROT_DEVICE,
			  VM_DEVICE, (void *)pa, true);
}

/* The region of kind at addr goes, its TLB entries first; its frames are not ours to free. */
static void unmap_region_at(struct mm_struct *mm, uintptr_t addr, enum vm_kind kind)
{
	struct vm_region *r;

	mutex_lock(&mm->lock);
	list_for_each_entry(r, &mm->regions, node) {
		if (r->kind == kind && r->start == addr) {
			unmap_pages(mm, r->start, r->end, false);	/* waits for the TLBs */
			list_del(&r->node);
			kfree(r);
			break;
		}
	}
	mutex_unlock(&mm->lock);
}

void mm_unmap_shared(struct mm_struct *mm, uintptr_t addr)
{
	unmap_region_at(mm, addr, VM_SHARED);
}

void mm_unmap_device(struct mm_struct *mm, uintptr_t addr)
{
	unmap_region_at(mm, addr, VM_DEVICE);
}

/*
 * Cuts [start, end) out of region r: shrinks it, splits it in two (the
 * second half in *spare, which the caller allocated), or empties it.
 * Returns true if r is now empty.
 */
static bool cut_region(struct vm_region *r, uintptr_t start, uintptr_t end,
		       struct vm_region **spare)
{
	if (start <= r->start && end >= r->end)
		return true;
	if (start > r->start && end < r->end) {
		struct vm_region *tail = *spare;

		*spare = NULL;
		*tail = *r;
		tail->start = end;
		r->end = start;
		list_add(&tail->node, &r->node);
		return false;
	}
	if (start <= r->start)
		r->start = end;
	else
		r->end = start;
	return false;
}

int mm_unmap(struct mm_struct *mm, uintptr_t addr, size_t len)
{
	struct vm_region *r, *n, *spare;
	uintptr_t end;

	if (!len || len > USER_TOP - USER_BASE)
		return -EINVAL;
	end = addr + ALIGN_UP(len, PAGE_SIZE);
	if (!user_range(addr, end))
		return -EINVAL;
	/* At most one region is split in two: its second half needs a struct. */
	spare = kzalloc(sizeof(*spare), GFP_KERNEL);
	if (!spare)
		return -ENOMEM;
	mutex_lock(&mm->lock);
	list_for_each_entry(r, &mm->regions, node) {
		if ((r->kind == VM_SHARED || r->kind == VM_DEVICE) && addr < r->end &&
		    end > r->start) {
			/* A memory object's mapping goes with its capability (SYS_mem_unmap). */
			mutex_unlock(&mm->lock);
			kfree(spare);
			return -EINVAL;
		}
	}
	list_for_each_entry_safe(r, n, &mm->regions, node) {
		uintptr_t s = max(addr, r->start), e = min(end, r->end);

		if (s >= e)
			continue;
		uncharge_pages(mm, unmap_pages(mm, s, e, true));
		if (cut_region(r, s, e, &spare)) {
			list_del(&r->node);
			kfree(r);
		}
	}
	mutex_unlock(&mm->lock);
	kfree(spare);
	return 0;
}

void mm_put(struct mm_struct *mm)
{
	struct vm_region *r, *n;

	/*
	 * [mm_put_dec] pairs [mm_put_dec]: fully ordered, so every other
	 * holder's accesses come before its decrement, and the put that
	 * reaches zero frees after all of them.
	 */
	if (!atomic_dec_and_test(&mm->users))
		return;
	if (cpumask_weight(&mm->cpus))
		panic("BUG: freeing an address space still loaded on CPU%d",
		      cpumask_first(&mm->cpus));
	holds_check_free(HOLD_MM, mm);	/* (kernel/object/holds.h) */
	mutex_lock(&mm->lock);
	list_for_each_entry_safe(r, n, &mm->regions, node) {
		uncharge_pages(mm, unmap_pages(mm, r->start, r->end,
					       r->kind != VM_SHARED && r->kind != VM_DEVICE));
		list_del(&r->node);
		kfree(r);
	}
	mutex_unlock(&mm->lock);
	arch_mm_destroy(&mm->arch);	/* (its tables' charges go back) */
	if (mm->quota)
		quota_put(mm->quota);
	atomic_long_dec(&live_mms);
	kfree(mm);
}

void *mm_frame(struct mm_struct *mm, uintptr_t va)
{
	return (void *)arch_mm_lookup(&mm->arch, ALIGN_DOWN(va, PAGE_SIZE));
}

bool mm_region_of(struct mm_struct *mm, uintptr_t addr, struct vm_region *out)
{
	struct vm_region *r;
	bool found = false;

	mutex_lock(&mm->lock);
	list_for_each_entry(r, &mm->regions, node) {
		if (addr >= r->start && addr < r->end) {
			*out = *r;
			found = true;
			break;
		}
	}
	mutex_unlock(&mm->lock);
	return found;
}

bool mm_stack_guard_hit(struct mm_struct *mm, uintptr_t addr)
{
	struct vm_region r;

	return addr <= UINTPTR_MAX - PAGE_SIZE &&
	       mm_region_of(mm, addr + PAGE_SIZE, &r) && r.kind == VM_STACK &&
	       addr < r.start;
}

/*
 * A kernel thread borrows an address space (Linux's kthread_use_mm()):
 * copy_from_user() & co then reach its user half.  Its own scheduler
 * hook loads it again at every switch back (user_context_switch()).
 */
void kthread_use_mm(struct mm_struct *mm)
{
	unsigned long flags;

	if (current->user || current->mm)
		panic("BUG: kthread_use_mm() from %s, which has an address space", current->comm);
	mm_get(mm);
	local_irq_save(flags);
	current->mm = mm;
	switch_mm(mm);
	local_irq_restore(flags);
}

void kthread_unuse_mm(struct mm_struct *mm)
{
	unsigned long flags;

	local_irq_save(flags);
	current->mm = NULL;
	switch_mm(NULL);
	local_irq_restore(flags);
	mm_put(mm);
}

long mm_live_count(void)
{
	return atomic_long_read(&live_mms);
}
