/* objects.c: decoding of Pods, Nodes, ConfigMaps, PodDisruptionBudgets, Jobs and Namespaces from
 * API JSON into single-allocation, reference-counted structs (see objects.h). */
#include "objects.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argo_decode.h"
#include "argo_wf.h"
#include "quantity.h"
#include "timefmt.h"

/* ---- decoding context ---- */

#define MAX_TEMPS 16

typedef struct dctx {
    char what[KUBE_OBJ_MAX_STR * 2 + 32]; /* "pod batch/x" for messages */
    ds_err *err;
    const kube_decode_opts *opts;
    void *temps[MAX_TEMPS]; /* temporary arrays, freed after packing */
    int n_temps;
    char affinity_error[DS_ERR_MAX]; /* a pod's kube_pod.affinity_error, packed with it */
    char dagsched_error[DS_ERR_MAX]; /* kube_meta.dagsched_error, packed with it */
    const char *kept_gates[2];       /* a pod over its bounds: the gates kept (pod_over_bounds) */
} dctx;

static int fail(dctx *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(dctx *d, const char *fmt, ...)
{
    char msg[DS_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ds_err_set(d->err, "%s: %s", d->what, msg);
}

static void *temp_alloc(dctx *d, size_t n, size_t size)
{
    if (d->n_temps >= MAX_TEMPS) {
        fail(d, "too many temporary arrays");
        return NULL;
    }
    void *p = calloc(n ? n : 1, size);
    if (p == NULL) {
        fail(d, "out of memory");
        return NULL;
    }
    d->temps[d->n_temps++] = p;
    return p;
}

static void temps_free(dctx *d)
{
    for (int i = 0; i < d->n_temps; i++)
        free(d->temps[i]);
    d->n_temps = 0;
}

/* Member `key` of parent; NULL when absent or null (the getters below then give the default). */
static const json_t *member(const json_t *parent, const char *key)
{
    const json_t *v = json_object_get(parent, key);
    return json_is_null(v) ? NULL : v;
}

/* String member `key` of parent: NULL when absent or null; error when not a string or too long. */
static int get_str(dctx *d, const json_t *parent, const char *key, const char *path, size_t max,
                   bool required, const char **out)
{
    *out = NULL;
    const json_t *v = member(parent, key);
    if (v == NULL) {
        if (required)
            return fail(d, "%s%s: missing", path, key);
        return 0;
    }
    if (!json_is_string(v))
        return fail(d, "%s%s: must be a string", path, key);
    size_t n = json_string_length(v);
    if (n > max)
        return fail(d, "%s%s: too long (got %zu bytes, limit %zu)", path, key, n, max);
    if (strlen(json_string_value(v)) != n)
        return fail(d, "%s%s: contains a NUL character", path, key);
    if (required && n == 0)
        return fail(d, "%s%s: empty", path, key);
    *out = json_string_value(v);
    return 0;
}

static int get_i64(dctx *d, const json_t *parent, const char *key, const char *path, int64_t min,
                   int64_t max, int64_t dflt, int64_t *out)
{
    *out = dflt;
    const json_t *v = member(parent, key);
    if (v == NULL)
        return 0;
    if (!json_is_integer(v))
        return fail(d, "%s%s: must be an integer", path, key);
    int64_t x = json_integer_value(v);
    if (x < min || x > max)
        return fail(d, "%s%s: out of range (got %lld)", path, key, (long long)x);
    *out = x;
    return 0;
}

static int get_i32(dctx *d, const json_t *parent, const char *key, const char *path, int32_t dflt,
                   int32_t *out)
{
    int64_t v;
    if (get_i64(d, parent, key, path, INT32_MIN, INT32_MAX, dflt, &v) != 0)
        return -1;
    *out = (int32_t)v;
    return 0;
}

static int get_bool(dctx *d, const json_t *parent, const char *key, const char *path, bool *out)
{
    *out = false;
    const json_t *v = member(parent, key);
    if (v == NULL)
        return 0;
    if (!json_is_boolean(v))
        return fail(d, "%s%s: must be true or false", path, key);
    *out = json_is_true(v);
    return 0;
}

static int get_time(dctx *d, const json_t *parent, const char *key, const char *path, double *out)
{
    *out = 0;
    const char *s;
    if (get_str(d, parent, key, path, 64, false, &s) != 0)
        return -1;
    if (s == NULL)
        return 0;
    ds_err e;
    if (ds_timestamp_parse(s, out, &e) != 0)
        return fail(d, "%s%s: %s", path, key, e.msg);
    return 0;
}

/* A map of strings into a temporary kv array; keep only keys starting with prefix (NULL: all). */
static int get_kvs(dctx *d, const json_t *parent, const char *key, const char *path,
                   const char *prefix, size_t max_entries, size_t max_value, size_t max_total,
                   const kube_kv **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    const json_t *m = member(parent, key);
    if (m == NULL)
        return 0;
    if (!json_is_object(m))
        return fail(d, "%s%s: must be a map of strings", path, key);
    size_t n = 0;
    const char *k;
    json_t *v;
    size_t pl = prefix ? strlen(prefix) : 0;
    json_object_foreach((json_t *)m, k, v)
    {
        if (prefix == NULL || strncmp(k, prefix, pl) == 0)
            n++;
    }
    if (n == 0)
        return 0;
    if (n > max_entries)
        return fail(d, "%s%s: too many entries (got %zu, limit %zu)", path, key, n, max_entries);
    kube_kv *arr = temp_alloc(d, n, sizeof *arr);
    if (arr == NULL)
        return -1;
    size_t i = 0, total = 0;
    json_object_foreach((json_t *)m, k, v)
    {
        if (prefix != NULL && strncmp(k, prefix, pl) != 0)
            continue;
        if (!json_is_string(v))
            return fail(d, "%s%s[\"%.64s\"]: must be a string", path, key, k);
        size_t vl = json_string_length(v);
        size_t kl = strlen(k);
        if (kl > KUBE_OBJ_MAX_STR)
            return fail(d, "%s%s: key too long (got %zu bytes, limit %d)", path, key, kl,
                        KUBE_OBJ_MAX_STR);
        if (vl > max_value || strlen(json_string_value(v)) != vl)
            return fail(d,
                        "%s%s[\"%.64s\"]: value too long or contains NUL (got %zu bytes, "
                        "limit %zu)",
                        path, key, k, vl, max_value);
        total += kl + vl;
        if (total > max_total)
            return fail(d, "%s%s: too large in total (limit %zu bytes)", path, key, max_total);
        arr[i].key = k;
        arr[i].value = json_string_value(v);
        i++;
    }
    *out = arr;
    *n_out = n;
    return 0;
}

static const json_t *get_obj(const json_t *parent, const char *key)
{
    const json_t *v = json_object_get(parent, key);
    return json_is_object(v) ? v : NULL;
}

/* List member `key` of parent with at most max entries: *n 0 when absent or null. */
static int get_bounded_list(dctx *d, const json_t *parent, const char *key, const char *path,
                            size_t max, const json_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    const json_t *v = member(parent, key);
    if (v == NULL)
        return 0;
    if (!json_is_array(v))
        return fail(d, "%s%s: must be a list", path, key);
    if (json_array_size(v) > max)
        return fail(d, "%s%s: too many (got %zu, limit %zu)", path, key, json_array_size(v), max);
    *out = v;
    *n = json_array_size(v);
    return 0;
}

/* get_bounded_list with KUBE_OBJ_MAX_LIST entries at most. */
static int get_list(dctx *d, const json_t *parent, const char *key, const char *path,
                    const json_t **out, size_t *n)
{
    return get_bounded_list(d, parent, key, path, KUBE_OBJ_MAX_LIST, out, n);
}

/* get_list, then a temporary array of its n elements of elem bytes (*arr NULL when empty). */
static int get_list_arr(dctx *d, const json_t *parent, const char *key, const char *path,
                        size_t elem, const json_t **list, size_t *n, void **arr)
{
    *arr = NULL;
    if (get_list(d, parent, key, path, list, n) != 0)
        return -1;
    if (*n == 0)
        return 0;
    *arr = temp_alloc(d, *n, elem);
    return *arr != NULL ? 0 : -1;
}

/* ---- packing into one allocation ---- */

typedef struct packer {
    char *base;
    size_t off;
    bool sizing;
} packer;

static size_t align8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

static void *pk_reserve(packer *p, size_t n)
{
    p->off = align8(p->off);
    void *r = p->sizing ? NULL : p->base + p->off;
    p->off += n;
    return r;
}

static void pk_str(packer *p, const char **s)
{
    if (*s == NULL)
        return;
    size_t n = strlen(*s) + 1;
    if (!p->sizing) {
        memcpy(p->base + p->off, *s, n);
        *s = p->base + p->off;
    }
    p->off += n;
}

/* An array of n elements of elem bytes, moved into the block. */
static void pk_arr(packer *p, const void **arr, size_t n, size_t elem)
{
    if (*arr == NULL || n == 0)
        return;
    void *dst = pk_reserve(p, n * elem);
    if (dst != NULL) {
        memcpy(dst, *arr, n * elem);
        *arr = dst;
    }
}

static void pk_kvs(packer *p, const kube_kv **arr, size_t n)
{
    pk_arr(p, (const void **)arr, n, sizeof **arr);
}

static void pk_kv_strs(packer *p, const kube_kv *arr, size_t n)
{
    for (size_t i = 0; arr != NULL && i < n; i++) {
        kube_kv *kv = (kube_kv *)&arr[i];
        pk_str(p, &kv->key);
        pk_str(p, &kv->value);
    }
}

static void pk_strv(packer *p, const char *const **arr, size_t n)
{
    pk_arr(p, (const void **)arr, n, sizeof **arr);
}

/* The strings of a toleration or a taint. */
static void pk_key_value_effect(packer *p, const char **key, const char **value,
                                const char **effect)
{
    pk_str(p, key);
    pk_str(p, value);
    pk_str(p, effect);
}

static void pk_strv_strs(packer *p, const char *const *arr, size_t n)
{
    for (size_t i = 0; arr != NULL && i < n; i++)
        pk_str(p, (const char **)&arr[i]);
}

/* Arrays first (aligned), strings after: called once to size and once to copy. */
static void pack_meta_arrays(packer *p, kube_meta *m)
{
    pk_kvs(p, &m->labels, m->n_labels);
    pk_kvs(p, &m->annotations, m->n_annotations);
}

static void pack_meta_strs(packer *p, kube_meta *m)
{
    pk_str(p, &m->ns);
    pk_str(p, &m->name);
    pk_str(p, &m->uid);
    pk_str(p, &m->resource_version);
    pk_str(p, &m->dagsched_error);
    pk_kv_strs(p, m->labels, m->n_labels);
    pk_kv_strs(p, m->annotations, m->n_annotations);
}

/* A node selector's arrays (terms, their requirements, their values), then its strings. */
static void pack_affinity_arrays(packer *p, ds_node_selector *sel)
{
    pk_arr(p, (const void **)&sel->terms, sel->n_terms, sizeof *sel->terms);
    for (size_t t = 0; sel->terms != NULL && t < sel->n_terms; t++) {
        ds_nsel_term *term = (ds_nsel_term *)&sel->terms[t];
        pk_arr(p, (const void **)&term->match_expressions, term->n_match_expressions,
               sizeof *term->match_expressions);
        pk_arr(p, (const void **)&term->match_fields, term->n_match_fields,
               sizeof *term->match_fields);
        for (size_t i = 0; term->match_expressions != NULL && i < term->n_match_expressions; i++) {
            ds_nsel_req *r = (ds_nsel_req *)&term->match_expressions[i];
            pk_strv(p, &r->values, r->n_values);
        }
        for (size_t i = 0; term->match_fields != NULL && i < term->n_match_fields; i++) {
            ds_nsel_req *r = (ds_nsel_req *)&term->match_fields[i];
            pk_strv(p, &r->values, r->n_values);
        }
    }
}

static void pack_req_strs(packer *p, const ds_nsel_req *reqs, size_t n)
{
    for (size_t i = 0; reqs != NULL && i < n; i++) {
        ds_nsel_req *r = (ds_nsel_req *)&reqs[i];
        pk_str(p, &r->key);
        pk_strv_strs(p, r->values, r->n_values);
    }
}

static void pack_affinity_strs(packer *p, const ds_node_selector *sel)
{
    for (size_t t = 0; sel->terms != NULL && t < sel->n_terms; t++) {
        pack_req_strs(p, sel->terms[t].match_expressions, sel->terms[t].n_match_expressions);
        pack_req_strs(p, sel->terms[t].match_fields, sel->terms[t].n_match_fields);
    }
}

static void pack_fields(packer *p, kube_meta *m)
{
    pack_meta_arrays(p, m);
    switch (m->kind) {
    case KUBE_KIND_POD: {
        kube_pod *o = (kube_pod *)m;
        pk_strv(p, &o->gates, o->n_gates);
        pk_kvs(p, &o->node_selector, o->n_node_selector);
        pk_arr(p, (const void **)&o->tolerations, o->n_tolerations, sizeof *o->tolerations);
        pack_affinity_arrays(p, &o->required_affinity);
        pack_meta_strs(p, m);
        pk_kv_strs(p, o->node_selector, o->n_node_selector);
        for (size_t i = 0; o->tolerations != NULL && i < o->n_tolerations; i++) {
            kube_toleration *t = (kube_toleration *)&o->tolerations[i];
            pk_key_value_effect(p, &t->key, &t->value, &t->effect);
        }
        pk_str(p, &o->node_name);
        pk_str(p, &o->priority_class);
        pk_str(p, &o->scheduler_name);
        pk_strv_strs(p, o->gates, o->n_gates);
        pk_str(p, &o->owner_kind);
        pk_str(p, &o->owner_name);
        pk_str(p, &o->owner_uid);
        pk_str(p, &o->job_key);
        pk_str(p, &o->task_name);
        pk_str(p, &o->argo_node_id);
        pk_str(p, &o->argo_node_name);
        pack_affinity_strs(p, &o->required_affinity);
        pk_str(p, &o->affinity_error);
        break;
    }
    case KUBE_KIND_CONFIGMAP: {
        kube_configmap *o = (kube_configmap *)m;
        pk_kvs(p, &o->data, o->n_data);
        pack_meta_strs(p, m);
        pk_kv_strs(p, o->data, o->n_data);
        break;
    }
    case KUBE_KIND_PDB: {
        kube_pdb *o = (kube_pdb *)m;
        pk_kvs(p, &o->match_labels, o->n_match_labels);
        pk_arr(p, (const void **)&o->match_expressions, o->n_match_expressions,
               sizeof *o->match_expressions);
        for (size_t i = 0; o->match_expressions != NULL && i < o->n_match_expressions; i++)
            pk_strv(p, &((kube_selector_req *)&o->match_expressions[i])->values,
                    o->match_expressions[i].n_values);
        pack_meta_strs(p, m);
        pk_kv_strs(p, o->match_labels, o->n_match_labels);
        for (size_t i = 0; i < o->n_match_expressions; i++) {
            kube_selector_req *r = (kube_selector_req *)&o->match_expressions[i];
            pk_str(p, &r->key);
            pk_strv_strs(p, r->values, r->n_values);
        }
        break;
    }
    case KUBE_KIND_NODE: {
        kube_node *o = (kube_node *)m;
        pk_arr(p, (const void **)&o->taints, o->n_taints, sizeof *o->taints);
        pack_meta_strs(p, m);
        for (size_t i = 0; o->taints != NULL && i < o->n_taints; i++) {
            kube_taint *t = (kube_taint *)&o->taints[i];
            pk_key_value_effect(p, &t->key, &t->value, &t->effect);
        }
        break;
    }
    case KUBE_KIND_JOB:
    case KUBE_KIND_NAMESPACE:
    case KUBE_KIND_WORKFLOW:
    case KUBE_KIND_N:
        pack_meta_strs(p, m);
        break;
    }
}

/* Copy the decoded struct (with borrowed strings and temporary arrays) into one allocation. */
static kube_meta *pack(dctx *d, const kube_meta *tmp, size_t struct_size)
{
    packer sizing = {.base = NULL, .off = struct_size, .sizing = true};
    /* The sizing pass must not modify tmp: work on a scratch copy. */
    char scratch[sizeof(kube_pdb) + sizeof(kube_pod) + sizeof(kube_job) + 64];
    if (struct_size > sizeof scratch) {
        fail(d, "internal: struct too large");
        return NULL;
    }
    memcpy(scratch, tmp, struct_size);
    pack_fields(&sizing, (kube_meta *)scratch);
    size_t total = align8(sizing.off);
    char *block = malloc(total);
    if (block == NULL) {
        fail(d, "out of memory");
        return NULL;
    }
    memcpy(block, tmp, struct_size);
    packer copy = {.base = block, .off = struct_size, .sizing = false};
    pack_fields(&copy, (kube_meta *)block);
    kube_meta *m = (kube_meta *)block;
    atomic_init(&m->refs, 1);
    m->alloc_bytes = total;
    return m;
}

/* ---- kinds ---- */

static const char *const kind_names[KUBE_KIND_N] = {
    "pod", "node", "configmap", "poddisruptionbudget", "job", "namespace", "workflow"};
static const char *const kind_prefix[KUBE_KIND_N] = {"/api/v1",
                                                     "/api/v1",
                                                     "/api/v1",
                                                     "/apis/policy/v1",
                                                     "/apis/batch/v1",
                                                     "/api/v1",
                                                     "/apis/argoproj.io/v1alpha1"};
static const char *const kind_resource[KUBE_KIND_N] = {
    "pods", "nodes", "configmaps", "poddisruptionbudgets", "jobs", "namespaces", "workflows"};

const char *kube_kind_name(kube_kind kind)
{
    return (unsigned)kind < KUBE_KIND_N ? kind_names[kind] : "unknown";
}

const char *kube_kind_api_prefix(kube_kind kind)
{
    return (unsigned)kind < KUBE_KIND_N ? kind_prefix[kind] : "/api/v1";
}

const char *kube_kind_resource(kube_kind kind)
{
    return (unsigned)kind < KUBE_KIND_N ? kind_resource[kind] : "unknown";
}

bool kube_kind_namespaced(kube_kind kind)
{
    return kind != KUBE_KIND_NODE && kind != KUBE_KIND_NAMESPACE;
}

/* ---- labels and dagsched annotations ---- */

/* Does the metadata carry dagsched metadata: a label or an annotation with the dagsched.io/
 * prefix, or the Argo workflow label? */
static bool carries_dagsched(const json_t *md)
{
    static const char *const maps[] = {"labels", "annotations"};
    size_t pl = strlen(KUBE_ANNOTATION_PREFIX);
    for (int i = 0; i < 2; i++) {
        const char *k;
        json_t *v;
        json_object_foreach(json_object_get(md, maps[i]), k, v)
        {
            (void)v;
            if (strncmp(k, KUBE_ANNOTATION_PREFIX, pl) == 0 ||
                (i == 0 && strcmp(k, DS_LABEL_ARGO_WORKFLOW) == 0))
                return true;
        }
    }
    return false;
}

/* Whether a metadata map (its entries whose key starts with prefix; NULL: all) is beyond the
 * bounds get_kvs applies; if so, why ("annotation dagsched.io/depends-on: 204800 bytes, limit
 * 65536"). `what` names one entry ("label", "annotation"). A map of the wrong shape (not an
 * object, a value that is not a string) is left to get_kvs, which rejects it. */
static bool map_over_bounds(const json_t *map, const char *what, const char *prefix,
                            size_t max_entries, size_t max_value, size_t max_total, char *why,
                            size_t size)
{
    if (!json_is_object(map))
        return false;
    size_t pl = prefix ? strlen(prefix) : 0, n = 0, total = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)map, k, v)
    {
        if (prefix != NULL && strncmp(k, prefix, pl) != 0)
            continue;
        n++;
        size_t kl = strlen(k);
        if (kl > KUBE_OBJ_MAX_STR) {
            snprintf(why, size, "%s key \"%.64s...\": %zu bytes, limit %d", what, k, kl,
                     KUBE_OBJ_MAX_STR);
            return true;
        }
        if (!json_is_string(v))
            continue;
        size_t vl = json_string_length(v);
        if (vl > max_value) {
            snprintf(why, size, "%s %.317s: %zu bytes, limit %zu", what, k, vl, max_value);
            return true;
        }
        if (strlen(json_string_value(v)) != vl) {
            snprintf(why, size, "%s %.317s: contains a NUL character", what, k);
            return true;
        }
        total += kl + vl;
    }
    if (n > max_entries) {
        snprintf(why, size, "%zu %s%s%ss, limit %zu", n, prefix ? prefix : "", prefix ? " " : "",
                 what, max_entries);
        return true;
    }
    if (total > max_total) {
        snprintf(why, size, "%s%s%ss: %zu bytes in all, limit %zu", prefix ? prefix : "",
                 prefix ? " " : "", what, total, max_total);
        return true;
    }
    return false;
}

/* Labels and dagsched.io/ annotations. The API server accepts any number of labels and 256 KiB of
 * annotations, more than dagsched keeps: for pods and batch Jobs, a map beyond dagsched's bounds
 * does not fail the decoding but is left out, and when the object carries dagsched metadata,
 * m->dagsched_error says why (the object is then outside any DAG job). Other kinds, and maps of
 * the wrong shape, fail. */
static int decode_meta_maps(dctx *d, kube_kind kind, const json_t *md, kube_meta *m)
{
    bool soft = kind == KUBE_KIND_POD || kind == KUBE_KIND_JOB;
    char why_labels[DS_ERR_MAX], why_ann[DS_ERR_MAX];
    bool drop_labels =
        soft && map_over_bounds(json_object_get(md, "labels"), "label", NULL, KUBE_OBJ_MAX_LABELS,
                                KUBE_OBJ_MAX_STR, KUBE_OBJ_MAX_LABELS * (size_t)KUBE_OBJ_MAX_STR,
                                why_labels, sizeof why_labels);
    bool drop_ann = soft && map_over_bounds(json_object_get(md, "annotations"), "annotation",
                                            KUBE_ANNOTATION_PREFIX, KUBE_OBJ_MAX_ANNOTATIONS,
                                            KUBE_OBJ_MAX_ANNOTATION, KUBE_OBJ_MAX_ANNOTATION_TOTAL,
                                            why_ann, sizeof why_ann);
    if ((!drop_labels &&
         get_kvs(d, md, "labels", "metadata.", NULL, KUBE_OBJ_MAX_LABELS, KUBE_OBJ_MAX_STR,
                 KUBE_OBJ_MAX_LABELS * (size_t)KUBE_OBJ_MAX_STR, &m->labels, &m->n_labels) != 0) ||
        (!drop_ann &&
         get_kvs(d, md, "annotations", "metadata.", KUBE_ANNOTATION_PREFIX,
                 KUBE_OBJ_MAX_ANNOTATIONS, KUBE_OBJ_MAX_ANNOTATION, KUBE_OBJ_MAX_ANNOTATION_TOTAL,
                 &m->annotations, &m->n_annotations) != 0))
        return -1;
    if ((drop_labels || drop_ann) && carries_dagsched(md)) {
        snprintf(d->dagsched_error, sizeof d->dagsched_error, "%s",
                 drop_labels ? why_labels : why_ann);
        m->dagsched_error = d->dagsched_error;
    }
    return 0;
}

static int decode_meta(dctx *d, kube_kind kind, const json_t *obj, kube_meta *m)
{
    m->kind = kind;
    const json_t *md = get_obj(obj, "metadata");
    snprintf(d->what, sizeof d->what, "%s", kind_names[kind]);
    if (md == NULL)
        return fail(d, "metadata: missing");
    if (get_str(d, md, "name", "metadata.", 253, true, &m->name) != 0)
        return -1;
    if (kube_kind_namespaced(kind) &&
        get_str(d, md, "namespace", "metadata.", 63, true, &m->ns) != 0) {
        snprintf(d->what, sizeof d->what, "%s %s", kind_names[kind], m->name);
        return fail(d, "metadata.namespace: missing");
    }
    if (m->ns != NULL)
        snprintf(d->what, sizeof d->what, "%s %s/%s", kind_names[kind], m->ns, m->name);
    else
        snprintf(d->what, sizeof d->what, "%s %s", kind_names[kind], m->name);
    if (get_str(d, md, "uid", "metadata.", 128, false, &m->uid) != 0 ||
        get_str(d, md, "resourceVersion", "metadata.", 128, true, &m->resource_version) != 0 ||
        get_time(d, md, "creationTimestamp", "metadata.", &m->creation_ts) != 0)
        return -1;
    const json_t *del = json_object_get(md, "deletionTimestamp");
    m->deleting = del != NULL && !json_is_null(del);
    return decode_meta_maps(d, kind, md, m);
}

/* Add one resource map (requests, overhead, allocatable) into r. */
int kube_requests_add(const json_t *map, const kube_decode_opts *opts, ds_res *r, ds_err *err)
{
    if (map == NULL || json_is_null(map))
        return 0;
    if (!json_is_object(map))
        return ds_err_set(err, "must be a map of quantities");
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)map, k, v)
    {
        int kind = ds_res_kind(k, opts ? opts->gpu_names : NULL, opts ? opts->n_gpu_names : 0);
        if (kind < 0)
            continue;
        const char *q = json_string_value(v);
        if (q == NULL)
            return ds_err_set(err, "%.253s: must be a quantity string", k);
        int64_t x;
        ds_err e;
        int rc = kind == DS_RES_CPU ? ds_quantity_parse_milli(q, &x, &e)
                                    : ds_quantity_parse_value(q, &x, &e);
        if (rc != 0)
            return ds_err_set(err, "%.253s: %s", k, e.msg);
        if (x < 0)
            return ds_err_set(err, "%.253s: negative quantity (got %.64s)", k, q);
        ds_res one = {{0}};
        one.v[kind] = x;
        ds_res_add(r, &one);
    }
    return 0;
}

static int add_resources(dctx *d, const json_t *map, const char *path, ds_res *r)
{
    ds_err e = {{0}};
    if (kube_requests_add(map, d->opts, r, &e) != 0)
        return json_is_object(map) ? fail(d, "%s.%s", path, e.msg) : fail(d, "%s: %s", path, e.msg);
    return 0;
}

static void res_max(ds_res *acc, const ds_res *x)
{
    for (int k = 0; k < DS_RES_N; k++)
        if (x->v[k] > acc->v[k])
            acc->v[k] = x->v[k];
}

/* The pod's effective request, as kube-scheduler computes it: the larger of the sum over
 * containers (plus restartable "sidecar" init containers) and the largest init container (with
 * the sidecars started before it), plus the pod overhead. */
static int pod_requests(dctx *d, const json_t *spec, ds_res *out)
{
    memset(out, 0, sizeof *out);
    const json_t *cs, *ics;
    size_t n;
    if (get_list(d, spec, "containers", "spec.", &cs, &n) != 0 ||
        get_list(d, spec, "initContainers", "spec.", &ics, &n) != 0)
        return -1;
    char path[96];
    size_t i;
    json_t *c;
    json_array_foreach(cs, i, c)
    {
        snprintf(path, sizeof path, "spec.containers[%zu].resources.requests", i);
        if (add_resources(d, json_object_get(get_obj(c, "resources"), "requests"), path, out) != 0)
            return -1;
    }
    ds_res sidecars = {{0}}, init_max = {{0}};
    json_array_foreach(ics, i, c)
    {
        ds_res one = {{0}};
        snprintf(path, sizeof path, "spec.initContainers[%zu].resources.requests", i);
        if (add_resources(d, json_object_get(get_obj(c, "resources"), "requests"), path, &one) != 0)
            return -1;
        const char *rp = json_string_value(json_object_get(c, "restartPolicy"));
        if (rp != NULL && strcmp(rp, "Always") == 0) {
            ds_res_add(out, &one);
            ds_res_add(&sidecars, &one);
            one = sidecars;
        } else {
            ds_res_add(&one, &sidecars);
        }
        res_max(&init_max, &one);
    }
    res_max(out, &init_max);
    return add_resources(d, json_object_get(spec, "overhead"), "spec.overhead", out);
}

/* Conditions, finish time and mirror annotation. */
static int decode_pod_status(dctx *d, const json_t *obj, const json_t *status, kube_pod *p)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(status, "conditions"), i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        const char *s = json_string_value(json_object_get(c, "status"));
        const char *r = json_string_value(json_object_get(c, "reason"));
        if (t == NULL || strcmp(t, "PodScheduled") != 0)
            continue;
        p->unschedulable =
            s != NULL && strcmp(s, "False") == 0 && r != NULL && strcmp(r, "Unschedulable") == 0;
        char path[64];
        snprintf(path, sizeof path, "status.conditions[%zu].", i);
        if (p->unschedulable &&
            get_time(d, c, "lastTransitionTime", path, &p->unschedulable_since) != 0)
            return -1;
    }
    json_array_foreach(json_object_get(status, "containerStatuses"), i, c)
    {
        const json_t *term = get_obj(get_obj(c, "state"), "terminated");
        double f = 0;
        char path[80];
        snprintf(path, sizeof path, "status.containerStatuses[%zu].state.terminated.", i);
        if (term != NULL && get_time(d, term, "finishedAt", path, &f) != 0)
            return -1;
        if (f > p->finished_at)
            p->finished_at = f;
    }
    const json_t *ann = json_object_get(get_obj(obj, "metadata"), "annotations");
    p->mirror = json_object_get(ann, "kubernetes.io/config.mirror") != NULL;
    return 0;
}

/* Node selector and tolerations. */
static int decode_pod_placement(dctx *d, const json_t *spec, kube_pod *p)
{
    size_t i;
    json_t *c;
    if (get_kvs(d, spec, "nodeSelector", "spec.", NULL, KUBE_OBJ_MAX_LABELS, KUBE_OBJ_MAX_STR,
                KUBE_OBJ_MAX_LABELS * KUBE_OBJ_MAX_STR, &p->node_selector,
                &p->n_node_selector) != 0)
        return -1;
    const json_t *tols;
    size_t n;
    kube_toleration *arr;
    if (get_list_arr(d, spec, "tolerations", "spec.", sizeof *arr, &tols, &n, (void **)&arr) != 0)
        return -1;
    json_array_foreach(tols, i, c)
    {
        char path[64];
        snprintf(path, sizeof path, "spec.tolerations[%zu].", i);
        const char *op = NULL;
        if (get_str(d, c, "key", path, 317, false, &arr[i].key) != 0 ||
            get_str(d, c, "operator", path, 16, false, &op) != 0 ||
            get_str(d, c, "value", path, 63, false, &arr[i].value) != 0 ||
            get_str(d, c, "effect", path, 32, false, &arr[i].effect) != 0)
            return -1;
        if (op != NULL && strcmp(op, "Exists") != 0 && strcmp(op, "Equal") != 0)
            return fail(d, "%soperator: must be Exists or Equal (got \"%.16s\")", path, op);
        arr[i].op_exists = op != NULL && strcmp(op, "Exists") == 0;
        if (arr[i].key != NULL && arr[i].key[0] == '\0')
            arr[i].key = NULL;
        if (arr[i].effect != NULL && arr[i].effect[0] == '\0')
            arr[i].effect = NULL;
    }
    p->tolerations = arr;
    p->n_tolerations = n;
    return 0;
}

/* ---- required node affinity ---- */

#define AFFINITY_PATH "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"

/* Member `key` of parent as an object: *out NULL when absent or null; error when not an object. */
static int get_opt_obj(dctx *d, const json_t *parent, const char *key, const char *path,
                       const json_t **out)
{
    *out = NULL;
    const json_t *v = member(parent, key);
    if (v == NULL)
        return 0;
    if (!json_is_object(v))
        return fail(d, "%s%s: must be an object", path, key);
    *out = v;
    return 0;
}

/* Counts of a nodeSelectorTerms list, checking its shape and the limits. */
static int affinity_count(dctx *d, const json_t *terms, size_t *n_reqs, size_t *n_vals)
{
    static const char *const kinds[] = {"matchExpressions", "matchFields"};
    *n_reqs = 0;
    *n_vals = 0;
    size_t t;
    json_t *term;
    json_array_foreach(terms, t, term)
    {
        char path[160];
        snprintf(path, sizeof path, AFFINITY_PATH ".nodeSelectorTerms[%zu]", t);
        if (json_is_null(term))
            continue; /* a null term is an empty term: it matches no node */
        if (!json_is_object(term))
            return fail(d, "%s: must be an object", path);
        snprintf(path, sizeof path, AFFINITY_PATH ".nodeSelectorTerms[%zu].", t);
        for (int k = 0; k < 2; k++) {
            const json_t *reqs;
            size_t nr;
            if (get_bounded_list(d, term, kinds[k], path, DS_NSEL_MAX_REQS, &reqs, &nr) != 0)
                return -1;
            *n_reqs += nr;
            size_t i;
            json_t *r;
            json_array_foreach(reqs, i, r)
            {
                char rpath[200];
                snprintf(rpath, sizeof rpath, "%s%s[%zu]", path, kinds[k], i);
                if (!json_is_object(r))
                    return fail(d, "%s: must be an object", rpath);
                const json_t *vals;
                size_t nv;
                snprintf(rpath, sizeof rpath, "%s%s[%zu].", path, kinds[k], i);
                if (get_bounded_list(d, r, "values", rpath, DS_NSEL_MAX_VALUES, &vals, &nv) != 0)
                    return -1;
                *n_vals += nv;
                if (*n_vals > DS_NSEL_MAX_TOTAL_VALUES)
                    return fail(d, AFFINITY_PATH ": too many values in all (limit %d)",
                                DS_NSEL_MAX_TOTAL_VALUES);
            }
        }
    }
    return 0;
}

/* One requirement; path ends with "." ("...matchExpressions[0]."). */
static int affinity_req(dctx *d, const json_t *e, const char *path, const char **vals_store,
                        ds_nsel_req *r)
{
    const char *op;
    if (get_str(d, e, "key", path, KUBE_OBJ_MAX_STR, true, &r->key) != 0 ||
        get_str(d, e, "operator", path, 32, true, &op) != 0)
        return -1;
    if (ds_nsel_op_parse(op, &r->op) != 0)
        return fail(d,
                    "%soperator: must be In, NotIn, Exists, DoesNotExist, Gt or Lt (got "
                    "\"%.32s\")",
                    path, op);
    const json_t *vals = json_object_get(e, "values");
    r->n_values = json_is_array(vals) ? json_array_size(vals) : 0;
    r->values = r->n_values > 0 ? vals_store : NULL;
    for (size_t j = 0; j < r->n_values; j++) {
        const json_t *v = json_array_get(vals, j);
        if (!json_is_string(v) || json_string_length(v) > KUBE_OBJ_MAX_STR ||
            strlen(json_string_value(v)) != json_string_length(v))
            return fail(d, "%svalues[%zu]: must be a string of at most %d bytes without NUL", path,
                        j, KUBE_OBJ_MAX_STR);
        vals_store[j] = json_string_value(v);
    }
    return 0;
}

/* Decode into p (errors through fail()); the caller turns an error into p->affinity_error. */
static int affinity_parse(dctx *d, const json_t *spec, kube_pod *p)
{
    const json_t *aff, *na, *req;
    if (get_opt_obj(d, spec, "affinity", "spec.", &aff) != 0)
        return -1;
    if (aff == NULL)
        return 0;
    if (get_opt_obj(d, aff, "nodeAffinity", "spec.affinity.", &na) != 0)
        return -1;
    if (na == NULL)
        return 0;
    if (get_opt_obj(d, na, "requiredDuringSchedulingIgnoredDuringExecution",
                    "spec.affinity.nodeAffinity.", &req) != 0)
        return -1;
    if (req == NULL)
        return 0;
    p->has_required_affinity = true;
    const json_t *terms;
    size_t n_terms, n_reqs, n_vals;
    if (get_bounded_list(d, req, "nodeSelectorTerms", AFFINITY_PATH ".", DS_NSEL_MAX_TERMS, &terms,
                         &n_terms) != 0 ||
        affinity_count(d, terms, &n_reqs, &n_vals) != 0)
        return -1;
    if (n_terms == 0)
        return 0; /* no term: matches no node */
    ds_nsel_term *ta = temp_alloc(d, n_terms, sizeof *ta);
    ds_nsel_req *ra = temp_alloc(d, n_reqs, sizeof *ra);
    const char **va = temp_alloc(d, n_vals, sizeof *va);
    if (ta == NULL || ra == NULL || va == NULL)
        return -1;
    size_t used_r = 0, used_v = 0;
    for (size_t t = 0; t < n_terms; t++) {
        const json_t *term = json_array_get(terms, t);
        const json_t *lists[2] = {json_object_get(term, "matchExpressions"),
                                  json_object_get(term, "matchFields")};
        static const char *const kinds[] = {"matchExpressions", "matchFields"};
        for (int k = 0; k < 2; k++) {
            size_t nr = json_is_array(lists[k]) ? json_array_size(lists[k]) : 0;
            ds_nsel_req *first = &ra[used_r];
            for (size_t i = 0; i < nr; i++) {
                char path[200];
                snprintf(path, sizeof path, AFFINITY_PATH ".nodeSelectorTerms[%zu].%s[%zu].", t,
                         kinds[k], i);
                const json_t *e = json_array_get(lists[k], i);
                if (affinity_req(d, e, path, &va[used_v], &ra[used_r]) != 0)
                    return -1;
                used_v += ra[used_r].n_values;
                used_r++;
            }
            if (k == 0) {
                ta[t].match_expressions = nr > 0 ? first : NULL;
                ta[t].n_match_expressions = nr;
            } else {
                ta[t].match_fields = nr > 0 ? first : NULL;
                ta[t].n_match_fields = nr;
            }
        }
    }
    p->required_affinity = (ds_node_selector){.terms = ta, .n_terms = n_terms};
    ds_err e;
    if (ds_node_selector_check(&p->required_affinity, &e) != 0)
        return fail(d, AFFINITY_PATH ".%s", e.msg);
    return 0;
}

/* The pod's required node affinity. Never fails the decoding: a malformed or over-limit affinity
 * is kept as one without terms (it matches no node) with the reason in p->affinity_error. */
static void decode_required_affinity(dctx *d, const json_t *obj, const json_t *spec, kube_pod *p)
{
    ds_err local = {{0}};
    ds_err *caller = d->err;
    d->err = &local;
    int rc = affinity_parse(d, spec, p);
    d->err = caller;
    if (rc == 0)
        return;
    const char *msg = local.msg;
    size_t wl = strlen(d->what);
    if (strncmp(msg, d->what, wl) == 0 && msg[wl] == ':' && msg[wl + 1] == ' ')
        msg += wl + 2; /* drop "pod ns/name: ": the object is named where the error is shown */
    snprintf(d->affinity_error, sizeof d->affinity_error, "%s", msg);
    p->has_required_affinity = true;
    p->required_affinity = (ds_node_selector){.terms = NULL, .n_terms = 0};
    p->affinity_error = d->affinity_error;
    /* A pod of dagsched's is then outside any DAG job, as for any other bound (pod_over_bounds). */
    if (p->meta.dagsched_error == NULL && carries_dagsched(get_obj(obj, "metadata"))) {
        snprintf(d->dagsched_error, sizeof d->dagsched_error, "%s", msg);
        p->meta.dagsched_error = d->dagsched_error;
    }
}

/* status.phase and status.startTime. */
static int decode_pod_phase(dctx *d, const json_t *status, kube_pod *p)
{
    const char *phase = NULL;
    if (status != NULL && get_str(d, status, "phase", "status.", 32, false, &phase) != 0)
        return -1;
    static const char *const phases[] = {"Pending", "Running", "Succeeded", "Failed"};
    p->phase = phase == NULL ? KUBE_POD_PENDING : KUBE_POD_UNKNOWN;
    for (int i = 0; phase != NULL && i < 4; i++)
        if (strcmp(phase, phases[i]) == 0)
            p->phase = (kube_pod_phase)i;
    if (status != NULL && get_time(d, status, "startTime", "status.", &p->start_time) != 0)
        return -1;
    return 0;
}

static int decode_pod(dctx *d, const json_t *obj, const json_t *spec, const json_t *status,
                      kube_meta *m)
{
    kube_pod *p = (kube_pod *)m;
    if (spec == NULL)
        return fail(d, "spec: missing");
    if (get_str(d, spec, "nodeName", "spec.", 253, false, &p->node_name) != 0 ||
        get_str(d, spec, "priorityClassName", "spec.", 253, false, &p->priority_class) != 0 ||
        get_str(d, spec, "schedulerName", "spec.", 253, false, &p->scheduler_name) != 0)
        return -1;
    if (p->node_name != NULL && p->node_name[0] == '\0')
        p->node_name = NULL;
    const json_t *prio = json_object_get(spec, "priority");
    p->has_priority = prio != NULL && !json_is_null(prio);
    if (get_i32(d, spec, "priority", "spec.", 0, &p->priority) != 0)
        return -1;
    const json_t *gates;
    const char **gate_names;
    if (get_list_arr(d, spec, "schedulingGates", "spec.", sizeof *gate_names, &gates, &p->n_gates,
                     (void **)&gate_names) != 0)
        return -1;
    for (size_t i = 0; i < p->n_gates; i++) {
        char path[64];
        snprintf(path, sizeof path, "spec.schedulingGates[%zu].", i);
        if (get_str(d, json_array_get(gates, i), "name", path, 317, true, &gate_names[i]) != 0)
            return -1;
    }
    p->gates = gate_names;
    if (pod_requests(d, spec, &p->requests) != 0)
        return -1;
    if (decode_pod_phase(d, status, p) != 0)
        return -1;
    const json_t *owners = json_object_get(get_obj(obj, "metadata"), "ownerReferences");
    size_t i;
    json_t *o;
    json_array_foreach(owners, i, o)
    {
        if (!json_is_true(json_object_get(o, "controller")))
            continue;
        char path[64];
        snprintf(path, sizeof path, "metadata.ownerReferences[%zu].", i);
        if (get_str(d, o, "kind", path, 253, true, &p->owner_kind) != 0 ||
            get_str(d, o, "name", path, 253, true, &p->owner_name) != 0 ||
            get_str(d, o, "uid", path, 128, false, &p->owner_uid) != 0)
            return -1;
        break;
    }
    if (decode_pod_status(d, obj, status, p) != 0 || decode_pod_placement(d, spec, p) != 0)
        return -1;
    decode_required_affinity(d, obj, spec, p);
    if (m->dagsched_error != NULL)
        return 0; /* outside any DAG job: no job key, no task */
    p->job_key = kube_meta_label(&p->meta, DS_LABEL_JOB);
    if (p->job_key == NULL)
        p->job_key = kube_meta_label(&p->meta, DS_LABEL_ARGO_WORKFLOW);
    p->task_name = kube_meta_label(&p->meta, DS_LABEL_TASK);
    const json_t *ann = json_object_get(get_obj(obj, "metadata"), "annotations");
    if (get_str(d, ann, DS_ARGO_ANN_NODE_ID, "metadata.annotations.", 253, false,
                &p->argo_node_id) != 0 ||
        get_str(d, ann, DS_ARGO_ANN_NODE_NAME, "metadata.annotations.", 1024, false,
                &p->argo_node_name) != 0)
        return -1;
    return 0;
}

static int decode_node(dctx *d, const json_t *obj, const json_t *spec, const json_t *status,
                       kube_meta *m)
{
    (void)obj;
    kube_node *n = (kube_node *)m;
    if (spec != NULL && get_bool(d, spec, "unschedulable", "spec.", &n->unschedulable) != 0)
        return -1;
    if (add_resources(d, json_object_get(status, "allocatable"), "status.allocatable",
                      &n->allocatable) != 0)
        return -1;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(status, "conditions"), i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        const char *s = json_string_value(json_object_get(c, "status"));
        if (t != NULL && strcmp(t, "Ready") == 0)
            n->ready = s != NULL && strcmp(s, "True") == 0;
    }
    const json_t *taints;
    size_t nt;
    kube_taint *arr;
    if (get_list_arr(d, spec, "taints", "spec.", sizeof *arr, &taints, &nt, (void **)&arr) != 0)
        return -1;
    json_array_foreach(taints, i, c)
    {
        char path[64];
        snprintf(path, sizeof path, "spec.taints[%zu].", i);
        if (get_str(d, c, "key", path, 317, true, &arr[i].key) != 0 ||
            get_str(d, c, "value", path, 63, false, &arr[i].value) != 0 ||
            get_str(d, c, "effect", path, 32, true, &arr[i].effect) != 0)
            return -1;
    }
    n->taints = arr;
    n->n_taints = nt;
    return 0;
}

static int decode_configmap(dctx *d, const json_t *obj, const json_t *spec, const json_t *status,
                            kube_meta *m)
{
    (void)spec;
    (void)status;
    kube_configmap *cm = (kube_configmap *)m;
    return get_kvs(d, obj, "data", "", NULL, KUBE_OBJ_MAX_CM_ENTRIES, KUBE_OBJ_MAX_CM_DATA,
                   KUBE_OBJ_MAX_CM_DATA, &cm->data, &cm->n_data);
}

/* One entry of a label selector's matchExpressions; path: "spec.selector.matchExpressions[0]." */
static int decode_selector_req(dctx *d, const json_t *e, const char *path, kube_selector_req *r)
{
    const char *op;
    if (get_str(d, e, "key", path, KUBE_OBJ_MAX_STR, true, &r->key) != 0 ||
        get_str(d, e, "operator", path, 32, true, &op) != 0)
        return -1;
    if (strcmp(op, "In") == 0)
        r->op = KUBE_SEL_IN;
    else if (strcmp(op, "NotIn") == 0)
        r->op = KUBE_SEL_NOT_IN;
    else if (strcmp(op, "Exists") == 0)
        r->op = KUBE_SEL_EXISTS;
    else if (strcmp(op, "DoesNotExist") == 0)
        r->op = KUBE_SEL_DOES_NOT_EXIST;
    else
        return fail(d, "%soperator: unknown (got \"%.32s\")", path, op);
    const json_t *vals;
    const char **va;
    if (get_list_arr(d, e, "values", path, sizeof *va, &vals, &r->n_values, (void **)&va) != 0)
        return -1;
    for (size_t j = 0; j < r->n_values; j++) {
        va[j] = json_string_value(json_array_get(vals, j));
        if (va[j] == NULL || strlen(va[j]) > KUBE_OBJ_MAX_STR)
            return fail(d, "%svalues[%zu]: must be a string of at most %d bytes", path, j,
                        KUBE_OBJ_MAX_STR);
    }
    r->values = va;
    return 0;
}

static int decode_pdb(dctx *d, const json_t *obj, const json_t *spec, const json_t *status,
                      kube_meta *m)
{
    kube_pdb *b = (kube_pdb *)m;
    const json_t *md = get_obj(obj, "metadata");
    const json_t *sel = get_obj(spec, "selector");
    b->has_selector = sel != NULL;
    if (get_kvs(d, sel, "matchLabels", "spec.selector.", NULL, KUBE_OBJ_MAX_LABELS,
                KUBE_OBJ_MAX_STR, KUBE_OBJ_MAX_LABELS * (size_t)KUBE_OBJ_MAX_STR, &b->match_labels,
                &b->n_match_labels) != 0)
        return -1;
    const json_t *exprs;
    size_t n;
    kube_selector_req *reqs;
    if (get_list_arr(d, sel, "matchExpressions", "spec.selector.", sizeof *reqs, &exprs, &n,
                     (void **)&reqs) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char path[80];
        snprintf(path, sizeof path, "spec.selector.matchExpressions[%zu].", i);
        if (decode_selector_req(d, json_array_get(exprs, i), path, &reqs[i]) != 0)
            return -1;
    }
    b->match_expressions = reqs;
    b->n_match_expressions = n;
    if (get_i64(d, md, "generation", "metadata.", 0, INT64_MAX, 0, &b->generation) != 0 ||
        get_i32(d, status, "disruptionsAllowed", "status.", 0, &b->disruptions_allowed) != 0 ||
        get_i32(d, status, "currentHealthy", "status.", 0, &b->current_healthy) != 0 ||
        get_i32(d, status, "desiredHealthy", "status.", 0, &b->desired_healthy) != 0 ||
        get_i32(d, status, "expectedPods", "status.", 0, &b->expected_pods) != 0 ||
        get_i64(d, status, "observedGeneration", "status.", 0, INT64_MAX, 0,
                &b->observed_generation) != 0)
        return -1;
    return 0;
}

static int decode_job(dctx *d, const json_t *obj, const json_t *spec, const json_t *status,
                      kube_meta *m)
{
    (void)obj;
    kube_job *j = (kube_job *)m;
    if (get_bool(d, spec, "suspend", "spec.", &j->suspend) != 0 ||
        get_i32(d, spec, "parallelism", "spec.", 1, &j->parallelism) != 0 ||
        get_i32(d, spec, "completions", "spec.", -1, &j->completions) != 0 ||
        get_i32(d, status, "active", "status.", 0, &j->active) != 0 ||
        get_i32(d, status, "succeeded", "status.", 0, &j->succeeded) != 0 ||
        get_i32(d, status, "failed", "status.", 0, &j->failed) != 0)
        return -1;
    if (get_i32(d, spec, "backoffLimit", "spec.", 6, &j->backoff_limit) != 0)
        return -1;
    const json_t *per_index = json_object_get(spec, "backoffLimitPerIndex");
    j->per_index_limit = per_index != NULL && !json_is_null(per_index);
    size_t r;
    json_t *rule;
    json_array_foreach(json_object_get(get_obj(spec, "podFailurePolicy"), "rules"), r, rule)
    {
        const char *action = json_string_value(json_object_get(rule, "action"));
        if (action == NULL || strcmp(action, "Ignore") != 0)
            continue;
        size_t k;
        json_t *cond;
        json_array_foreach(json_object_get(rule, "onPodConditions"), k, cond)
        {
            const char *type = json_string_value(json_object_get(cond, "type"));
            const char *cs = json_string_value(json_object_get(cond, "status"));
            if (type != NULL && strcmp(type, "DisruptionTarget") == 0 &&
                (cs == NULL || strcmp(cs, "True") == 0))
                j->ignores_disruption = true;
        }
    }
    const json_t *tspec = get_obj(get_obj(spec, "template"), "spec");
    if (tspec != NULL && pod_requests(d, tspec, &j->pod_request) != 0)
        return -1;
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(status, "conditions"), i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        const char *s = json_string_value(json_object_get(c, "status"));
        if (t != NULL && s != NULL && strcmp(s, "True") == 0 &&
            (strcmp(t, "Complete") == 0 || strcmp(t, "Failed") == 0))
            j->finished = true;
    }
    return 0;
}

/* A Namespace is its metadata: nothing beyond decode_meta. */
static int decode_namespace(dctx *d, const json_t *obj, const json_t *spec, const json_t *status,
                            kube_meta *m)
{
    (void)d;
    (void)obj;
    (void)spec;
    (void)status;
    (void)m;
    return 0;
}

/* A Workflow: the parts lib/argo_wf.h reads, decoded into an allocation of their own (a content
 * problem does not fail the decoding: it makes the job invalid, see argo_decode.h). */
static int decode_workflow(dctx *d, const json_t *obj, const json_t *spec, const json_t *status,
                           kube_meta *m)
{
    (void)spec;
    (void)status;
    kube_argo_wf *w;
    ds_err e = {{0}};
    if (kube_argo_decode(obj, d->opts, &w, &e) != 0)
        return fail(d, "%s", e.msg);
    ((kube_workflow *)m)->argo = w;
    return 0;
}

/* Each kind's decoder (after decode_meta, into a zeroed struct of that kind; spec and status are
 * NULL when absent or not objects) and the struct's size. */
static const struct {
    int (*fn)(dctx *d, const json_t *obj, const json_t *spec, const json_t *status, kube_meta *m);
    size_t size;
} decoders[KUBE_KIND_N] = {
    [KUBE_KIND_POD] = {decode_pod, sizeof(kube_pod)},
    [KUBE_KIND_NODE] = {decode_node, sizeof(kube_node)},
    [KUBE_KIND_CONFIGMAP] = {decode_configmap, sizeof(kube_configmap)},
    [KUBE_KIND_PDB] = {decode_pdb, sizeof(kube_pdb)},
    [KUBE_KIND_JOB] = {decode_job, sizeof(kube_job)},
    [KUBE_KIND_NAMESPACE] = {decode_namespace, sizeof(kube_namespace)},
    [KUBE_KIND_WORKFLOW] = {decode_workflow, sizeof(kube_workflow)},
};

/* A pod whose full decoding failed on one of dagsched's bounds (1,100 tolerations, a 300-entry
 * nodeSelector, 10,001 scheduling gates, 2,000 containers...: the API server accepts them) after
 * its metadata was decoded: keep what identifies it and what the controller needs to leave it
 * alone (node, phase, times, owner, whether it carries dagsched's gate and others, its request
 * when it can be computed), drop the rest, and say why in kube_meta.dagsched_error when the pod
 * concerns dagsched (its metadata or its gate): dagsched then treats it as outside any DAG job
 * (gate removed, one InvalidPodMetadata Event, the extender passes it). The one rule for every
 * bound of a pod (docs/dag-jobs.md, "Limits"). 0, or -1 when even this fails (err set). */
static int pod_over_bounds(dctx *d, const json_t *obj, const json_t *spec, const json_t *status,
                           kube_pod *p)
{
    char why[DS_ERR_MAX];
    const char *msg = d->err->msg;
    size_t wl = strlen(d->what);
    if (strncmp(msg, d->what, wl) == 0 && msg[wl] == ':' && msg[wl + 1] == ' ')
        msg += wl + 2;
    snprintf(why, sizeof why, "%s", msg);
    if (strstr(why, "out of memory") != NULL || spec == NULL)
        return -1;
    kube_meta meta = p->meta;
    memset(p, 0, sizeof *p);
    p->meta = meta;
    p->meta.dagsched_error = NULL;
    /* Identity and placement facts that a real API server keeps within bounds anyway. */
    if (get_str(d, spec, "nodeName", "spec.", 253, false, &p->node_name) != 0)
        return -1;
    if (p->node_name != NULL && p->node_name[0] == '\0')
        p->node_name = NULL;
    if (decode_pod_phase(d, status, p) != 0) {
        p->phase = KUBE_POD_UNKNOWN;
        p->start_time = 0;
    }
    if (decode_pod_status(d, obj, status, p) != 0) {
        p->unschedulable = false;
        p->finished_at = 0;
    }
    if (pod_requests(d, spec, &p->requests) != 0)
        memset(&p->requests, 0, sizeof p->requests); /* unknown: takes no room */
    /* Gates: ours and whether there are others, whatever their number. */
    size_t i, n_other = 0;
    json_t *g;
    bool ours = false;
    json_array_foreach(json_object_get(spec, "schedulingGates"), i, g)
    {
        const char *name = json_string_value(json_object_get(g, "name"));
        if (name != NULL && strcmp(name, DS_GATE_DEPENDENCIES) == 0)
            ours = true;
        else
            n_other++;
    }
    if (ours)
        d->kept_gates[p->n_gates++] = DS_GATE_DEPENDENCIES;
    if (n_other > 0)
        d->kept_gates[p->n_gates++] = KUBE_GATE_OTHERS;
    p->gates = d->kept_gates;
    const json_t *md = get_obj(obj, "metadata");
    if (ours || carries_dagsched(md)) {
        snprintf(d->dagsched_error, sizeof d->dagsched_error, "%s", why);
        p->meta.dagsched_error = d->dagsched_error;
    }
    return 0;
}

int kube_obj_decode(kube_kind kind, const json_t *obj, const kube_decode_opts *opts,
                    kube_meta **out, ds_err *err)
{
    *out = NULL;
    dctx d = {.err = err, .opts = opts};
    snprintf(d.what, sizeof d.what, "%s", kube_kind_name(kind));
    if (!json_is_object(obj))
        return fail(&d, "not a JSON object");
    if ((unsigned)kind >= KUBE_KIND_N)
        return ds_err_set(err, "unknown object kind %d", (int)kind);
    union {
        kube_pod pod;
        kube_node node;
        kube_configmap cm;
        kube_pdb pdb;
        kube_job job;
        kube_namespace ns;
        kube_workflow wf;
    } u;
    memset(&u, 0, sizeof u);
    kube_meta *m = (kube_meta *)&u;
    int rc = decode_meta(&d, kind, obj, m);
    bool identified = rc == 0;
    if (rc == 0)
        rc = decoders[kind].fn(&d, obj, get_obj(obj, "spec"), get_obj(obj, "status"), m);
    if (rc != 0 && identified && kind == KUBE_KIND_POD)
        rc = pod_over_bounds(&d, obj, get_obj(obj, "spec"), get_obj(obj, "status"), &u.pod);
    if (rc == 0) {
        *out = pack(&d, m, decoders[kind].size);
        if (*out == NULL)
            rc = -1;
    }
    if (rc != 0 && kind == KUBE_KIND_WORKFLOW)
        kube_argo_wf_free((kube_argo_wf *)u.wf.argo);
    temps_free(&d);
    return rc;
}

const kube_meta *kube_obj_ref(const kube_meta *m)
{
    if (m != NULL)
        atomic_fetch_add(&((kube_meta *)m)->refs, 1);
    return m;
}

void kube_obj_unref(const kube_meta *m)
{
    if (m != NULL && atomic_fetch_sub(&((kube_meta *)m)->refs, 1) == 1) {
        if (m->kind == KUBE_KIND_WORKFLOW)
            kube_argo_wf_free((kube_argo_wf *)((const kube_workflow *)m)->argo);
        free((void *)m);
    }
}

static const char *kv_find(const kube_kv *kv, size_t n, const char *key)
{
    for (size_t i = 0; kv != NULL && i < n; i++)
        if (strcmp(kv[i].key, key) == 0)
            return kv[i].value;
    return NULL;
}

const char *kube_meta_label(const kube_meta *m, const char *key)
{
    return kv_find(m->labels, m->n_labels, key);
}

const char *kube_meta_annotation(const kube_meta *m, const char *key)
{
    return kv_find(m->annotations, m->n_annotations, key);
}

bool kube_pdb_selects(const kube_pdb *pdb, const kube_meta *obj)
{
    if (!pdb->has_selector)
        return false;
    for (size_t i = 0; i < pdb->n_match_labels; i++) {
        const char *v = kube_meta_label(obj, pdb->match_labels[i].key);
        if (v == NULL || strcmp(v, pdb->match_labels[i].value) != 0)
            return false;
    }
    for (size_t i = 0; i < pdb->n_match_expressions; i++) {
        const kube_selector_req *r = &pdb->match_expressions[i];
        const char *v = kube_meta_label(obj, r->key);
        bool in = false;
        for (size_t j = 0; v != NULL && j < r->n_values; j++)
            if (strcmp(v, r->values[j]) == 0)
                in = true;
        bool ok = r->op == KUBE_SEL_IN       ? in
                  : r->op == KUBE_SEL_NOT_IN ? !in
                  : r->op == KUBE_SEL_EXISTS ? v != NULL
                                             : v == NULL;
        if (!ok)
            return false;
    }
    return true;
}

const char *kube_pod_phase_name(kube_pod_phase p)
{
    static const char *const names[] = {"Pending", "Running", "Succeeded", "Failed", "Unknown"};
    return (unsigned)p <= KUBE_POD_UNKNOWN ? names[p] : "Unknown";
}
