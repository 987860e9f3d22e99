/*
 * Sorting the descriptors of a linker-section registry (see section.h).
 */
#include "kernel.h"
#include "section.h"

static const char *file_of(const void *d, size_t file_off)
{
	return *(const char *const *)((const char *)d + file_off);
}

static int line_of(const void *d, size_t line_off)
{
	return *(const int *)((const char *)d + line_off);
}

static bool comes_after(const void *a, const void *b, size_t file_off, size_t line_off)
{
	int c = strcmp(file_of(a, file_off), file_of(b, file_off));

	return c > 0 || (c == 0 && line_of(a, line_off) > line_of(b, line_off));
}

/* Insertion sort: registries hold a few hundred entries at most. */
void sort_by_file_and_line(const void **v, int n, size_t file_off, size_t line_off)
{
	for (int i = 1; i < n; i++) {
		const void *d = v[i];
		int j = i;

		while (j > 0 && comes_after(v[j - 1], d, file_off, line_off)) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = d;
	}
}
