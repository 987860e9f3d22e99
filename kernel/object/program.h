/*
 * Program objects (kernel/object/program.c): the boot modules as
 * capabilities name them.  Starting a program takes a capability to it
 * with SYS_CAP_EXEC (SYS_cap_spawn); reading its name, SYS_CAP_READ.
 * The kernel makes one per boot module at boot and keeps the originals
 * in a capability space of its own, the boot space, slot i for module i:
 * every program capability a task holds is derived from one of them, so
 * the monitor's caps shows where it came from.  They are never freed:
 * the boot modules stay for the life of the kernel.
 */
#ifndef KERNEL_OBJECT_PROGRAM_H
#define KERNEL_OBJECT_PROGRAM_H

#include "object/object.h"

struct boot_module;
struct cspace;

/* The boot module a program object names. */
const struct boot_module *program_module(struct kobject *obj);
/*
 * Copies of every program capability of the boot space into cs, module
 * i in slot SYS_BOOT_SLOT_PROGRAMS + i: 0, or -errno.
 */
int program_caps_grant(struct cspace *cs);
/*
 * The program object of the boot module called name, with a reference,
 * through the boot space's capability to it (with SYS_CAP_EXEC): how the
 * kernel starts a server of its own, the console server, by capability
 * as a task would.  NULL if no boot module has that name.
 */
struct kobject *program_get(const char *name);

/* After boot_modules_init(): a program object per boot module, in the boot space. */
void program_objects_init(void);
void program_obj_init(void);

#endif
