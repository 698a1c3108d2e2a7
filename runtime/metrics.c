/* metrics.c: Prometheus metrics registry and text exposition (see metrics.h). */
#include "metrics.h"

#include "bytebuf.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const double metrics_latency_buckets[] = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                          0.005,   0.01,   0.025,   0.05,   0.1,   0.25,
                                          0.5,     1,      2.5,     5,      10};
const size_t metrics_latency_buckets_n = sizeof metrics_latency_buckets / sizeof(double);

typedef struct series {
    struct series *next;
    char *values[METRICS_MAX_LABELS];
    double value;                                   /* counter / gauge */
    double sum;                                     /* histogram */
    unsigned long long count;                       /* histogram */
    unsigned long long bucket[METRICS_MAX_BUCKETS]; /* histogram, non-cumulative */
} series;

struct metrics_family {
    struct metrics_family *next;
    metrics_registry *reg;
    metrics_type type;
    char *name;
    char *help;
    size_t n_labels;
    char *labels[METRICS_MAX_LABELS];
    size_t n_buckets;
    double buckets[METRICS_MAX_BUCKETS];
    series *head;
    series **tail;
    size_t n_series;
};

struct metrics_registry {
    pthread_mutex_t mu;
    metrics_family *head;
    metrics_family **tail;
    unsigned long long dropped;
    void (*on_render)(void *user);
    void *on_render_user;
    void (*on_render_free)(void *user);
};

metrics_registry *metrics_registry_new(void)
{
    metrics_registry *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    if (pthread_mutex_init(&r->mu, NULL) != 0) {
        free(r);
        return NULL;
    }
    r->tail = &r->head;
    return r;
}

static void family_free(metrics_family *f)
{
    series *s = f->head;
    while (s != NULL) {
        series *next = s->next;
        for (size_t i = 0; i < f->n_labels; i++)
            free(s->values[i]);
        free(s);
        s = next;
    }
    for (size_t i = 0; i < f->n_labels; i++)
        free(f->labels[i]);
    free(f->name);
    free(f->help);
    free(f);
}

void metrics_registry_free(metrics_registry *r)
{
    if (r == NULL)
        return;
    metrics_family *f = r->head;
    while (f != NULL) {
        metrics_family *next = f->next;
        family_free(f);
        f = next;
    }
    if (r->on_render_free != NULL)
        r->on_render_free(r->on_render_user);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

static bool valid_name(const char *s)
{
    if (s == NULL || *s == '\0')
        return false;
    for (const char *p = s; *p != '\0'; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
                  (p != s && c >= '0' && c <= '9');
        if (!ok)
            return false;
    }
    return true;
}

metrics_family *metrics_family_new(metrics_registry *r, metrics_type type, const char *name,
                                   const char *help, const char *const *label_names,
                                   size_t n_labels, const double *buckets, size_t n_buckets)
{
    if (r == NULL || !valid_name(name) || n_labels > METRICS_MAX_LABELS ||
        n_buckets > METRICS_MAX_BUCKETS || (type == METRICS_HISTOGRAM && n_buckets == 0))
        return NULL;
    for (size_t i = 0; i < n_labels; i++)
        if (!valid_name(label_names[i]))
            return NULL;
    for (size_t i = 1; i < n_buckets; i++)
        if (!(buckets[i] > buckets[i - 1]))
            return NULL;
    metrics_family *f = calloc(1, sizeof *f);
    if (f == NULL)
        return NULL;
    f->reg = r;
    f->type = type;
    f->tail = &f->head;
    f->name = strdup(name);
    f->help = strdup(help != NULL ? help : "");
    bool ok = f->name != NULL && f->help != NULL;
    for (size_t i = 0; ok && i < n_labels; i++) {
        f->labels[i] = strdup(label_names[i]);
        ok = f->labels[i] != NULL;
        f->n_labels = i + 1;
    }
    if (!ok) {
        family_free(f);
        return NULL;
    }
    if (type == METRICS_HISTOGRAM) {
        memcpy(f->buckets, buckets, n_buckets * sizeof(double));
        f->n_buckets = n_buckets;
    }
    pthread_mutex_lock(&r->mu);
    *r->tail = f;
    r->tail = &f->next;
    pthread_mutex_unlock(&r->mu);
    return f;
}

static bool same_values(const metrics_family *f, const series *s, const char *const *values)
{
    for (size_t i = 0; i < f->n_labels; i++) {
        const char *v = values[i] != NULL ? values[i] : "";
        if (strncmp(s->values[i], v, METRICS_MAX_LABEL_VALUE) != 0)
            return false;
    }
    return true;
}

/* Find or create the series; called with the registry lock held. NULL when the family is full or
 * memory is short. */
static series *lookup(metrics_family *f, const char *const *values)
{
    for (series *s = f->head; s != NULL; s = s->next)
        if (same_values(f, s, values))
            return s;
    if (f->n_series >= METRICS_MAX_SERIES) {
        f->reg->dropped++;
        return NULL;
    }
    series *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    for (size_t i = 0; i < f->n_labels; i++) {
        const char *v = values[i] != NULL ? values[i] : "";
        s->values[i] = strndup(v, METRICS_MAX_LABEL_VALUE);
        if (s->values[i] == NULL) {
            for (size_t j = 0; j < i; j++)
                free(s->values[j]);
            free(s);
            return NULL;
        }
    }
    *f->tail = s;
    f->tail = &s->next;
    f->n_series++;
    return s;
}

void metrics_add(metrics_family *f, const char *const *label_values, double v)
{
    if (f == NULL || f->type == METRICS_HISTOGRAM || !isfinite(v) ||
        (f->type == METRICS_COUNTER && v < 0))
        return;
    pthread_mutex_lock(&f->reg->mu);
    series *s = lookup(f, label_values);
    if (s != NULL)
        s->value += v;
    pthread_mutex_unlock(&f->reg->mu);
}

void metrics_set(metrics_family *f, const char *const *label_values, double v)
{
    if (f == NULL || f->type != METRICS_GAUGE)
        return;
    pthread_mutex_lock(&f->reg->mu);
    series *s = lookup(f, label_values);
    if (s != NULL)
        s->value = v;
    pthread_mutex_unlock(&f->reg->mu);
}

metrics_family *metrics_build_info(metrics_registry *r, const char *name, const char *version,
                                   const char *git)
{
    static const char *const labels[] = {"version", "git"};
    metrics_family *f = metrics_family_new(
        r, METRICS_GAUGE, name, "1, labelled with the version and git commit of this binary",
        labels, 2, NULL, 0);
    const char *values[] = {version, git};
    metrics_set(f, values, 1);
    return f;
}

void metrics_set_total(metrics_family *f, const char *const *label_values, double v)
{
    if (f == NULL || f->type != METRICS_COUNTER || isnan(v))
        return;
    pthread_mutex_lock(&f->reg->mu);
    series *s = lookup(f, label_values);
    if (s != NULL && v >= s->value)
        s->value = v;
    pthread_mutex_unlock(&f->reg->mu);
}

void metrics_registry_on_render(metrics_registry *r, void (*fn)(void *user), void *user,
                                void (*free_user)(void *user))
{
    pthread_mutex_lock(&r->mu);
    void *old = r->on_render_user;
    void (*old_free)(void *) = r->on_render_free;
    r->on_render = fn;
    r->on_render_user = user;
    r->on_render_free = free_user;
    pthread_mutex_unlock(&r->mu);
    if (old_free != NULL && old != user)
        old_free(old);
}

void metrics_observe(metrics_family *f, const char *const *label_values, double v)
{
    if (f == NULL || f->type != METRICS_HISTOGRAM || isnan(v))
        return;
    pthread_mutex_lock(&f->reg->mu);
    series *s = lookup(f, label_values);
    if (s != NULL) {
        size_t i = 0;
        while (i < f->n_buckets && v > f->buckets[i])
            i++;
        if (i < f->n_buckets)
            s->bucket[i]++;
        s->count++;
        s->sum += v;
    }
    pthread_mutex_unlock(&f->reg->mu);
}

double metrics_get(metrics_family *f, const char *const *label_values)
{
    if (f == NULL)
        return 0;
    double v = 0;
    pthread_mutex_lock(&f->reg->mu);
    for (series *s = f->head; s != NULL; s = s->next)
        if (same_values(f, s, label_values)) {
            v = f->type == METRICS_HISTOGRAM ? (double)s->count : s->value;
            break;
        }
    pthread_mutex_unlock(&f->reg->mu);
    return v;
}

/* The text is rendered into a ds_bytebuf: a refused append fails every later one, so the
 * appends are checked once, at the end (metrics_render). */

/* Label values and help text escaping per the exposition format. */
static void out_escaped(ds_bytebuf *o, const char *s, bool quote_escape)
{
    for (const char *p = s; *p != '\0'; p++) {
        if (*p == '\\')
            ds_bytebuf_printf(o, "\\\\");
        else if (*p == '\n')
            ds_bytebuf_printf(o, "\\n");
        else if (quote_escape && *p == '"')
            ds_bytebuf_printf(o, "\\\"");
        else
            ds_bytebuf_printf(o, "%c", *p);
    }
}

static void out_labels(ds_bytebuf *o, const metrics_family *f, const series *s, const char *le)
{
    if (f->n_labels == 0 && le == NULL)
        return;
    ds_bytebuf_printf(o, "{");
    for (size_t i = 0; i < f->n_labels; i++) {
        ds_bytebuf_printf(o, "%s%s=\"", i ? "," : "", f->labels[i]);
        out_escaped(o, s->values[i], true);
        ds_bytebuf_printf(o, "\"");
    }
    if (le != NULL)
        ds_bytebuf_printf(o, "%sle=\"%s\"", f->n_labels ? "," : "", le);
    ds_bytebuf_printf(o, "}");
}

static void out_value(ds_bytebuf *o, double v)
{
    if (isinf(v))
        ds_bytebuf_printf(o, v > 0 ? "+Inf" : "-Inf");
    else if (isnan(v))
        ds_bytebuf_printf(o, "NaN");
    else
        ds_bytebuf_printf(o, "%.17g", v);
}

static const char *type_name(metrics_type t)
{
    switch (t) {
    case METRICS_COUNTER:
        return "counter";
    case METRICS_GAUGE:
        return "gauge";
    default:
        return "histogram";
    }
}

int metrics_render(metrics_registry *r, char **out, size_t *len)
{
    pthread_mutex_lock(&r->mu);
    void (*fn)(void *) = r->on_render;
    void *user = r->on_render_user;
    pthread_mutex_unlock(&r->mu);
    if (fn != NULL)
        fn(user);
    ds_bytebuf o;
    ds_bytebuf_init(&o, DS_BYTEBUF_UNLIMITED);
    pthread_mutex_lock(&r->mu);
    for (metrics_family *f = r->head; f != NULL; f = f->next) {
        ds_bytebuf_printf(&o, "# HELP %s ", f->name);
        out_escaped(&o, f->help, false);
        ds_bytebuf_printf(&o, "\n# TYPE %s %s\n", f->name, type_name(f->type));
        for (series *s = f->head; s != NULL; s = s->next) {
            if (f->type != METRICS_HISTOGRAM) {
                ds_bytebuf_printf(&o, "%s", f->name);
                out_labels(&o, f, s, NULL);
                ds_bytebuf_printf(&o, " ");
                out_value(&o, s->value);
                ds_bytebuf_printf(&o, "\n");
                continue;
            }
            unsigned long long cum = 0;
            for (size_t b = 0; b < f->n_buckets; b++) {
                cum += s->bucket[b];
                char le[64];
                snprintf(le, sizeof le, "%.17g", f->buckets[b]);
                ds_bytebuf_printf(&o, "%s_bucket", f->name);
                out_labels(&o, f, s, le);
                ds_bytebuf_printf(&o, " %llu\n", cum);
            }
            ds_bytebuf_printf(&o, "%s_bucket", f->name);
            out_labels(&o, f, s, "+Inf");
            ds_bytebuf_printf(&o, " %llu\n%s_sum", s->count, f->name);
            out_labels(&o, f, s, NULL);
            ds_bytebuf_printf(&o, " ");
            out_value(&o, s->sum);
            ds_bytebuf_printf(&o, "\n%s_count", f->name);
            out_labels(&o, f, s, NULL);
            ds_bytebuf_printf(&o, " %llu\n", s->count);
        }
    }
    ds_bytebuf_printf(
        &o,
        "# HELP dagsched_metrics_dropped_series_total Label sets not recorded because a "
        "family reached its series limit.\n"
        "# TYPE dagsched_metrics_dropped_series_total counter\n"
        "dagsched_metrics_dropped_series_total %llu\n",
        r->dropped);
    pthread_mutex_unlock(&r->mu);
    if (o.failed) {
        ds_bytebuf_free(&o);
        return -1;
    }
    *out = o.data;
    *len = o.len;
    return 0;
}
