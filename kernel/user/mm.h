/*
 * An address space: the user half of one set of page tables, the regions
 * mapped in it, and the CPUs that may hold its translations in their TLBs
 * (kernel/user/mm.c, tlb.c; docs/user.md draws the layout).
 *
 * Who holds a reference (users): the task that owns it (one), and anyone
 * who must keep it while not running in it (a test reading its counters).
 * The last mm_put() unmaps every region, waits for the TLB shootdowns
 * that needs, and frees the page tables: no CPU may have it loaded then
 * (a dying task's last thread switches to the kernel's tables first).
 *
 * Frames are allocated when mapped (no demand paging, so every user fault
 * is fatal) and freed only once every CPU that could still translate to
 * them has flushed its TLB: a TLB shootdown is a grace period of its own
 * (tlb.c).  Every frame it zeroes and every page table it adds is charged
 * to its quota (mm.c says when).
 */
#ifndef KERNEL_USER_MM_H
#define KERNEL_USER_MM_H

#include "kernel.h"
#include "syscall.h"
#include "user_layout.h"
#include <asm/mm.h>

enum vm_kind {
	VM_ANON,		/* SYS_map */
	VM_PROGRAM,		/* an ELF segment */
	VM_STACK,		/* a thread's stack (a guard page below it stays unmapped) */
	VM_SHARED,		/* a memory object's frames (kernel/object/memory.c): not ours to free */
	VM_DEVICE,		/* a device's registers (kernel/object/device.c): not RAM, never freed */
};

struct vm_region {
	struct list_head node;		/* on mm->regions, in address order */
	uintptr_t start, end;		/* page-aligned, [start, end) */
	int prot;			/* SYS_PROT_* */
	enum vm_kind kind;
};

struct mm_struct {
	atomic_t users;			/* references (above) */
	struct mutex lock;		/* the regions, the page tables, pages */
	struct arch_mm arch;		/* the page tables (arch/<arch>/include/asm/mm.h) */
	struct list_head regions;
	/*
	 * The CPUs that may hold translations of this address space: those
	 * that have it loaded now (tlb.c says why that is enough).  Set by
	 * switch_mm() before loading it, cleared after loading another.
	 */
	struct cpumask cpus;
	size_t pages;			/* user frames mapped */
	struct quota *quota;		/* its frames and tables are charged to it (a reference; NULL: nobody) */
	unsigned long tlb_shootdowns;	/* unmaps that had to ask other CPUs */
	unsigned long tlb_ipis;		/* CPUs asked, in all */
	struct cpumask tlb_ipi_cpus;	/* every CPU ever asked (tests) */
	/* SYS_membarrier's registration (membarrier.c): set once, never cleared. */
	bool membarrier_registered;
};

/*
 * An empty address space whose frames and page tables are charged to q
 * (NULL: to nobody -- a kernel test's own); NULL if q or the kernel is
 * out of memory.  May wait for a grace period (quota_reclaim()).
 */
struct mm_struct *mm_create(struct quota *q);
void mm_get(struct mm_struct *mm);
void mm_put(struct mm_struct *mm);

/*
 * Maps len bytes (rounded up to pages) of zeroed memory with prot at addr,
 * or where there is room when addr is 0 (with an unmapped page below, so
 * a stack that overflows faults).  Returns the address, or -EINVAL (bad
 * arguments, W+X), -EEXIST (addr overlaps a region), -ENOMEM (no room,
 * no memory, or the quota cannot pay for the pages and their tables).
 * May wait for a grace period (its quota's frees): the caller holds no
 * lock.
 */
long mm_map(struct mm_struct *mm, uintptr_t addr, size_t len, int prot, enum vm_kind kind);
/*
 * Unmaps [addr, addr + len): 0, or -EINVAL (bad range, or it touches a
 * VM_SHARED region, which only its capability unmaps). Pages not mapped
 * are skipped.
 */
int mm_unmap(struct mm_struct *mm, uintptr_t addr, size_t len);
/*
 * A memory object's npages frames at addr (0: where there is room) with
 * prot, as a VM_SHARED region: the address, or -EINVAL, -EEXIST, -ENOMEM.
 * mm_unmap_shared() removes it, waiting for the TLB shootdown; neither
 * frees the frames, which are the object's.  For a caller that holds a
 * lock (cap_mutex): a page table the quota refused is -ENOMEM at once,
 * and the caller reclaims once it let go (quota_retry_after_reclaim()).
 */
long mm_map_shared(struct mm_struct *mm, uintptr_t addr, void *frames, size_t npages, int prot);
void mm_unmap_shared(struct mm_struct *mm, uintptr_t addr);
/*
 * A device's registers, npages at physical pa, at addr (0: where there is
 * room), readable and writable, uncached, never executable: a VM_DEVICE
 * region, which only its device object (mm_unmap_device(), waiting for
 * the TLB shootdown) or the end of the address space unmaps.  The
 * address, or -EINVAL, -EEXIST, -ENOMEM (with the device's lock held, as
 * mm_map_shared(): the caller reclaims).
 */
long mm_map_device(struct mm_struct *mm, uintptr_t addr, uintptr_t pa, size_t npages);
void mm_unmap_device(struct mm_struct *mm, uintptr_t addr);
/*
 * The kernel's address of the frame behind a mapped user page (identity
 * mapped: the loader fills pages through it, never through the user's
 * mapping); NULL if none.  mm->lock held, or an mm no thread runs yet.
 */
void *mm_frame(struct mm_struct *mm, uintptr_t va);
/* For fault reports: the region holding addr (copied into *r), or false. */
bool mm_region_of(struct mm_struct *mm, uintptr_t addr, struct vm_region *r);
/* Is addr in the unmapped guard page just below a stack region? */
bool mm_stack_guard_hit(struct mm_struct *mm, uintptr_t addr);

/* A kernel thread uses mm's user half (benchmarks, tests), and gives it back. */
void kthread_use_mm(struct mm_struct *mm);
void kthread_unuse_mm(struct mm_struct *mm);

/* Each CPU's address space (NULL: the kernel's), kept by switch_mm() (tlb.c). */
DECLARE_PER_CPU(struct mm_struct *, loaded_mm);
void __switch_mm(struct mm_struct *prev, struct mm_struct *next, int cpu);

/*
 * Loads next (NULL: the kernel's tables) on this CPU; interrupts off.
 * Inline for the common case, every switch between threads of one task:
 * next is loaded already, and there is nothing to do.
 */
static inline void switch_mm(struct mm_struct *next)
{
	int cpu = smp_processor_id();
	struct mm_struct *prev = per_cpu(loaded_mm, cpu);

	if (prev != next)
		__switch_mm(prev, next, cpu);
}
/* The address space loaded on this CPU (NULL: the kernel's). */
struct mm_struct *current_mm_loaded(void);
/*
 * The address space loaded on cpu now, as another CPU sees it: a pointer
 * to compare, never to follow (membarrier.c says why that is enough).
 */
struct mm_struct *mm_loaded_on(int cpu);
/*
 * Checking build, on every way back to user mode: panics if this CPU
 * loaded an address space and skipped [switch_mm_mb] since.
 */
void switch_mm_check_user_return(void);

/* tlb.c: after clearing PTEs of [start, end), before freeing their frames. */
void tlb_shootdown(struct mm_struct *mm, uintptr_t start, uintptr_t end);
/* TLB flush IPIs this CPU took (tests: only the CPUs that ran a task). */
unsigned long tlb_flush_ipis_taken(int cpu);

/* Frames and page tables of every address space, for the leak check and ps. */
long mm_live_count(void);

#endif
