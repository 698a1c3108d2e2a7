/* memo.c: bounded in-memory record of recent actions (see memo.h).
 *
 * Chained buckets, not lib/strmap: entries own a copy of their key, are updated in place and are
 * dropped (the oldest first) once CTL_MEMO_MAX is reached, and ds_strmap, an insert-only index
 * of borrowed keys, has no deletion. */
#include "memo.h"

#include "hash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t hash(const char *s)
{
    return (size_t)(ds_fnv1a(DS_FNV1A_BASIS, s, strlen(s)) % CTL_MEMO_BUCKETS);
}

void ctl_memo_init(ctl_memo *m)
{
    memset(m, 0, sizeof *m);
}

void ctl_memo_free(ctl_memo *m)
{
    for (size_t b = 0; b < CTL_MEMO_BUCKETS; b++) {
        ctl_memo_entry *e = m->bucket[b];
        while (e != NULL) {
            ctl_memo_entry *next = e->next;
            free(e);
            e = next;
        }
        m->bucket[b] = NULL;
    }
    m->n = 0;
}

double ctl_memo_get(const ctl_memo *m, const char *key)
{
    for (const ctl_memo_entry *e = m->bucket[hash(key)]; e != NULL; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e->at;
    return -1.0;
}

/* Forget the oldest entry (a full scan: only reached at the bound). */
bool ctl_memo_due(const ctl_memo *m, const char *key, double now, double every)
{
    double last = ctl_memo_get(m, key);
    return !(last >= 0 && now - last < every);
}

static void drop_oldest(ctl_memo *m)
{
    ctl_memo_entry **victim = NULL;
    for (size_t b = 0; b < CTL_MEMO_BUCKETS; b++)
        for (ctl_memo_entry **pe = &m->bucket[b]; *pe != NULL; pe = &(*pe)->next)
            if (victim == NULL || (*pe)->at < (*victim)->at)
                victim = pe;
    if (victim != NULL) {
        ctl_memo_entry *e = *victim;
        *victim = e->next;
        free(e);
        m->n--;
    }
}

int ctl_memo_put(ctl_memo *m, const char *key, double at)
{
    size_t h = hash(key);
    for (ctl_memo_entry *e = m->bucket[h]; e != NULL; e = e->next)
        if (strcmp(e->key, key) == 0) {
            e->at = at;
            return 0;
        }
    if (m->n >= CTL_MEMO_MAX)
        drop_oldest(m);
    size_t len = strlen(key);
    ctl_memo_entry *e = malloc(sizeof *e + len + 1);
    if (e == NULL)
        return -1;
    memcpy(e->key, key, len + 1);
    e->at = at;
    e->next = m->bucket[h];
    m->bucket[h] = e;
    m->n++;
    return 0;
}

void ctl_memo_prune(ctl_memo *m, double before)
{
    for (size_t b = 0; b < CTL_MEMO_BUCKETS; b++) {
        ctl_memo_entry **pe = &m->bucket[b];
        while (*pe != NULL) {
            if ((*pe)->at < before) {
                ctl_memo_entry *e = *pe;
                *pe = e->next;
                free(e);
                m->n--;
            } else {
                pe = &(*pe)->next;
            }
        }
    }
}
