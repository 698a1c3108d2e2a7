/* hash.c: FNV-1a (hash.h). */
#include "hash.h"

#define FNV1A_PRIME 1099511628211ULL

uint64_t ds_fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= FNV1A_PRIME;
    }
    return h;
}

uint64_t ds_fnv1a_field(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s != NULL ? s : ""); *p; p++) {
        h ^= *p;
        h *= FNV1A_PRIME;
    }
    h ^= 0xff;
    return h * FNV1A_PRIME;
}

uint64_t ds_fnv1a_fields(const char *const *fields, size_t n)
{
    uint64_t h = DS_FNV1A_BASIS;
    for (size_t i = 0; i < n; i++)
        h = ds_fnv1a_field(h, fields[i]);
    return h;
}
