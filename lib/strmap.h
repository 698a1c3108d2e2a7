/* strmap.h: a fixed-capacity hash map from strings to indexes (open addressing, FNV-1a).
 *
 * Keys are borrowed: the map stores pointers, so keys must outlive it (callers keep them in an
 * arena, or allocate each key once). The capacity is chosen at creation from the largest number
 * of keys the caller will insert, which keeps lookups O(1) expected without rehashing; a caller
 * that cannot know it grows the map with ds_strmap_reserve. */
#ifndef DAGSCHED_STRMAP_H
#define DAGSCHED_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct ds_strmap_slot {
    const char *key; /* NULL = empty */
    size_t len;
    uint64_t hash;
    size_t value;
} ds_strmap_slot;

typedef struct ds_strmap {
    ds_strmap_slot *slots;
    size_t mask; /* capacity - 1 (a power of two) */
    size_t n;
    size_t max; /* keys accepted */
} ds_strmap;

/* Room for at least max_keys keys. 0 on success, -1 when out of memory. */
int ds_strmap_init(ds_strmap *m, size_t max_keys);
void ds_strmap_free(ds_strmap *m);

/* Grow to room for at least max_keys keys, keeping every key and value (for callers that do not
 * know the number of keys in advance: double max when n reaches it). 0 on success (also when there
 * is room already); -1 when out of memory or too large, the map then unchanged. */
int ds_strmap_reserve(ds_strmap *m, size_t max_keys);

/* Insert key (len bytes) -> value unless the key is present. Returns 0 when inserted, 1 when the
 * key was present (*existing, if not NULL, receives its value) and -1 when the map is full. */
int ds_strmap_put(ds_strmap *m, const char *key, size_t len, size_t value, size_t *existing);

/* ds_strmap_put with the key's hash known already: `hash` must be the one a map stored for this
 * key (the hash field of another map's slot), which saves hashing the key again. */
int ds_strmap_put_hashed(ds_strmap *m, const char *key, size_t len, uint64_t hash, size_t value,
                         size_t *existing);

/* 0 and *value set when found, -1 otherwise. */
int ds_strmap_get(const ds_strmap *m, const char *key, size_t len, size_t *value);

#endif
