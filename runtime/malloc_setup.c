/* malloc_setup.c: how the binaries ask glibc's malloc to hold memory (see malloc_setup.h). */
#include "malloc_setup.h"

#include <limits.h>

/* Under AddressSanitizer malloc is the sanitizer's, which takes no settings. */
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define RT_GLIBC_MALLOC 1
#include <malloc.h>
#endif

int rt_malloc_setup(rt_malloc_profile p)
{
    int rc = 0;
#ifdef RT_GLIBC_MALLOC
    if (p.arenas > 0 && mallopt(M_ARENA_MAX, p.arenas) != 1)
        rc = -1;
    if (p.mmap_threshold > 0 &&
        (p.mmap_threshold > INT_MAX || mallopt(M_MMAP_THRESHOLD, (int)p.mmap_threshold) != 1))
        rc = -1;
    if (p.trim_threshold > 0 &&
        (p.trim_threshold > INT_MAX || mallopt(M_TRIM_THRESHOLD, (int)p.trim_threshold) != 1))
        rc = -1;
#else
    (void)p;
#endif
    return rc;
}

void rt_malloc_release(void)
{
#ifdef RT_GLIBC_MALLOC
    (void)malloc_trim(0);
#endif
}
