/* malloc_setup.h: how the binaries ask glibc's malloc to hold memory, in one place.
 *
 * By default glibc gives every thread that allocates an arena of its own (up to eight per core)
 * and raises its mmap and trim thresholds each time a large block is freed. A process whose
 * informer threads decode pods while its decision or snapshot thread builds large transient
 * structures then keeps most of its resident set as free memory spread over the arenas: measured
 * with `make bench-scale` at 1,000 nodes and 5,000 pods, the controller held 9.9 MB in use and
 * 55.3 MB free (75 MB resident), the extender 13.5 MB in use and 51.3 MB free (76 MB); at 20,000
 * pods the controller held 24.2 MB in use and 84.6 MB free (116 MB).
 *
 * One arena (the controller): threads share it and free memory is reused whoever freed it; the
 * controller's threads mostly wait on the network. Fixed thresholds turn off glibc's
 * dynamic adjustment: blocks above the mmap threshold are mapped and given back when freed, and
 * free memory above the trim threshold at the top of the heap is given back. On a C library other
 * than glibc, or under AddressSanitizer (whose allocator replaces malloc), rt_malloc_setup does
 * nothing. */
#ifndef DAGSCHED_RUNTIME_MALLOC_SETUP_H
#define DAGSCHED_RUNTIME_MALLOC_SETUP_H

#include <stddef.h>

typedef struct rt_malloc_profile {
    int arenas;            /* malloc arenas at most; 0: glibc's default */
    size_t mmap_threshold; /* bytes; 0: glibc's default (dynamic) */
    size_t trim_threshold; /* bytes; 0: glibc's default (dynamic) */
} rt_malloc_profile;

/* The controller: one arena; blocks of 256 KiB and more mapped; the heap's top trimmed above
 * 1 MiB. */
#define RT_MALLOC_CONTROLLER ((rt_malloc_profile){1, 256u << 10, 1u << 20})

/* The extender: glibc's arenas (one per thread); request buffers of a few hundred KiB come and go
 * for every request, so they stay in the heap rather than being mapped and faulted in each time
 * (mmap above 8 MiB, trim above 32 MiB). Larger buffers (a request of tens of MiB, or many held
 * at once by a client trying to exhaust its memory: make runtime-replay-test) are mapped and
 * given back as soon as they are freed, so the buffered-bytes budget (httpd_budget) bounds what
 * they cost; with thresholds of 64 and 128 MiB the attack left 530 MiB resident after it ended.
 * With one arena its resident set at 20,000 pods fell from 124 to 80 MB after an idle minute, but
 * its CPU under a churn of pod changes went from 5.5 % to 11.2 % of a core (its snapshot builder
 * and its watches then share one malloc lock): CPU is what kube-scheduler waits on, so it keeps
 * glibc's arenas. MALLOC_ARENA_MAX=1 in its environment makes the other trade. */
#define RT_MALLOC_EXTENDER ((rt_malloc_profile){0, 8u << 20, 32u << 20})

/* Apply a profile; call first thing in main, before any thread starts. 0, or -1 when glibc
 * refused a setting (the others are applied; the process works either way). */
int rt_malloc_setup(rt_malloc_profile p);

/* Give the free memory inside every arena back to the system (glibc's malloc_trim: whole free
 * pages anywhere in the heap, not only at its top). For after a burst of large blocks was freed
 * (httpd.c calls it once large request buffers are gone); it walks the arenas, so not per
 * request. Nothing on other C libraries or under AddressSanitizer. */
void rt_malloc_release(void);

#endif
