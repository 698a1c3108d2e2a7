/* runtime_history.c: run times learned from history (see runtime_history.h). */
#include "runtime_history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ds_rt_history_init(ds_rt_history *h, size_t max_keys, ds_err *err)
{
    memset(h, 0, sizeof *h);
    if (max_keys == 0 || max_keys > 1000000)
        return ds_err_set(err, "runtime history: max_keys must be 1..1000000 (got %zu)", max_keys);
    h->entries = calloc(max_keys, sizeof *h->entries);
    if (h->entries == NULL || ds_strmap_init(&h->index, max_keys) != 0) {
        free(h->entries);
        h->entries = NULL;
        return ds_err_set(err, "runtime history: out of memory (%zu keys)", max_keys);
    }
    h->max_keys = max_keys;
    return 0;
}

void ds_rt_history_free(ds_rt_history *h)
{
    if (h == NULL)
        return;
    free(h->entries);
    ds_strmap_free(&h->index);
    memset(h, 0, sizeof *h);
}

bool ds_rt_key(const char *ns, const char *family, const char *task, char *buf, size_t size)
{
    if (ns == NULL || family == NULL || task == NULL || ns[0] == '\0' || family[0] == '\0' ||
        task[0] == '\0' || buf == NULL || size == 0)
        return false;
    int n = snprintf(buf, size, "%s/%s/%s", ns, family, task);
    if (n < 0 || (size_t)n >= size || (size_t)n >= DS_RT_KEY_MAX) {
        buf[0] = '\0';
        return false;
    }
    /* A key is one field of a line of the text form. */
    for (int i = 0; i < n; i++)
        if (buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == ' ') {
            buf[0] = '\0';
            return false;
        }
    return true;
}

/* Rebuild the index after an entry changed its key (the map has no removal). */
static int reindex(ds_rt_history *h)
{
    ds_strmap_free(&h->index);
    if (ds_strmap_init(&h->index, h->max_keys) != 0)
        return -1;
    for (size_t i = 0; i < h->n; i++)
        if (ds_strmap_put(&h->index, h->entries[i].key, strlen(h->entries[i].key), i, NULL) < 0)
            return -1;
    return 0;
}

/* The entry of key, created (or taking the place of the one seen longest ago) when absent. */
static ds_rt_entry *entry_for(ds_rt_history *h, const char *key, ds_err *err)
{
    size_t i, len = strlen(key);
    if (ds_strmap_get(&h->index, key, len, &i) == 0)
        return &h->entries[i];
    if (h->n < h->max_keys) {
        i = h->n++;
        memset(&h->entries[i], 0, sizeof h->entries[i]);
        memcpy(h->entries[i].key, key, len + 1);
        if (ds_strmap_put(&h->index, h->entries[i].key, len, i, NULL) < 0) {
            h->n--;
            ds_err_set(err, "runtime history: index full");
            return NULL;
        }
        return &h->entries[i];
    }
    i = 0;
    for (size_t k = 1; k < h->n; k++)
        if (h->entries[k].last_seen < h->entries[i].last_seen)
            i = k;
    memset(&h->entries[i], 0, sizeof h->entries[i]);
    memcpy(h->entries[i].key, key, len + 1);
    if (reindex(h) != 0) {
        ds_err_set(err, "runtime history: out of memory");
        return NULL;
    }
    return &h->entries[i];
}

static void push_sample(ds_rt_entry *e, double seconds)
{
    if (e->n == DS_RT_SAMPLES) {
        memmove(e->samples, e->samples + 1, (DS_RT_SAMPLES - 1) * sizeof e->samples[0]);
        e->n--;
    }
    e->samples[e->n++] = (float)seconds;
}

static bool valid_sample(double s)
{
    return isfinite(s) && s > 0.0 && s <= DS_RT_MAX_SAMPLE_S;
}

int ds_rt_history_record(ds_rt_history *h, const char *key, const char *uid, double seconds,
                         double now, ds_err *err)
{
    if (h == NULL || h->entries == NULL || key == NULL || uid == NULL)
        return ds_err_set(err, "runtime history: missing input");
    size_t kl = strnlen(key, DS_RT_KEY_MAX), ul = strnlen(uid, DS_RT_UID_MAX);
    if (kl == 0 || kl >= DS_RT_KEY_MAX || ul == 0 || ul >= DS_RT_UID_MAX)
        return ds_err_set(err, "runtime history: key or uid empty or too long");
    if (!valid_sample(seconds) || !isfinite(now))
        return 0;
    size_t i;
    if (ds_strmap_get(&h->index, key, kl, &i) == 0 && strcmp(h->entries[i].last_uid, uid) == 0)
        return 0;
    ds_rt_entry *e = entry_for(h, key, err);
    if (e == NULL)
        return -1;
    push_sample(e, seconds);
    memcpy(e->last_uid, uid, ul + 1);
    e->last_seen = now;
    h->dirty = true;
    return 1;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

double ds_rt_history_estimate(const ds_rt_history *h, const char *key, unsigned *n_runs)
{
    if (n_runs != NULL)
        *n_runs = 0;
    size_t i;
    if (h == NULL || h->entries == NULL || key == NULL ||
        ds_strmap_get(&h->index, key, strnlen(key, DS_RT_KEY_MAX), &i) != 0 || h->entries[i].n == 0)
        return NAN;
    const ds_rt_entry *e = &h->entries[i];
    float s[DS_RT_SAMPLES];
    memcpy(s, e->samples, e->n * sizeof s[0]);
    qsort(s, e->n, sizeof s[0], cmp_float);
    /* Nearest rank: the smallest value with at least 90 % of the runs at or below it. */
    size_t rank = (size_t)ceil(DS_RT_PERCENTILE * (double)e->n - 1e-9);
    if (rank < 1)
        rank = 1;
    if (n_runs != NULL)
        *n_runs = e->n;
    return (double)s[rank - 1];
}

static int cmp_entry_key(const void *a, const void *b)
{
    return strcmp((*(const ds_rt_entry *const *)a)->key, (*(const ds_rt_entry *const *)b)->key);
}

int ds_rt_history_encode(ds_rt_history *h, ds_bytebuf *out, ds_err *err)
{
    if (h == NULL || out == NULL)
        return ds_err_set(err, "runtime history: missing input");
    const ds_rt_entry **order = calloc(h->n ? h->n : 1, sizeof *order);
    if (order == NULL)
        return ds_err_set(err, "runtime history: out of memory");
    for (size_t i = 0; i < h->n; i++)
        order[i] = &h->entries[i];
    qsort(order, h->n, sizeof *order, cmp_entry_key);
    for (size_t i = 0; i < h->n; i++) {
        const ds_rt_entry *e = order[i];
        ds_bytebuf_printf(out, "%s\t%s\t%.3f\t", e->key, e->last_uid, e->last_seen);
        for (unsigned k = 0; k < e->n; k++)
            ds_bytebuf_printf(out, k ? " %.3f" : "%.3f", (double)e->samples[k]);
        ds_bytebuf_append(out, "\n", 1);
    }
    free(order);
    if (out->failed)
        return ds_err_set(err, "runtime history: encoding failed (size limit or out of memory)");
    h->dirty = false;
    return 0;
}

/* One line into e; false when malformed. */
static bool parse_line(const char *line, size_t len, ds_rt_entry *e)
{
    memset(e, 0, sizeof *e);
    const char *end = line + len, *p = line;
    const char *t1 = memchr(p, '\t', (size_t)(end - p));
    if (t1 == NULL || t1 == p || (size_t)(t1 - p) >= DS_RT_KEY_MAX)
        return false;
    memcpy(e->key, p, (size_t)(t1 - p));
    for (const char *q = e->key; *q != '\0'; q++)
        if (*q == ' ' || *q == '\r' || *q == '\0')
            return false;
    p = t1 + 1;
    const char *t2 = memchr(p, '\t', (size_t)(end - p));
    if (t2 == NULL || t2 == p || (size_t)(t2 - p) >= DS_RT_UID_MAX)
        return false;
    memcpy(e->last_uid, p, (size_t)(t2 - p));
    p = t2 + 1;
    char num[64];
    const char *t3 = memchr(p, '\t', (size_t)(end - p));
    if (t3 == NULL || t3 == p || (size_t)(t3 - p) >= sizeof num)
        return false;
    memcpy(num, p, (size_t)(t3 - p));
    num[t3 - p] = '\0';
    char *stop;
    e->last_seen = strtod(num, &stop);
    if (*stop != '\0' || !isfinite(e->last_seen))
        return false;
    p = t3 + 1;
    while (p < end) {
        const char *sp = memchr(p, ' ', (size_t)(end - p));
        const char *fe = sp != NULL ? sp : end;
        if (fe == p || (size_t)(fe - p) >= sizeof num)
            return false;
        memcpy(num, p, (size_t)(fe - p));
        num[fe - p] = '\0';
        double v = strtod(num, &stop);
        if (*stop != '\0' || !valid_sample(v))
            return false;
        push_sample(e, v);
        p = sp != NULL ? sp + 1 : end;
    }
    return e->n > 0;
}

static int cmp_entry_recent(const void *a, const void *b)
{
    double x = ((const ds_rt_entry *)a)->last_seen, y = ((const ds_rt_entry *)b)->last_seen;
    return (x < y) - (x > y);
}

int ds_rt_history_decode(ds_rt_history *h, const char *text, size_t len, size_t *skipped,
                         ds_err *err)
{
    if (skipped != NULL)
        *skipped = 0;
    if (h == NULL || h->entries == NULL || (text == NULL && len > 0))
        return ds_err_set(err, "runtime history: missing input");
    size_t cap = h->max_keys, n = 0;
    ds_rt_entry *all = calloc(cap, sizeof *all);
    if (all == NULL)
        return ds_err_set(err, "runtime history: out of memory");
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t l = nl != NULL ? (size_t)(nl - (text + pos)) : len - pos;
        if (l > 0) {
            ds_rt_entry e;
            if (!parse_line(text + pos, l, &e)) {
                if (skipped != NULL)
                    (*skipped)++;
            } else if (n < cap) {
                all[n++] = e;
            } else {
                /* Full: keep the most recently seen (replace the oldest kept). */
                size_t old = 0;
                for (size_t k = 1; k < n; k++)
                    if (all[k].last_seen < all[old].last_seen)
                        old = k;
                if (e.last_seen > all[old].last_seen)
                    all[old] = e;
            }
        }
        pos += l + 1;
    }
    qsort(all, n, sizeof *all, cmp_entry_recent);
    /* Duplicated keys: the first (most recent) wins. */
    memset(h->entries, 0, h->max_keys * sizeof *h->entries);
    h->n = 0;
    ds_strmap_free(&h->index);
    if (ds_strmap_init(&h->index, h->max_keys) != 0) {
        free(all);
        return ds_err_set(err, "runtime history: out of memory");
    }
    for (size_t k = 0; k < n; k++) {
        size_t kl = strlen(all[k].key);
        h->entries[h->n] = all[k];
        int rc = ds_strmap_put(&h->index, h->entries[h->n].key, kl, h->n, NULL);
        if (rc == 0)
            h->n++;
        else if (rc == 1 && skipped != NULL)
            (*skipped)++;
    }
    free(all);
    h->dirty = false;
    return 0;
}
