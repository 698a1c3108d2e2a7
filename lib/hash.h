/* hash.h: FNV-1a, the one string hash of the tree (hash tables, dedupe keys, shard picks).
 *
 * 64-bit FNV-1a (offset basis 14695981039346656037, prime 1099511628211). A key of several
 * fields is hashed field by field with a separator byte after each, so that ("ab", "c") and
 * ("a", "bc") differ. Not for anything an adversary must not collide: a table keyed by cluster
 * input bounds its chains or its size instead. */
#ifndef DAGSCHED_HASH_H
#define DAGSCHED_HASH_H

#include <stddef.h>
#include <stdint.h>

#define DS_FNV1A_BASIS 14695981039346656037ULL

/* h updated with the bytes data[0..len). */
uint64_t ds_fnv1a(uint64_t h, const void *data, size_t len);

/* h updated with the bytes of s (NULL counts as ""), then the separator byte 0xff. */
uint64_t ds_fnv1a_field(uint64_t h, const char *s);

/* The hash of n fields (NULL counts as ""), each followed by the separator. */
uint64_t ds_fnv1a_fields(const char *const *fields, size_t n);

#endif
