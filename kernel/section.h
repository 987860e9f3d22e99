/*
 * Registries the linker builds: the macro that declares a test, a
 * benchmark, a demo or a kernel parameter places a descriptor in a
 * section of its own, and the code walks the section between its start
 * and end symbols (linker.ld) -- no list to edit.  The link order is not
 * the order a reader sees in the source tree, so descriptors that record
 * their __FILE__ and __LINE__ are shown and run sorted by them.
 */
#ifndef KERNEL_SECTION_H
#define KERNEL_SECTION_H

#include "types.h"

/*
 * Sorts n pointers to descriptors by file name, then line; file_off and
 * line_off say where a descriptor keeps its `const char *file` and
 * `int line`.  SORT_BY_FILE_AND_LINE(v, n, struct ktest) says it for you.
 */
void sort_by_file_and_line(const void **v, int n, size_t file_off, size_t line_off);
#define SORT_BY_FILE_AND_LINE(v, n, type)					\
	sort_by_file_and_line((const void **)(v), (n), offsetof(type, file),	\
			      offsetof(type, line))

#endif
