/* Memory objects (memory.h): frames, and the one mapping each capability may make. */
#include "object/memory.h"
#include "object/cap.h"
#include "object/types.h"
#include "object/holds.h"
#include "user/mm.h"
#include <errno.h>

static struct memory_obj *to_mem(struct kobject *obj)
{
	return container_of(obj, struct memory_obj, base);
}

/* A grace period after its last reference: every mapping went with its capability. */
static void memory_release(struct kobject *obj)
{
	struct memory_obj *m = to_mem(obj);

	if (!m->frames)
		return;		/* (memory_create() failed: it gave the charge back) */
	page_free(m->frames, m->npages);
	quota_uncharge(obj->quota, QUOTA_OBJECTS, m->npages * PAGE_SIZE);
}

static const struct kobj_ops memory_ops = {
	.name = "memory",
	.size = sizeof(struct memory_obj),
	.release = memory_release,
};

struct kobject *memory_create(struct quota *q, long npages, int *err)
{
	struct kobject *obj;
	struct memory_obj *m;
	void *frames;

	if (npages < 1 || npages > MEMORY_MAX_PAGES) {
		*err = -EINVAL;
		return NULL;
	}
	obj = kobject_create(KOBJ_MEMORY, q, npages * PAGE_SIZE);
	if (!obj) {
		*err = -ENOMEM;
		return NULL;
	}
	frames = page_alloc(npages);
	if (!frames) {
		/* (release() must not free what we never got: give the charge back here) */
		quota_uncharge(q, QUOTA_OBJECTS, npages * PAGE_SIZE);
		to_mem(obj)->npages = 0;
		to_mem(obj)->frames = NULL;
		kobject_put(obj);
		*err = -ENOMEM;
		return NULL;
	}
	memset(frames, 0, npages * PAGE_SIZE);
	m = to_mem(obj);
	m->frames = frames;
	m->npages = npages;
	INIT_LIST_HEAD(&m->mappings);
	return obj;
}

/* The prot a capability's rights allow: each SYS_PROT_* bit needs its right. */
static bool rights_allow(unsigned int rights, int prot)
{
	return (!(prot & SYS_PROT_READ) || (rights & SYS_CAP_READ)) &&
	       (!(prot & SYS_PROT_WRITE) || (rights & SYS_CAP_WRITE)) &&
	       (!(prot & SYS_PROT_EXEC) || (rights & SYS_CAP_EXEC));
}

/*
 * Would m be writable and executable in mm with a mapping of prot?
 * (another capability to it may map it there already: cap_mutex held)
 */
static bool writable_and_executable(struct memory_obj *m, struct mm_struct *mm, int prot)
{
	struct cap *other;

	list_for_each_entry(other, &m->mappings, map_node)
		if (other->map_mm == mm && (((prot & SYS_PROT_WRITE) && (other->map_prot & SYS_PROT_EXEC)) ||
					    ((prot & SYS_PROT_EXEC) && (other->map_prot & SYS_PROT_WRITE))))
			return true;
	return false;
}

/* cap_mutex held: the memory capability in slot, or NULL and *err (-EBADF, -ENOTSUP). */
static struct cap *memory_cap(struct cspace *cs, long slot, long *err)
{
	struct cap *c = cspace_get(cs, slot);

	*err = !c ? -EBADF : c->type != KOBJ_MEMORY ? -ENOTSUP : 0;
	return *err ? NULL : c;
}

long memory_cap_map(struct cspace *cs, long slot, struct mm_struct *mm, uintptr_t addr, int prot)
{
	struct memory_obj *m;
	bool retried = false;
	struct cap *c;
	long ret;

again:
	mutex_lock(&cap_mutex);
	c = memory_cap(cs, slot, &ret);
	if (!c)
		;
	else if (!prot || (prot & ~(SYS_PROT_READ | SYS_PROT_WRITE | SYS_PROT_EXEC)) ||
		 ((prot & SYS_PROT_WRITE) && (prot & SYS_PROT_EXEC)))
		ret = -EINVAL;		/* (never writable and executable at once) */
	else if (!rights_allow(c->rights, prot))
		ret = -EACCES;
	else if (c->map_mm)
		ret = -EBUSY;		/* one mapping per capability: copy it to map again */
	else if (writable_and_executable(to_mem(c->obj), mm, prot))
		ret = -EINVAL;		/* (nor through two capabilities) */
	if (!ret) {
		m = to_mem(c->obj);
		ret = mm_map_shared(mm, addr, m->frames, m->npages, prot);
		if (ret > 0) {
			mm_get(mm);
			c->map_mm = mm;
			c->map_addr = ret;
			c->map_prot = prot;
			list_add_tail(&c->map_node, &m->mappings);
			holds_link(HOLD_CAP, c, "map_mm", HOLD_MM, mm);
		}
	}
	mutex_unlock(&cap_mutex);
	/* A page table refused under cap_mutex: reclaim with it let go, and once more. */
	if (quota_retry_after_reclaim(ret, mm->quota, &retried))
		goto again;
	return ret;
}

void memory_cap_unmap(struct cap *c)
{
	struct mm_struct *mm = c->map_mm;

	mm_unmap_shared(mm, c->map_addr);	/* returns once no TLB translates to the frames */
	list_del(&c->map_node);
	c->map_mm = NULL;
	c->map_addr = 0;
	holds_unlink(c, "map_mm", mm);
	mm_put(mm);
}

int memory_cap_unmap_slot(struct cspace *cs, long slot)
{
	struct cap *c;
	long ret;

	mutex_lock(&cap_mutex);
	c = memory_cap(cs, slot, &ret);
	if (c && !c->map_mm)
		ret = -EINVAL;
	else if (c)
		memory_cap_unmap(c);
	mutex_unlock(&cap_mutex);
	return ret;
}

void memory_init(void)
{
	kobject_register(KOBJ_MEMORY, &memory_ops);
}
