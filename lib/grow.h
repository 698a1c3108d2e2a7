/* grow.h: doubling growth of a dynamic array, the one way the append functions of the tree make
 * room for one more element. */
#ifndef DAGSCHED_GROW_H
#define DAGSCHED_GROW_H

#include <stddef.h>

/* arr (of *cap elements of elem bytes) reallocated to twice *cap elements, or to first when *cap
 * is 0; *cap then holds the new capacity. NULL when out of memory or when the size overflows:
 * arr and *cap are then unchanged and arr is still the caller's to free. */
void *ds_grow(void *arr, size_t *cap, size_t elem, size_t first);

#endif
