/* grow.c: doubling growth of a dynamic array (see grow.h). */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>

void *ds_grow(void *arr, size_t *cap, size_t elem, size_t first)
{
    if (elem == 0 || first == 0)
        return NULL;
    size_t n = *cap;
    if (n > SIZE_MAX / 2)
        return NULL;
    n = n != 0 ? n * 2 : first;
    if (n > SIZE_MAX / elem)
        return NULL;
    void *grown = realloc(arr, n * elem);
    if (grown != NULL)
        *cap = n;
    return grown;
}
