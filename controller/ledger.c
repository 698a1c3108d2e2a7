/* ledger.c: the record of recent evictions (see ledger.h). */
#include "ledger.h"
#include "grow.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ctl_ledger_init(ctl_ledger *l)
{
    memset(l, 0, sizeof *l);
}

void ctl_ledger_free(ctl_ledger *l)
{
    free(l->e);
    free(l->tc);
    memset(l, 0, sizeof *l);
}

void ctl_ledger_clear(ctl_ledger *l)
{
    l->n = 0;
    l->n_tc = 0;
}

static bool same_task(const ctl_task_count *c, const char *ns, const char *job, const char *task)
{
    return strcmp(c->ns, ns) == 0 && strcmp(c->job, job) == 0 && strcmp(c->task, task) == 0;
}

/* The task's count, created when absent; NULL when out of memory. */
static ctl_task_count *task_count(ctl_ledger *l, const char *ns, const char *job, const char *task)
{
    for (size_t i = 0; i < l->n_tc; i++)
        if (same_task(&l->tc[i], ns, job, task))
            return &l->tc[i];
    if (l->n_tc == l->cap_tc) {
        ctl_task_count *nc = ds_grow(l->tc, &l->cap_tc, sizeof *nc, 16);
        if (nc == NULL)
            return NULL;
        l->tc = nc;
    }
    ctl_task_count *c = &l->tc[l->n_tc++];
    memset(c, 0, sizeof *c);
    snprintf(c->ns, sizeof c->ns, "%s", ns);
    snprintf(c->job, sizeof c->job, "%s", job);
    snprintf(c->task, sizeof c->task, "%s", task);
    c->last = -INFINITY;
    return c;
}

/* Fold a pruned entry into the task counts of its victim and its preemptor. */
static void fold(ctl_ledger *l, const ctl_ledger_entry *e)
{
    if (!ctl_ledger_entry_counts(e))
        return;
    if (e->victim_job[0] != '\0' && e->victim_task[0] != '\0') {
        ctl_task_count *c = task_count(l, e->victim_ns, e->victim_job, e->victim_task);
        if (c != NULL) {
            c->evicted++;
            c->last = fmax(c->last, e->at);
        }
    }
    if (e->preemptor_job[0] != '\0' && e->preemptor_task[0] != '\0') {
        ctl_task_count *c = task_count(l, e->preemptor_ns, e->preemptor_job, e->preemptor_task);
        if (c != NULL) {
            c->preempted++;
            c->last = fmax(c->last, e->at);
        }
    }
}

static int cmp_last(const void *a, const void *b)
{
    double x = ((const ctl_task_count *)a)->last, y = ((const ctl_task_count *)b)->last;
    return (x > y) - (x < y);
}

/* Drop task counts older than the memory, then the oldest beyond the bound. */
static void prune_tasks(ctl_ledger *l, double now)
{
    size_t k = 0;
    for (size_t i = 0; i < l->n_tc; i++)
        if (!(l->tc[i].last < now - CTL_TASK_MEMORY_S))
            l->tc[k++] = l->tc[i];
    l->n_tc = k;
    if (l->n_tc > 1)
        qsort(l->tc, l->n_tc, sizeof *l->tc, cmp_last);
    if (l->n_tc > CTL_TASK_COUNTS_MAX) {
        size_t drop = l->n_tc - CTL_TASK_COUNTS_MAX;
        memmove(&l->tc[0], &l->tc[drop], CTL_TASK_COUNTS_MAX * sizeof l->tc[0]);
        l->n_tc = CTL_TASK_COUNTS_MAX;
    }
}

int ctl_ledger_add(ctl_ledger *l, const ctl_ledger_entry *e, ds_err *err)
{
    if (l->n == CTL_LEDGER_MAX) {
        memmove(&l->e[0], &l->e[1], (l->n - 1) * sizeof l->e[0]);
        l->n--;
    }
    /* Doubling from 16 reaches CTL_LEDGER_MAX exactly: never past it. */
    _Static_assert(CTL_LEDGER_MAX % 16 == 0 &&
                       ((CTL_LEDGER_MAX / 16) & (CTL_LEDGER_MAX / 16 - 1)) == 0,
                   "CTL_LEDGER_MAX is 16 times a power of two");
    if (l->n == l->cap) {
        ctl_ledger_entry *ne = ds_grow(l->e, &l->cap, sizeof *ne, 16);
        if (ne == NULL)
            return ds_err_set(err, "eviction ledger: out of memory");
        l->e = ne;
    }
    /* Keep the list ordered by time even if clocks of successive leaders differ slightly. */
    size_t pos = l->n;
    while (pos > 0 && l->e[pos - 1].at > e->at)
        pos--;
    memmove(&l->e[pos + 1], &l->e[pos], (l->n - pos) * sizeof l->e[0]);
    l->e[pos] = *e;
    l->n++;
    return 0;
}

void ctl_ledger_prune(ctl_ledger *l, double now, double keep_s)
{
    double limit = now - keep_s;
    size_t drop = 0;
    while (drop < l->n && l->e[drop].at < limit)
        fold(l, &l->e[drop++]);
    prune_tasks(l, now);
    if (drop > 0) {
        memmove(&l->e[0], &l->e[drop], (l->n - drop) * sizeof l->e[0]);
        l->n -= drop;
    }
}

bool ctl_ledger_entry_counts(const ctl_ledger_entry *e)
{
    return strcmp(e->result, CTL_LEDGER_REFUSED) != 0 && strcmp(e->result, CTL_LEDGER_GONE) != 0;
}

int ctl_ledger_set_result(ctl_ledger *l, const char *victim_uid, const char *result)
{
    for (size_t i = l->n; i-- > 0;)
        if (strcmp(l->e[i].victim_uid, victim_uid) == 0) {
            snprintf(l->e[i].result, sizeof l->e[i].result, "%s", result);
            return 0;
        }
    return -1;
}

double ctl_ledger_last_for_preemptor(const ctl_ledger *l, const char *preemptor_uid)
{
    for (size_t i = l->n; i-- > 0;)
        if (strcmp(l->e[i].preemptor_uid, preemptor_uid) == 0 && ctl_ledger_entry_counts(&l->e[i]))
            return l->e[i].at;
    return NAN;
}

double ctl_ledger_last_for_victim(const ctl_ledger *l, const char *victim_uid)
{
    for (size_t i = l->n; i-- > 0;)
        if (strcmp(l->e[i].victim_uid, victim_uid) == 0)
            return l->e[i].at;
    return NAN;
}

static bool is_task(const char *ns, const char *job, const char *task, const ctl_task_ref *t)
{
    return job[0] != '\0' && strcmp(ns, t->ns) == 0 && strcmp(job, t->job) == 0 &&
           strcmp(task, t->task) == 0;
}

double ctl_ledger_last_task_evicted(const ctl_ledger *l, const ctl_task_ref *t)
{
    for (size_t i = l->n; i-- > 0;) {
        const ctl_ledger_entry *e = &l->e[i];
        if (is_task(e->victim_ns, e->victim_job, e->victim_task, t))
            return e->at;
    }
    return NAN;
}

double ctl_ledger_last_task_preempted(const ctl_ledger *l, const ctl_task_ref *t)
{
    for (size_t i = l->n; i-- > 0;) {
        const ctl_ledger_entry *e = &l->e[i];
        if (is_task(e->preemptor_ns, e->preemptor_job, e->preemptor_task, t) &&
            ctl_ledger_entry_counts(e))
            return e->at;
    }
    return NAN;
}

size_t ctl_ledger_task_evictions(const ctl_ledger *l, const ctl_task_ref *t)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        const ctl_ledger_entry *e = &l->e[i];
        if (is_task(e->victim_ns, e->victim_job, e->victim_task, t) && ctl_ledger_entry_counts(e))
            n++;
    }
    for (size_t i = 0; i < l->n_tc; i++)
        if (same_task(&l->tc[i], t->ns, t->job, t->task))
            n += l->tc[i].evicted;
    return n;
}

size_t ctl_ledger_task_preemptions(const ctl_ledger *l, const ctl_task_ref *t)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        const ctl_ledger_entry *e = &l->e[i];
        if (is_task(e->preemptor_ns, e->preemptor_job, e->preemptor_task, t) &&
            ctl_ledger_entry_counts(e))
            n++;
    }
    for (size_t i = 0; i < l->n_tc; i++)
        if (same_task(&l->tc[i], t->ns, t->job, t->task))
            n += l->tc[i].preempted;
    return n;
}

size_t ctl_ledger_job_preemptions(const ctl_ledger *l, const char *ns, const char *job)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        const ctl_ledger_entry *e = &l->e[i];
        if (e->preemptor_job[0] != '\0' && strcmp(e->preemptor_ns, ns) == 0 &&
            strcmp(e->preemptor_job, job) == 0 && ctl_ledger_entry_counts(e))
            n++;
    }
    for (size_t i = 0; i < l->n_tc; i++)
        if (strcmp(l->tc[i].ns, ns) == 0 && strcmp(l->tc[i].job, job) == 0)
            n += l->tc[i].preempted;
    return n;
}

/* Field table shared by encoding and decoding. */
typedef struct lfield {
    const char *json;
    size_t off;
    size_t size;
    bool optional; /* absent in older ledgers: read as "" */
} lfield;

#define LF(name, member)                                                                           \
    {                                                                                              \
        name, offsetof(ctl_ledger_entry, member), sizeof(((ctl_ledger_entry *)0)->member), false   \
    }
#define LF_OPT(name, member)                                                                       \
    {                                                                                              \
        name, offsetof(ctl_ledger_entry, member), sizeof(((ctl_ledger_entry *)0)->member), true    \
    }

static const lfield lfields[] = {
    LF("victimNamespace", victim_ns),
    LF("victim", victim_name),
    LF("victimUID", victim_uid),
    LF("node", node),
    LF("preemptorNamespace", preemptor_ns),
    LF("preemptor", preemptor_name),
    LF("preemptorUID", preemptor_uid),
    LF("reason", reason),
    LF("result", result),
    LF_OPT("victimJob", victim_job),
    LF_OPT("victimTask", victim_task),
    LF_OPT("preemptorJob", preemptor_job),
    LF_OPT("preemptorTask", preemptor_task),
};
#define N_LFIELDS (sizeof lfields / sizeof lfields[0])

char *ctl_ledger_encode(const ctl_ledger *l)
{
    json_t *arr = json_array();
    if (arr == NULL)
        return NULL;
    for (size_t i = 0; i < l->n; i++) {
        const ctl_ledger_entry *e = &l->e[i];
        json_t *o = json_object();
        if (o == NULL || json_array_append_new(arr, o) != 0 ||
            json_object_set_new(o, "at", json_real(round(e->at * 1000.0) / 1000.0)) != 0) {
            json_decref(arr);
            return NULL;
        }
        for (size_t f = 0; f < N_LFIELDS; f++) {
            const char *v = (const char *)e + lfields[f].off;
            if (json_object_set_new(o, lfields[f].json, json_string(v)) != 0) {
                json_decref(arr);
                return NULL;
            }
        }
        if (e->victim_long && json_object_set_new(o, "victimLong", json_true()) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    char *s = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    return s;
}

int ctl_ledger_decode(const char *text, size_t len, ctl_ledger *l, ds_err *err)
{
    if (len > CTL_LEDGER_MAX_BYTES)
        return ds_err_set(err, "eviction ledger: at most %d bytes (got %zu)", CTL_LEDGER_MAX_BYTES,
                          len);
    json_error_t jerr;
    json_t *arr = json_loadb(text, len, 0, &jerr);
    if (arr == NULL)
        return ds_err_set(err, "eviction ledger: invalid JSON: %s (line %d)", jerr.text, jerr.line);
    if (!json_is_array(arr)) {
        json_decref(arr);
        return ds_err_set(err, "eviction ledger: must be a list");
    }
    ctl_ledger tmp;
    ctl_ledger_init(&tmp);
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o)
    {
        ctl_ledger_entry e;
        memset(&e, 0, sizeof e);
        json_t *at = json_object_get(o, "at");
        if (!json_is_number(at) || !isfinite(json_number_value(at))) {
            ds_err_set(err, "eviction ledger[%zu].at: must be a number", i);
            goto fail;
        }
        e.at = json_number_value(at);
        json_t *lg = json_object_get(o, "victimLong");
        if (lg != NULL && !json_is_boolean(lg)) {
            ds_err_set(err, "eviction ledger[%zu].victimLong: must be true or false", i);
            goto fail;
        }
        e.victim_long = lg != NULL && json_is_true(lg);
        for (size_t f = 0; f < N_LFIELDS; f++) {
            json_t *jv = json_object_get(o, lfields[f].json);
            if (jv == NULL && lfields[f].optional)
                continue;
            const char *v = json_string_value(jv);
            if (v == NULL) {
                ds_err_set(err, "eviction ledger[%zu].%s: must be a string", i, lfields[f].json);
                goto fail;
            }
            if (strlen(v) >= lfields[f].size) {
                ds_err_set(err, "eviction ledger[%zu].%s: longer than %zu bytes", i,
                           lfields[f].json, lfields[f].size - 1);
                goto fail;
            }
            memcpy((char *)&e + lfields[f].off, v, strlen(v) + 1);
        }
        if (ctl_ledger_add(&tmp, &e, err))
            goto fail;
    }
    json_decref(arr);
    ctl_ledger_free(l);
    *l = tmp;
    return 0;
fail:
    json_decref(arr);
    ctl_ledger_free(&tmp);
    return -1;
}

char *ctl_ledger_encode_tasks(const ctl_ledger *l)
{
    json_t *arr = json_array();
    if (arr == NULL)
        return NULL;
    for (size_t i = 0; i < l->n_tc; i++) {
        const ctl_task_count *c = &l->tc[i];
        json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:f}", "namespace", c->ns, "job", c->job,
                              "task", c->task, "evicted", (json_int_t)c->evicted, "preempted",
                              (json_int_t)c->preempted, "last", round(c->last * 1000.0) / 1000.0);
        if (o == NULL || json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    char *s = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    return s;
}

/* A string field of a task count, into dst (size bytes). */
static int task_str(json_t *o, const char *key, char *dst, size_t size, size_t i, ds_err *err)
{
    const char *v = json_string_value(json_object_get(o, key));
    if (v == NULL || v[0] == '\0' || strlen(v) >= size)
        return ds_err_set(err, "eviction ledger task[%zu].%s: must be a string of 1 to %zu bytes",
                          i, key, size - 1);
    memcpy(dst, v, strlen(v) + 1);
    return 0;
}

static int task_count_field(json_t *o, const char *key, unsigned *dst, size_t i, ds_err *err)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 1000000)
        return ds_err_set(err, "eviction ledger task[%zu].%s: must be a count", i, key);
    *dst = (unsigned)json_integer_value(v);
    return 0;
}

int ctl_ledger_decode_tasks(const char *text, size_t len, ctl_ledger *l, ds_err *err)
{
    if (len > CTL_LEDGER_MAX_BYTES)
        return ds_err_set(err, "eviction ledger tasks: at most %d bytes (got %zu)",
                          CTL_LEDGER_MAX_BYTES, len);
    json_error_t jerr;
    json_t *arr = json_loadb(text, len, 0, &jerr);
    if (arr == NULL)
        return ds_err_set(err, "eviction ledger tasks: invalid JSON: %s (line %d)", jerr.text,
                          jerr.line);
    if (!json_is_array(arr) || json_array_size(arr) > CTL_TASK_COUNTS_MAX) {
        json_decref(arr);
        return ds_err_set(err, "eviction ledger tasks: must be a list of at most %d entries",
                          CTL_TASK_COUNTS_MAX);
    }
    size_t n = json_array_size(arr);
    ctl_task_count *tc = calloc(n ? n : 1, sizeof *tc);
    if (tc == NULL) {
        json_decref(arr);
        return ds_err_set(err, "eviction ledger tasks: out of memory");
    }
    size_t i;
    json_t *o;
    json_array_foreach(arr, i, o)
    {
        ctl_task_count *c = &tc[i];
        json_t *last = json_object_get(o, "last");
        if (task_str(o, "namespace", c->ns, sizeof c->ns, i, err) ||
            task_str(o, "job", c->job, sizeof c->job, i, err) ||
            task_str(o, "task", c->task, sizeof c->task, i, err) ||
            task_count_field(o, "evicted", &c->evicted, i, err) ||
            task_count_field(o, "preempted", &c->preempted, i, err))
            goto fail;
        if (!json_is_number(last) || !isfinite(json_number_value(last))) {
            ds_err_set(err, "eviction ledger task[%zu].last: must be a number", i);
            goto fail;
        }
        c->last = json_number_value(last);
    }
    json_decref(arr);
    free(l->tc);
    l->tc = tc;
    l->n_tc = l->cap_tc = n;
    if (n == 0) {
        free(l->tc);
        l->tc = NULL;
        l->cap_tc = 0;
    }
    if (l->n_tc > 1)
        qsort(l->tc, l->n_tc, sizeof *l->tc, cmp_last);
    return 0;
fail:
    json_decref(arr);
    free(tc);
    return -1;
}
