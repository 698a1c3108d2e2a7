/* strmap.c: string -> index hash map (see strmap.h). */
#include "strmap.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

/* Slots for max_keys keys at most half full (a power of two, at least 16); 0 when too many. */
static size_t capacity_for(size_t max_keys)
{
    size_t cap = 16;
    while (cap / 2 < max_keys) {
        if (cap > SIZE_MAX / 4 / sizeof(ds_strmap_slot))
            return 0;
        cap *= 2;
    }
    return cap;
}

int ds_strmap_init(ds_strmap *m, size_t max_keys)
{
    memset(m, 0, sizeof *m);
    size_t cap = capacity_for(max_keys);
    if (cap == 0)
        return -1;
    m->slots = calloc(cap, sizeof *m->slots);
    if (m->slots == NULL)
        return -1;
    m->mask = cap - 1;
    m->max = cap / 2;
    return 0;
}

int ds_strmap_reserve(ds_strmap *m, size_t max_keys)
{
    if (m->slots == NULL)
        return -1;
    if (max_keys <= m->max)
        return 0;
    size_t cap = capacity_for(max_keys);
    if (cap == 0)
        return -1;
    ds_strmap_slot *slots = calloc(cap, sizeof *slots);
    if (slots == NULL)
        return -1;
    for (size_t i = 0; i <= m->mask; i++) {
        if (m->slots[i].key == NULL)
            continue;
        size_t j = (size_t)m->slots[i].hash & (cap - 1);
        while (slots[j].key != NULL)
            j = (j + 1) & (cap - 1);
        slots[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->mask = cap - 1;
    m->max = cap / 2;
    return 0;
}

void ds_strmap_free(ds_strmap *m)
{
    if (m == NULL)
        return;
    free(m->slots);
    memset(m, 0, sizeof *m);
}

int ds_strmap_put(ds_strmap *m, const char *key, size_t len, size_t value, size_t *existing)
{
    if (m->slots == NULL)
        return -1;
    return ds_strmap_put_hashed(m, key, len, ds_fnv1a(DS_FNV1A_BASIS, key, len), value, existing);
}

int ds_strmap_put_hashed(ds_strmap *m, const char *key, size_t len, uint64_t h, size_t value,
                         size_t *existing)
{
    if (m->slots == NULL)
        return -1;
    for (size_t i = (size_t)h & m->mask;; i = (i + 1) & m->mask) {
        ds_strmap_slot *s = &m->slots[i];
        if (s->key == NULL) {
            if (m->n >= m->max)
                return -1;
            s->key = key;
            s->len = len;
            s->hash = h;
            s->value = value;
            m->n++;
            return 0;
        }
        if (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0) {
            if (existing != NULL)
                *existing = s->value;
            return 1;
        }
    }
}

int ds_strmap_get(const ds_strmap *m, const char *key, size_t len, size_t *value)
{
    if (m == NULL || m->slots == NULL || key == NULL)
        return -1;
    uint64_t h = ds_fnv1a(DS_FNV1A_BASIS, key, len);
    for (size_t i = (size_t)h & m->mask;; i = (i + 1) & m->mask) {
        const ds_strmap_slot *s = &m->slots[i];
        if (s->key == NULL)
            return -1;
        if (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0) {
            *value = s->value;
            return 0;
        }
    }
}
