/* wqueue.c: the bounded, rate-limited, coalescing queue of informational writes (see wqueue.h). */
#include "wqueue.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key_hash(const char *ns, const char *name, const char *kind)
{
    const char *fields[] = {ns, name, kind};
    return ds_fnv1a_fields(fields, 3);
}

static char *dup_or_null(const char *s, bool *oom)
{
    if (s == NULL)
        return NULL;
    char *d = strdup(s);
    if (d == NULL)
        *oom = true;
    return d;
}

void ctl_wq_item_free(ctl_wq_item *it)
{
    free(it->ns);
    free(it->name);
    free(it->uid);
    free(it->kind);
    for (size_t i = 0; i < 2 * CTL_WQ_MAX_KV; i++)
        free(it->kv[i]);
    free(it->event_reason);
    free(it->event_msg);
    memset(it, 0, sizeof *it);
}

int ctl_wq_init(ctl_wq *q, size_t max, double qps, double now)
{
    memset(q, 0, sizeof *q);
    if (max == 0)
        max = 1;
    q->ring = calloc(max, sizeof *q->ring);
    if (q->ring == NULL)
        return -1;
    q->max = max;
    q->qps = qps > 0 ? qps : 0;
    q->burst = q->qps >= 1 ? q->qps : 1;
    q->tokens = q->burst;
    q->last = now;
    return 0;
}

void ctl_wq_free(ctl_wq *q)
{
    if (q->ring != NULL)
        ctl_wq_clear(q);
    free(q->ring);
    memset(q, 0, sizeof *q);
}

static bool valid(const ctl_wq_write *w)
{
    if (w->ns == NULL || w->name == NULL || w->kind == NULL || w->n_kv == 0 ||
        w->n_kv > CTL_WQ_MAX_KV || (w->event_reason != NULL && w->event_msg == NULL))
        return false;
    for (size_t i = 0; i < w->n_kv; i++)
        if (w->kv[2 * i] == NULL)
            return false;
    return true;
}

/* The values of w (annotations, and its Event when it has one) into it, replacing its own. */
static int set_values(ctl_wq_item *it, const ctl_wq_write *w)
{
    bool oom = false;
    char *kv[2 * CTL_WQ_MAX_KV] = {0};
    for (size_t i = 0; i < 2 * w->n_kv; i++)
        kv[i] = dup_or_null(w->kv[i], &oom);
    char *reason = dup_or_null(w->event_reason, &oom);
    char *msg = dup_or_null(w->event_msg, &oom);
    if (oom) {
        for (size_t i = 0; i < 2 * CTL_WQ_MAX_KV; i++)
            free(kv[i]);
        free(reason);
        free(msg);
        return -1;
    }
    for (size_t i = 0; i < 2 * CTL_WQ_MAX_KV; i++) {
        free(it->kv[i]);
        it->kv[i] = kv[i];
    }
    it->n_kv = w->n_kv;
    /* An Event still to be posted is kept unless the newer write brings its own. */
    if (reason != NULL) {
        free(it->event_reason);
        free(it->event_msg);
        it->event_reason = reason;
        it->event_msg = msg;
    }
    return 0;
}

ctl_wq_result ctl_wq_push(ctl_wq *q, const ctl_wq_write *w, double now)
{
    if (!valid(w))
        return CTL_WQ_INVALID;
    uint64_t h = key_hash(w->ns, w->name, w->kind);
    for (size_t k = 0; k < q->n; k++) {
        ctl_wq_item *it = &q->ring[(q->head + k) % q->max];
        if (it->hash != h || !ctl_wq_item_is(it, w->ns, w->name, w->kind))
            continue;
        if (set_values(it, w) != 0)
            return CTL_WQ_NOMEM;
        q->coalesced++;
        return CTL_WQ_COALESCED;
    }
    if (q->n >= q->max) {
        q->dropped++;
        return CTL_WQ_DROPPED;
    }
    ctl_wq_item it;
    memset(&it, 0, sizeof it);
    bool oom = false;
    it.ns = dup_or_null(w->ns, &oom);
    it.name = dup_or_null(w->name, &oom);
    it.uid = dup_or_null(w->uid, &oom);
    it.kind = dup_or_null(w->kind, &oom);
    if (oom || set_values(&it, w) != 0) {
        ctl_wq_item_free(&it);
        return CTL_WQ_NOMEM;
    }
    it.hash = h;
    it.enqueued_at = now;
    q->ring[(q->head + q->n) % q->max] = it;
    q->n++;
    q->added++;
    return CTL_WQ_ADDED;
}

static void refill(ctl_wq *q, double now)
{
    if (now > q->last) {
        q->tokens += (now - q->last) * q->qps;
        if (q->tokens > q->burst)
            q->tokens = q->burst;
    }
    q->last = now > q->last ? now : q->last;
}

int ctl_wq_pop(ctl_wq *q, double now, ctl_wq_item *out, double *wait_s)
{
    if (q->n == 0)
        return 0;
    if (q->qps > 0) {
        refill(q, now);
        if (q->tokens < 1.0) {
            if (wait_s != NULL)
                *wait_s = (1.0 - q->tokens) / q->qps;
            return 2;
        }
        q->tokens -= 1.0;
    }
    *out = q->ring[q->head];
    memset(&q->ring[q->head], 0, sizeof q->ring[q->head]);
    q->head = (q->head + 1) % q->max;
    q->n--;
    return 1;
}

bool ctl_wq_item_is(const ctl_wq_item *it, const char *ns, const char *name, const char *kind)
{
    return it->ns != NULL && strcmp(it->ns, ns) == 0 && strcmp(it->name, name) == 0 &&
           strcmp(it->kind, kind) == 0;
}

int ctl_wq_cancel(ctl_wq *q, const char *ns, const char *name, const char *kind)
{
    uint64_t h = key_hash(ns, name, kind);
    for (size_t k = 0; k < q->n; k++) {
        ctl_wq_item *it = &q->ring[(q->head + k) % q->max];
        if (it->hash != h || !ctl_wq_item_is(it, ns, name, kind))
            continue;
        ctl_wq_item_free(it);
        for (size_t j = k; j + 1 < q->n; j++)
            q->ring[(q->head + j) % q->max] = q->ring[(q->head + j + 1) % q->max];
        memset(&q->ring[(q->head + q->n - 1) % q->max], 0, sizeof q->ring[0]);
        q->n--;
        return 1;
    }
    return 0;
}

size_t ctl_wq_clear(ctl_wq *q)
{
    size_t n = q->n;
    while (q->n > 0) {
        ctl_wq_item_free(&q->ring[q->head]);
        q->head = (q->head + 1) % q->max;
        q->n--;
    }
    q->dropped += n;
    return n;
}

const char *ctl_wq_result_name(ctl_wq_result r)
{
    switch (r) {
    case CTL_WQ_ADDED:
        return "added";
    case CTL_WQ_COALESCED:
        return "coalesced";
    case CTL_WQ_DROPPED:
        return "dropped";
    case CTL_WQ_INVALID:
        return "invalid";
    case CTL_WQ_NOMEM:
        return "out of memory";
    }
    return "?";
}
