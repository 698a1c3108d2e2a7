/* snapcache.c: the extender's incremental snapshot: objects grouped into units by job key, the job
 * model evaluated again only for units that changed, results joined into one snapshot (see
 * snapcache.h). */
#include "snapcache.h"

#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "clock.h"
#include "grow.h"
#include "hash.h"
#include "jobgraph.h"
#include "model_input.h"

#define PLAIN_BUCKETS 1024 /* units of pods outside any job */
#define KEY_MAX       640  /* "ns/name" + NUL: a namespace and any object name fit */

struct ext_unit {
    atomic_int refs;
    const kube_pod **pods; /* references, in the order given to the job model */
    size_t *pod_node;      /* each pod's node index in the nodes it was built with, or DS_NONE */
    size_t n_pods;
    /* What its pods add to node usage: n_use nodes, each with the sum of the requests and the
     * count of its pods there (in a few contiguous arrays, so that assembling a snapshot does not
     * visit every pod object). */
    size_t *use_node;
    ds_res *use_res;
    size_t *use_pods;
    size_t n_use;
    const kube_configmap **graphs;
    size_t n_graphs;
    const kube_workflow **wfs;
    size_t n_wfs;
    ds_jobset jobs;
};

typedef struct objvec {
    const kube_meta **v; /* references */
    size_t n, cap;
} objvec;

typedef struct group {
    char *key;
    objvec pods, graphs, wfs;
    bool dirty;
    ext_unit *unit; /* the last build, or NULL */
} group;

struct ext_snapcache {
    group **groups;
    size_t n_groups, cap_groups;
    ds_strmap index; /* key -> groups[] */
    bool needs_reset;
    bool loading; /* in ext_snapcache_reset: objects are added once each */
    uint64_t units_built;
    /* What the units were evaluated with: a change of either makes every unit dirty. */
    const kube_node **nodes; /* references */
    size_t n_nodes;
    ds_policy policy;
    bool have_policy;
};

void ext_unit_unref(ext_unit *u)
{
    if (u == NULL || atomic_fetch_sub(&u->refs, 1) != 1)
        return;
    for (size_t i = 0; i < u->n_pods; i++)
        kube_obj_unref(&u->pods[i]->meta);
    for (size_t i = 0; i < u->n_graphs; i++)
        kube_obj_unref(&u->graphs[i]->meta);
    for (size_t i = 0; i < u->n_wfs; i++)
        kube_obj_unref(&u->wfs[i]->meta);
    free(u->pods);
    free(u->pod_node);
    free(u->use_node);
    free(u->use_res);
    free(u->use_pods);
    free(u->graphs);
    free(u->wfs);
    ds_jobset_free(&u->jobs);
    free(u);
}

static void objvec_free(objvec *v)
{
    for (size_t i = 0; i < v->n; i++)
        kube_obj_unref(v->v[i]);
    free(v->v);
    memset(v, 0, sizeof *v);
}

static void group_free(group *g)
{
    if (g == NULL)
        return;
    objvec_free(&g->pods);
    objvec_free(&g->graphs);
    objvec_free(&g->wfs);
    ext_unit_unref(g->unit);
    free(g->key);
    free(g);
}

static void clear(ext_snapcache *c)
{
    for (size_t i = 0; i < c->n_groups; i++)
        group_free(c->groups[i]);
    free(c->groups);
    c->groups = NULL;
    c->n_groups = c->cap_groups = 0;
    ds_strmap_free(&c->index);
    memset(&c->index, 0, sizeof c->index);
}

ext_snapcache *ext_snapcache_new(void)
{
    ext_snapcache *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    if (ds_strmap_init(&c->index, 64) != 0) {
        free(c);
        return NULL;
    }
    return c;
}

static void forget_nodes(ext_snapcache *c)
{
    for (size_t i = 0; i < c->n_nodes; i++)
        kube_obj_unref(&c->nodes[i]->meta);
    free(c->nodes);
    c->nodes = NULL;
    c->n_nodes = 0;
}

void ext_snapcache_free(ext_snapcache *c)
{
    if (c == NULL)
        return;
    clear(c);
    forget_nodes(c);
    free(c);
}

/* Node speeds and the nodes' order (node indexes) enter the units' results, the policy's priority
 * parameters too: when either differs from the last build, every unit is evaluated again. The
 * informers replace an object on every change, so unchanged nodes are the same objects (held here
 * so that their addresses are not reused). */
static int check_inputs(ext_snapcache *c, const ext_build_input *in)
{
    bool same = c->have_policy && memcmp(&c->policy, in->policy, sizeof c->policy) == 0 &&
                c->n_nodes == in->n_nodes;
    for (size_t i = 0; same && i < in->n_nodes; i++)
        same = c->nodes[i] == in->nodes[i];
    if (same)
        return 0;
    ext_snapcache_invalidate(c);
    forget_nodes(c);
    memcpy(&c->policy, in->policy, sizeof c->policy);
    c->have_policy = true;
    c->nodes = calloc(in->n_nodes ? in->n_nodes : 1, sizeof *c->nodes);
    if (c->nodes == NULL)
        return -1;
    for (size_t i = 0; i < in->n_nodes; i++)
        c->nodes[c->n_nodes++] = (const kube_node *)kube_obj_ref(&in->nodes[i]->meta);
    return 0;
}

bool ext_snapcache_needs_reset(const ext_snapcache *c)
{
    return c->needs_reset;
}

uint64_t ext_snapcache_units_built(const ext_snapcache *c)
{
    return c->units_built;
}

size_t ext_snapcache_units(const ext_snapcache *c)
{
    return c->n_groups;
}

void ext_snapcache_invalidate(ext_snapcache *c)
{
    for (size_t i = 0; i < c->n_groups; i++)
        c->groups[i]->dirty = true;
}

/* The unit of objects declaring or carrying job `name` in namespace `ns`: "ns/name" (the job
 * model's job key); "#N" (a bucket) when either is missing or too long. */
static void unit_key(const kube_meta *m, const char *name, char *key, size_t size)
{
    size_t ln = m->ns != NULL ? strlen(m->ns) : 0, lk = name != NULL ? strlen(name) : 0;
    if (m->ns != NULL && name != NULL && ln + lk + 2 <= size) {
        memcpy(key, m->ns, ln);
        key[ln] = '/';
        memcpy(key + ln + 1, name, lk + 1);
    } else {
        const char *fields[] = {m->ns, m->name};
        snprintf(key, size, "#%u", (unsigned)(ds_fnv1a_fields(fields, 2) % PLAIN_BUCKETS));
    }
}

static void pod_key(const kube_pod *p, char *key, size_t size)
{
    ds_pod_obs o;
    kube_pod_obs(p, 1.0, &o);
    const char *label;
    unit_key(&p->meta, ds_job_label_value(o.job_label, o.argo_workflow, &label), key, size);
}

/* The group of `key`, created when missing (NULL when out of memory). */
static group *group_get(ext_snapcache *c, const char *key)
{
    size_t len = strlen(key), idx;
    if (ds_strmap_get(&c->index, key, len, &idx) == 0)
        return c->groups[idx];
    if (c->n_groups == c->cap_groups) {
        group **g = ds_grow(c->groups, &c->cap_groups, sizeof *g, 64);
        if (g == NULL)
            return NULL;
        c->groups = g;
    }
    if (c->index.n >= c->index.max && ds_strmap_reserve(&c->index, 2 * c->index.max) != 0)
        return NULL;
    group *g = calloc(1, sizeof *g);
    if (g == NULL || (g->key = strdup(key)) == NULL) {
        free(g);
        return NULL;
    }
    if (ds_strmap_put(&c->index, g->key, len, c->n_groups, NULL) != 0) {
        group_free(g);
        return NULL;
    }
    g->dirty = true;
    c->groups[c->n_groups++] = g;
    return g;
}

static bool same_name(const kube_meta *a, const kube_meta *b)
{
    return a->name != NULL && b->name != NULL && strcmp(a->name, b->name) == 0 &&
           (a->ns == b->ns || (a->ns != NULL && b->ns != NULL && strcmp(a->ns, b->ns) == 0));
}

/* Remove the object named like m from v; false when v holds none. */
static bool objvec_remove(objvec *v, const kube_meta *m)
{
    for (size_t i = 0; i < v->n; i++)
        if (same_name(v->v[i], m)) {
            kube_obj_unref(v->v[i]);
            v->v[i] = v->v[--v->n];
            return true;
        }
    return false;
}

/* Add m, replacing the object of the same name (unless `fresh`: the caller knows there is none):
 * 1, or 0 when m is held already, -1 when out of memory. */
static int objvec_add(objvec *v, const kube_meta *m, bool fresh)
{
    for (size_t i = 0; i < v->n && !fresh; i++)
        if (v->v[i] == m)
            return 0;
    if (!fresh)
        objvec_remove(v, m);
    if (v->n == v->cap) {
        const kube_meta **n = ds_grow(v->v, &v->cap, sizeof *n, 4);
        if (n == NULL)
            return -1;
        v->v = n;
    }
    v->v[v->n++] = kube_obj_ref(m);
    return 1;
}

enum { OBJ_POD, OBJ_GRAPH, OBJ_WF };

static objvec *group_vec(group *g, int kind)
{
    return kind == OBJ_POD ? &g->pods : kind == OBJ_GRAPH ? &g->graphs : &g->wfs;
}

/* Remove the object named like m (the cache holds one object per namespace and name, the latest
 * it was given): from the unit of `key` or, when its labels changed in between, from whichever
 * unit holds it. False when none does: the object is gone already (a change that a reset's list
 * had seen and that arrives after it). */
static bool remove_named(ext_snapcache *c, int kind, const char *key, const kube_meta *m)
{
    size_t idx;
    if (ds_strmap_get(&c->index, key, strlen(key), &idx) == 0 &&
        objvec_remove(group_vec(c->groups[idx], kind), m)) {
        c->groups[idx]->dirty = true;
        return true;
    }
    for (size_t i = 0; i < c->n_groups; i++)
        if (objvec_remove(group_vec(c->groups[i], kind), m)) {
            c->groups[i]->dirty = true;
            return true;
        }
    return false;
}

/* Object changes are applied by name, so that each is idempotent: an update or deletion of an
 * object the cache does not hold, or an addition of one it holds, leaves the cache holding the
 * latest version given. */
static void change(ext_snapcache *c, int kind, const char *old_key, const kube_meta *old,
                   const char *cur_key, const kube_meta *cur)
{
    bool fresh = c->loading && old == NULL;
    if (old != NULL && (cur == NULL || strcmp(old_key, cur_key) != 0))
        remove_named(c, kind, old_key, old);
    if (cur != NULL) {
        group *g = group_get(c, cur_key);
        int rc = g != NULL ? objvec_add(group_vec(g, kind), cur, fresh) : -1;
        if (rc < 0)
            c->needs_reset = true;
        else if (rc > 0)
            g->dirty = true;
    }
}

void ext_snapcache_pod(ext_snapcache *c, const kube_pod *old, const kube_pod *cur)
{
    char ko[KEY_MAX], kc[KEY_MAX];
    if (old != NULL)
        pod_key(old, ko, sizeof ko);
    if (cur != NULL)
        pod_key(cur, kc, sizeof kc);
    change(c, OBJ_POD, ko, old != NULL ? &old->meta : NULL, kc, cur != NULL ? &cur->meta : NULL);
}

/* A JobGraph declares the job named by its graph.yaml's metadata.name (not the ConfigMap's name):
 * the YAML is parsed for it (again when the unit is built). */
static void graph_key(const kube_configmap *cm, char *key, size_t size)
{
    ds_graph_obs o;
    kube_graph_obs(cm, &o);
    ds_jobgraph g;
    ds_err err;
    memset(&g, 0, sizeof g);
    if (o.yaml != NULL)
        ds_jobgraph_parse(o.yaml, o.len, &g, &err);
    unit_key(&cm->meta, g.name, key, size);
    ds_jobgraph_free(&g);
}

void ext_snapcache_graph(ext_snapcache *c, const kube_configmap *old, const kube_configmap *cur)
{
    char ko[KEY_MAX], kc[KEY_MAX];
    if (old != NULL)
        graph_key(old, ko, sizeof ko);
    if (cur != NULL)
        graph_key(cur, kc, sizeof kc);
    change(c, OBJ_GRAPH, ko, old != NULL ? &old->meta : NULL, kc, cur != NULL ? &cur->meta : NULL);
}

void ext_snapcache_workflow(ext_snapcache *c, const kube_workflow *old, const kube_workflow *cur)
{
    char ko[KEY_MAX], kc[KEY_MAX];
    if (old != NULL)
        unit_key(&old->meta, old->meta.name, ko, sizeof ko);
    if (cur != NULL)
        unit_key(&cur->meta, cur->meta.name, kc, sizeof kc);
    change(c, OBJ_WF, ko, old != NULL ? &old->meta : NULL, kc, cur != NULL ? &cur->meta : NULL);
}

int ext_snapcache_reset(ext_snapcache *c, const ext_build_input *in, ds_err *err)
{
    clear(c);
    c->needs_reset = false;
    if (ds_strmap_init(&c->index, 64) != 0) {
        c->needs_reset = true;
        return ds_err_set(err, "snapshot cache: out of memory");
    }
    /* A list holds each object once: no need to look for an older version of it. */
    c->loading = true;
    for (size_t i = 0; i < in->n_pods; i++)
        ext_snapcache_pod(c, NULL, in->pods[i]);
    for (size_t i = 0; i < in->n_graphs; i++)
        ext_snapcache_graph(c, NULL, in->graphs[i]);
    for (size_t i = 0; i < in->n_workflows && in->workflows != NULL; i++)
        ext_snapcache_workflow(c, NULL, in->workflows[i]);
    c->loading = false;
    if (c->needs_reset)
        return ds_err_set(err, "snapshot cache: out of memory (%zu pods)", in->n_pods);
    return 0;
}

static int cmp_name(const char *a, const char *b)
{
    return a == b ? 0 : a == NULL ? -1 : b == NULL ? 1 : strcmp(a, b);
}

/* The canonical order of a unit's objects: by namespace, then name (the job model's messages
 * follow the order of its input). */
static int cmp_meta(const void *x, const void *y)
{
    const kube_meta *a = *(const kube_meta *const *)x, *b = *(const kube_meta *const *)y;
    int c = cmp_name(a->ns, b->ns);
    return c != 0 ? c : cmp_name(a->name, b->name);
}

/* u->use_*: its pods' requests summed per node. */
static int unit_usage(ext_unit *u)
{
    size_t n = u->n_pods ? u->n_pods : 1;
    u->use_node = calloc(n, sizeof *u->use_node);
    u->use_res = calloc(n, sizeof *u->use_res);
    u->use_pods = calloc(n, sizeof *u->use_pods);
    if (u->use_node == NULL || u->use_res == NULL || u->use_pods == NULL)
        return -1;
    for (size_t i = 0; i < u->n_pods; i++) {
        size_t idx = u->pod_node[i], k = 0;
        if (idx == DS_NONE)
            continue;
        while (k < u->n_use && u->use_node[k] != idx)
            k++;
        if (k == u->n_use)
            u->use_node[u->n_use++] = idx;
        ds_res_add(&u->use_res[k], &u->pods[i]->requests);
        u->use_pods[k]++;
    }
    return 0;
}

/* Evaluate the job model on g's objects, in canonical order (node speeds from s). */
static int build_unit(ext_snapcache *c, group *g, const ext_snapshot *s, const ext_build_input *in,
                      ext_unit **out, ds_err *err)
{
    *out = NULL;
    ext_unit *u = calloc(1, sizeof *u);
    if (u == NULL)
        return ds_err_set(err, "snapshot: out of memory");
    atomic_init(&u->refs, 1);
    size_t np = g->pods.n, ng = g->graphs.n, nw = g->wfs.n;
    if (np > 1)
        qsort(g->pods.v, np, sizeof *g->pods.v, cmp_meta);
    if (ng > 1)
        qsort(g->graphs.v, ng, sizeof *g->graphs.v, cmp_meta);
    if (nw > 1)
        qsort(g->wfs.v, nw, sizeof *g->wfs.v, cmp_meta);
    u->pods = calloc(np ? np : 1, sizeof *u->pods);
    u->pod_node = calloc(np ? np : 1, sizeof *u->pod_node);
    u->graphs = calloc(ng ? ng : 1, sizeof *u->graphs);
    u->wfs = calloc(nw ? nw : 1, sizeof *u->wfs);
    ds_pod_obs *obs = calloc(np ? np : 1, sizeof *obs);
    ds_graph_obs *gobs = calloc(ng ? ng : 1, sizeof *gobs);
    ds_wf_obs *wobs = calloc(nw ? nw : 1, sizeof *wobs);
    int rc = -1;
    if (u->pods == NULL || u->pod_node == NULL || u->graphs == NULL || u->wfs == NULL ||
        obs == NULL || gobs == NULL || wobs == NULL) {
        ds_err_set(err, "snapshot: out of memory (%zu pods)", np);
        goto out;
    }
    for (size_t i = 0; i < np; i++) {
        const kube_pod *p = (const kube_pod *)kube_obj_ref(g->pods.v[i]);
        u->pods[u->n_pods++] = p;
        size_t idx = ext_snapshot_pod_node(s, p);
        u->pod_node[i] = idx;
        kube_pod_obs(p, idx != DS_NONE ? s->nodes[idx].view.speed : 1.0, &obs[i]);
    }
    for (size_t i = 0; i < ng; i++) {
        const kube_configmap *cm = (const kube_configmap *)kube_obj_ref(g->graphs.v[i]);
        u->graphs[u->n_graphs++] = cm;
        kube_graph_obs(cm, &gobs[i]);
    }
    for (size_t i = 0; i < nw; i++) {
        const kube_workflow *w = (const kube_workflow *)kube_obj_ref(g->wfs.v[i]);
        u->wfs[u->n_wfs++] = w;
        kube_workflow_obs(w, &wobs[i]);
    }
    if (unit_usage(u) != 0) {
        ds_err_set(err, "snapshot: out of memory (%zu pods)", np);
        goto out;
    }
    if (ds_jobs_build_learned(obs, np, gobs, ng, wobs, nw, in->now, &in->policy->priority,
                              in->learned, &u->jobs, err) != 0) {
        ds_err_prefix(err, "job model");
        goto out;
    }
    c->units_built++;
    rc = 0;
out:
    free(obs);
    free(gobs);
    free(wobs);
    if (rc != 0)
        ext_unit_unref(u);
    else
        *out = u;
    return rc;
}

/* The pods, their nodes and the joined job model of the units held by s. */
static int assemble(ext_snapshot *s, ds_err *err)
{
    size_t n_pods = 0;
    for (size_t k = 0; k < s->n_units; k++)
        n_pods += s->units[k]->n_pods;
    s->pods = calloc(n_pods ? n_pods : 1, sizeof *s->pods);
    s->pod_node = calloc(n_pods ? n_pods : 1, sizeof *s->pod_node);
    const ds_jobset **parts = calloc(s->n_units ? s->n_units : 1, sizeof *parts);
    if (s->pods == NULL || s->pod_node == NULL || parts == NULL) {
        free(parts);
        return ds_err_set(err, "snapshot: out of memory (%zu pods)", n_pods);
    }
    for (size_t k = 0; k < s->n_units; k++) {
        const ext_unit *u = s->units[k];
        parts[k] = &u->jobs;
        memcpy(s->pods + s->n_pods, u->pods, u->n_pods * sizeof *u->pods);
        memcpy(s->pod_node + s->n_pods, u->pod_node, u->n_pods * sizeof *u->pod_node);
        s->n_pods += u->n_pods;
        for (size_t e = 0; e < u->n_use; e++) {
            ds_res_add(&s->nodes[u->use_node[e]].view.requested, &u->use_res[e]);
            s->nodes[u->use_node[e]].n_pods += u->use_pods[e];
        }
    }
    int rc = ds_jobset_join(parts, s->n_units, &s->jobs, err);
    free(parts);
    return rc;
}

int ext_snapcache_build(ext_snapcache *c, const ext_build_input *in, ext_snapshot **out,
                        ds_err *err)
{
    *out = NULL;
    double t0 = rt_mono_now();
    ext_snapshot *s = NULL;
    if (check_inputs(c, in) != 0)
        return ds_err_set(err, "snapshot: out of memory (%zu nodes)", in->n_nodes);
    if (ext_snapshot_begin(in, &s, err) != 0)
        return -1;
    s->units = calloc(c->n_groups ? c->n_groups : 1, sizeof *s->units);
    if (s->units == NULL) {
        ds_err_set(err, "snapshot: out of memory (%zu units)", c->n_groups);
        goto fail;
    }
    for (size_t i = 0; i < c->n_groups; i++) {
        group *g = c->groups[i];
        if (g->dirty) {
            ext_unit_unref(g->unit);
            g->unit = NULL;
            if ((g->pods.n > 0 || g->graphs.n > 0 || g->wfs.n > 0) &&
                build_unit(c, g, s, in, &g->unit, err) != 0)
                goto fail;
            g->dirty = false;
        }
        if (g->unit != NULL) {
            atomic_fetch_add(&g->unit->refs, 1);
            s->units[s->n_units++] = g->unit;
        }
    }
    if (assemble(s, err) != 0 || ext_snapshot_finish(s, in, err) != 0)
        goto fail;
    s->build_s = rt_mono_now() - t0;
    *out = s;
    return 0;
fail:
    ext_snapshot_discard(s);
    return -1;
}
