/*
 * Memory objects (kernel/object/memory.c): frames a task may map, and
 * share by passing the capability.  Each capability maps the object at
 * most once, into its holder's address space (seL4's frame capabilities
 * work the same way); the mapping belongs to the capability and goes
 * with it: deleting or revoking the capability unmaps it and waits for
 * the TLB shootdown.  The frames go back to the page allocator only with
 * the object itself -- after its last capability is gone (so after every
 * mapping and every shootdown) and a grace period.  So revoking a memory
 * capability unmaps it everywhere it was derived to, and no frame is
 * reused while any CPU may still translate to it.  Within one address
 * space the frames are never writable through one mapping and executable
 * through another (docs/user.md: writable or executable, never both).
 */
#ifndef KERNEL_OBJECT_MEMORY_H
#define KERNEL_OBJECT_MEMORY_H

#include "object/object.h"

struct cap;
struct cspace;

/* The most pages one memory object holds. */
#define MEMORY_MAX_PAGES	256

struct memory_obj {
	struct kobject base;
	void *frames;			/* npages contiguous frames */
	size_t npages;
	struct list_head mappings;	/* the struct caps that map it (cap_mutex) */
};

/* Maps the memory capability in slot of cs into mm at addr (0: anywhere) with prot. */
long memory_cap_map(struct cspace *cs, long slot, struct mm_struct *mm, uintptr_t addr, int prot);
/* Unmaps what the capability in slot mapped: 0, -EBADF, -ENOTSUP, -EINVAL (not mapped). */
int memory_cap_unmap_slot(struct cspace *cs, long slot);
/* cap_mutex held: c's mapping goes (cap.c's delete calls it). */
void memory_cap_unmap(struct cap *c);
void memory_init(void);

#endif
