/* cache.c: the object store behind informers: an open-addressing hash table keyed by
 * namespace/name plus value -> objects indexes, under a read-write lock (see cache.h).
 *
 * The table is not lib/strmap's on purpose: its key is the pair (namespace, name) read from the
 * cached object itself, so no key string is built or stored per object (memory per cached pod is
 * what `make kube-bench` measures), and objects are deleted as watch events arrive (backward-shift
 * deletion, no tombstones), which ds_strmap, an insert-only index, does not do. */
#include "cache.h"
#include "grow.h"
#include "hash.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
    uint64_t hash;
    void *ptr; /* NULL: empty */
} slot;

typedef struct htab {
    slot *slots;
    size_t cap; /* power of two */
    size_t n;
} htab;

typedef struct idx_entry {
    char *value;
    const kube_meta **items;
    size_t n, cap;
} idx_entry;

struct kube_cache {
    pthread_rwlock_t lock;
    kube_kind kind;
    int n_indexes;
    htab objects;                 /* ptr: const kube_meta * */
    htab indexes[KUBE_INDEX_MAX]; /* ptr: idx_entry * */
};

static uint64_t key_hash(const char *ns, const char *name)
{
    const char *fields[] = {ns, name};
    return ds_fnv1a_fields(fields, 2);
}

static bool streq0(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b || (a == NULL && b[0] == '\0') || (b == NULL && a[0] == '\0');
    return strcmp(a, b) == 0;
}

static int htab_init(htab *t, size_t cap)
{
    t->slots = calloc(cap, sizeof *t->slots);
    t->cap = t->slots ? cap : 0;
    t->n = 0;
    return t->slots ? 0 : -1;
}

typedef bool (*match_fn)(const void *ptr, const void *key);

static size_t htab_find(const htab *t, uint64_t h, match_fn eq, const void *key, bool *found)
{
    size_t mask = t->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        if (t->slots[i].ptr == NULL) {
            *found = false;
            return i;
        }
        if (t->slots[i].hash == h && eq(t->slots[i].ptr, key)) {
            *found = true;
            return i;
        }
    }
}

static int htab_grow(htab *t)
{
    if ((t->n + 1) * 2 <= t->cap)
        return 0;
    size_t ncap = t->cap * 2;
    slot *ns = calloc(ncap, sizeof *ns);
    if (ns == NULL)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        if (t->slots[i].ptr == NULL)
            continue;
        size_t j = t->slots[i].hash & (ncap - 1);
        while (ns[j].ptr != NULL)
            j = (j + 1) & (ncap - 1);
        ns[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = ns;
    t->cap = ncap;
    return 0;
}

/* Delete slot i, shifting later entries of the probe run back (no tombstones). */
static void htab_delete_at(htab *t, size_t i)
{
    size_t mask = t->cap - 1;
    t->slots[i].ptr = NULL;
    t->n--;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (t->slots[j].ptr == NULL)
            return;
        size_t k = t->slots[j].hash & mask;
        bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays)
            continue;
        t->slots[i] = t->slots[j];
        t->slots[j].ptr = NULL;
        i = j;
    }
}

typedef struct obj_key {
    const char *ns;
    const char *name;
} obj_key;

static bool obj_eq(const void *ptr, const void *key)
{
    const kube_meta *m = ptr;
    const obj_key *k = key;
    return streq0(m->ns, k->ns) && strcmp(m->name, k->name) == 0;
}

static bool idx_eq(const void *ptr, const void *key)
{
    return strcmp(((const idx_entry *)ptr)->value, key) == 0;
}

int kube_pod_job_index_key(const char *ns, const char *job_key, char *buf, size_t size)
{
    if (job_key == NULL || job_key[0] == '\0')
        return -1;
    int n = snprintf(buf, size, "%s/%s", ns ? ns : "", job_key);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* The object's value for an index into buf; 0 when it has one. */
static int index_value(const kube_meta *m, int index, char *buf, size_t size)
{
    if (m->kind != KUBE_KIND_POD)
        return -1;
    const kube_pod *p = (const kube_pod *)m;
    if (index == KUBE_INDEX_POD_NODE) {
        if (p->node_name == NULL)
            return -1;
        snprintf(buf, size, "%s", p->node_name);
        return 0;
    }
    return kube_pod_job_index_key(m->ns, p->job_key, buf, size);
}

static int index_add(kube_cache *c, int index, const kube_meta *m)
{
    char v[2 * KUBE_OBJ_MAX_STR + 2];
    if (index_value(m, index, v, sizeof v) != 0)
        return 0;
    htab *t = &c->indexes[index];
    uint64_t h = ds_fnv1a_field(DS_FNV1A_BASIS, v);
    bool found;
    size_t i = htab_find(t, h, idx_eq, v, &found);
    idx_entry *e;
    if (!found) {
        if (htab_grow(t) != 0)
            return -1;
        i = htab_find(t, h, idx_eq, v, &found);
        e = calloc(1, sizeof *e);
        if (e == NULL || (e->value = strdup(v)) == NULL) {
            free(e);
            return -1;
        }
        t->slots[i].hash = h;
        t->slots[i].ptr = e;
        t->n++;
    } else {
        e = t->slots[i].ptr;
    }
    if (e->n == e->cap) {
        const kube_meta **ni = ds_grow(e->items, &e->cap, sizeof *ni, 4);
        if (ni == NULL)
            return -1;
        e->items = ni;
    }
    e->items[e->n++] = m;
    return 0;
}

static void index_del(kube_cache *c, int index, const kube_meta *m)
{
    char v[2 * KUBE_OBJ_MAX_STR + 2];
    if (index_value(m, index, v, sizeof v) != 0)
        return;
    htab *t = &c->indexes[index];
    uint64_t h = ds_fnv1a_field(DS_FNV1A_BASIS, v);
    bool found;
    size_t i = htab_find(t, h, idx_eq, v, &found);
    if (!found)
        return;
    idx_entry *e = t->slots[i].ptr;
    for (size_t j = 0; j < e->n; j++) {
        if (e->items[j] == m) {
            e->items[j] = e->items[--e->n];
            break;
        }
    }
    if (e->n == 0) {
        htab_delete_at(t, i);
        free(e->value);
        free(e->items);
        free(e);
    }
}

kube_cache *kube_cache_new(kube_kind kind)
{
    kube_cache *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->kind = kind;
    c->n_indexes = kind == KUBE_KIND_POD ? KUBE_INDEX_MAX : 0;
    if (pthread_rwlock_init(&c->lock, NULL) != 0) {
        free(c);
        return NULL;
    }
    int bad = htab_init(&c->objects, 64);
    for (int i = 0; i < c->n_indexes; i++)
        bad |= htab_init(&c->indexes[i], 16);
    if (bad) {
        kube_cache_free(c);
        return NULL;
    }
    return c;
}

void kube_cache_free(kube_cache *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < c->objects.cap; i++)
        if (c->objects.slots[i].ptr != NULL)
            kube_obj_unref(c->objects.slots[i].ptr);
    free(c->objects.slots);
    for (int x = 0; x < c->n_indexes; x++) {
        for (size_t i = 0; i < c->indexes[x].cap; i++) {
            idx_entry *e = c->indexes[x].slots[i].ptr;
            if (e != NULL) {
                free(e->value);
                free(e->items);
                free(e);
            }
        }
        free(c->indexes[x].slots);
    }
    pthread_rwlock_destroy(&c->lock);
    free(c);
}

int kube_cache_put(kube_cache *c, const kube_meta *obj, const kube_meta **old)
{
    *old = NULL;
    obj_key k = {obj->ns, obj->name};
    uint64_t h = key_hash(obj->ns, obj->name);
    pthread_rwlock_wrlock(&c->lock);
    bool found;
    size_t i = htab_find(&c->objects, h, obj_eq, &k, &found);
    if (!found) {
        if (htab_grow(&c->objects) != 0) {
            pthread_rwlock_unlock(&c->lock);
            return -1;
        }
        i = htab_find(&c->objects, h, obj_eq, &k, &found);
    }
    const kube_meta *prev = found ? c->objects.slots[i].ptr : NULL;
    /* Index the new object first so that a failure leaves everything as it was. */
    int x;
    for (x = 0; x < c->n_indexes; x++)
        if (index_add(c, x, obj) != 0)
            break;
    if (x < c->n_indexes) {
        for (int y = 0; y < x; y++)
            index_del(c, y, obj);
        pthread_rwlock_unlock(&c->lock);
        return -1;
    }
    if (prev != NULL)
        for (x = 0; x < c->n_indexes; x++)
            index_del(c, x, prev);
    c->objects.slots[i].hash = h;
    c->objects.slots[i].ptr = (void *)obj;
    if (!found)
        c->objects.n++;
    pthread_rwlock_unlock(&c->lock);
    *old = prev;
    return 0;
}

void kube_cache_remove(kube_cache *c, const char *ns, const char *name, const kube_meta **old)
{
    *old = NULL;
    obj_key k = {ns, name};
    uint64_t h = key_hash(ns, name);
    pthread_rwlock_wrlock(&c->lock);
    bool found;
    size_t i = htab_find(&c->objects, h, obj_eq, &k, &found);
    if (found) {
        const kube_meta *prev = c->objects.slots[i].ptr;
        for (int x = 0; x < c->n_indexes; x++)
            index_del(c, x, prev);
        htab_delete_at(&c->objects, i);
        *old = prev;
    }
    pthread_rwlock_unlock(&c->lock);
}

const kube_meta *kube_cache_get(kube_cache *c, const char *ns, const char *name)
{
    obj_key k = {ns, name};
    uint64_t h = key_hash(ns, name);
    pthread_rwlock_rdlock(&c->lock);
    bool found;
    size_t i = htab_find(&c->objects, h, obj_eq, &k, &found);
    const kube_meta *m = found ? kube_obj_ref(c->objects.slots[i].ptr) : NULL;
    pthread_rwlock_unlock(&c->lock);
    return m;
}

size_t kube_cache_size(kube_cache *c)
{
    pthread_rwlock_rdlock(&c->lock);
    size_t n = c->objects.n;
    pthread_rwlock_unlock(&c->lock);
    return n;
}

void kube_obj_list_free(kube_obj_list *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->n; i++)
        kube_obj_unref(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = 0;
}

int kube_obj_list_append(kube_obj_list *dst, kube_obj_list *src)
{
    if (src->n == 0)
        return 0;
    if (dst->n > SIZE_MAX / sizeof *dst->items - src->n)
        return -1;
    const kube_meta **items = realloc(dst->items, (dst->n + src->n) * sizeof *items);
    if (items == NULL)
        return -1;
    memcpy(items + dst->n, src->items, src->n * sizeof *items);
    dst->items = items;
    dst->n += src->n;
    free(src->items); /* the references now belong to dst */
    src->items = NULL;
    src->n = 0;
    return 0;
}

int kube_cache_list(kube_cache *c, kube_obj_list *out)
{
    out->items = NULL;
    out->n = 0;
    pthread_rwlock_rdlock(&c->lock);
    size_t n = c->objects.n;
    out->items = malloc((n ? n : 1) * sizeof *out->items);
    if (out->items == NULL) {
        pthread_rwlock_unlock(&c->lock);
        return -1;
    }
    for (size_t i = 0; i < c->objects.cap; i++)
        if (c->objects.slots[i].ptr != NULL)
            out->items[out->n++] = kube_obj_ref(c->objects.slots[i].ptr);
    pthread_rwlock_unlock(&c->lock);
    return 0;
}

int kube_cache_by_index(kube_cache *c, kube_index index, const char *value, kube_obj_list *out)
{
    out->items = NULL;
    out->n = 0;
    if ((int)index < 0 || (int)index >= c->n_indexes || value == NULL)
        return 0;
    uint64_t h = ds_fnv1a_field(DS_FNV1A_BASIS, value);
    pthread_rwlock_rdlock(&c->lock);
    bool found;
    size_t i = htab_find(&c->indexes[index], h, idx_eq, value, &found);
    if (found) {
        idx_entry *e = c->indexes[index].slots[i].ptr;
        out->items = malloc((e->n ? e->n : 1) * sizeof *out->items);
        if (out->items == NULL) {
            pthread_rwlock_unlock(&c->lock);
            return -1;
        }
        for (size_t j = 0; j < e->n; j++)
            out->items[out->n++] = kube_obj_ref(e->items[j]);
    }
    pthread_rwlock_unlock(&c->lock);
    return 0;
}

size_t kube_cache_table_bytes(kube_cache *c)
{
    pthread_rwlock_rdlock(&c->lock);
    size_t b = c->objects.cap * sizeof(slot);
    for (int x = 0; x < c->n_indexes; x++) {
        b += c->indexes[x].cap * sizeof(slot);
        for (size_t i = 0; i < c->indexes[x].cap; i++) {
            idx_entry *e = c->indexes[x].slots[i].ptr;
            if (e != NULL)
                b += sizeof *e + strlen(e->value) + 1 + e->cap * sizeof *e->items;
        }
    }
    pthread_rwlock_unlock(&c->lock);
    return b;
}
