/* state.c: the extender's live state: informers, the snapshot builder thread (changes queued for
 * the snapshot cache, debounced incremental builds, periodic full refresh, atomic publication),
 * policy hot reload and Warning Events (see state.h). */
#include "state.h"

#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "annotations.h"
#include "argo_discovery.h"
#include "clock.h"
#include "grow.h"
#include "hash.h"
#include "informer.h"
#include "kutil.h"
#include "list.h"
#include "log.h"
#include "policy_source.h"
#include "protocol.h"
#include "snapcache.h"
#include "writes.h"

#define COMPONENT       "state"
#define EVENT_QUEUE     64
#define EVENT_DEDUPE    1024
#define EVENT_DEDUPE_S  600.0
#define EVENT_MSG_MAX   1024
#define EVENT_TIMEOUT_S 5.0
#define RUNTIMES_KEY    "history.tsv"
#define PENDING_MAX     200000 /* object changes queued for the builder; beyond: reset instead */

/* INF_WORKFLOWS (Argo Workflows) is NULL where the API server does not serve them. */
enum {
    INF_PODS = 0,
    INF_NODES,
    INF_GRAPHS,
    INF_POLICIES,
    INF_NAMESPACES,
    INF_RUNTIMES,
    INF_WORKFLOWS,
    INF_N
};
static const char *const inf_names[INF_N] = {"pods",       "nodes",    "jobgraphs", "policies",
                                             "namespaces", "runtimes", "workflows"};

/* An object change reported by the pods, JobGraphs or Workflows informer, for the snapshot cache
 * (references). */
typedef struct pending_change {
    int inf; /* INF_PODS, INF_GRAPHS or INF_WORKFLOWS */
    const kube_meta *old, *cur;
} pending_change;

typedef struct event_item {
    char kind[16]; /* "Pod", "ConfigMap" */
    char ns[64];
    char name[254];
    char uid[128];
    char reason[64];
    char message[EVENT_MSG_MAX];
} event_item;

#define API_CHECK_SLOTS 16
#define API_CHECK_TASKS 64

typedef struct api_check {
    char key[512]; /* "ns/job" */
    double at;     /* monotonic time of the read; 0 = empty or failed */
    bool pending;  /* a read of key is in flight (api_mu is not held across it) */
    uint64_t gen;  /* which read owns the slot: a reused slot is not written by an older one */
    size_t n_items;
    char done[API_CHECK_TASKS][DS_NAME_VALUE_MAX + 1]; /* tasks with a Succeeded pod */
    size_t n_done;
} api_check;

struct ext_state {
    kube_client *client;
    char *policy_namespace;
    char *policy_name;
    char *component;
    double debounce_s, max_delay_s, refresh_s;
    kube_informer *inf[INF_N];

    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* Changes queued by the informers' callbacks (under mu) for the builder thread, which owns the
     * snapshot cache; `reset`: rebuild the cache from the informers' lists instead (after a
     * (re)list, or when the queue overflowed or ran out of memory). */
    pending_change *pending;
    size_t n_pending, cap_pending;
    bool reset;
    ext_snapcache *cache; /* builder thread only */
    bool dirty;
    double first_dirty, last_dirty;
    bool stop;
    bool builder_started;
    pthread_t builder;
    const ext_snapshot *current;
    uint64_t seq;
    kube_policy_state policy; /* builder thread only */
    /* Run times learned by the controller (lib/runtime_history.h), read from its ConfigMap when
     * its resourceVersion changes; builder thread only. */
    ds_rt_history learned;
    char learned_rv[64];
    char policy_info_name[DS_POLICY_NAME_MAX], policy_info_source[320];

    /* Events: a bounded queue drained by its own thread. */
    pthread_mutex_t ev_mu;
    pthread_cond_t ev_cv;
    event_item queue[EVENT_QUEUE];
    size_t q_head, q_len;
    uint64_t dedupe_hash[EVENT_DEDUPE];
    double dedupe_at[EVENT_DEDUPE];
    bool ev_started;
    pthread_t ev_thread;

    /* Consistent reads of a job's pods, for waiting tasks whose upstream may have just finished. */
    pthread_mutex_t api_mu;
    api_check api_checks[API_CHECK_SLOTS];
    size_t api_next;
    uint64_t api_gen;
    pthread_cond_t api_cv; /* a pending read ended */

    metrics_family *m_objects, *m_jobs, *m_build, *m_builds, *m_built_at, *m_policy_gen,
        *m_policy_info, *m_policy_reloads, *m_events, *m_inf_healthy, *m_dsp_tasks, *m_policy_dups,
        *m_units;
};

static double mono_now(void)
{
    return rt_mono_now();
}

/* ---- metrics ---- */

static void register_metrics(ext_state *st, metrics_registry *r)
{
    if (r == NULL)
        return;
    const char *kind[] = {"kind"};
    st->m_objects =
        metrics_family_new(r, METRICS_GAUGE, "dagsched_extender_cache_objects",
                           "Objects in the informer caches, by kind.", kind, 1, NULL, 0);
    const char *validity[] = {"validity"};
    st->m_jobs = metrics_family_new(r, METRICS_GAUGE, "dagsched_extender_jobs",
                                    "DAG jobs in the current snapshot, valid or invalid.", validity,
                                    1, NULL, 0);
    st->m_dsp_tasks = metrics_family_new(
        r, METRICS_GAUGE, "dagsched_extender_dsp_tasks",
        "Waiting and running tasks of valid jobs in the current snapshot.", NULL, 0, NULL, 0);
    st->m_build =
        metrics_family_new(r, METRICS_HISTOGRAM, "dagsched_extender_snapshot_build_seconds",
                           "Time to build a snapshot from the caches.", NULL, 0,
                           metrics_latency_buckets, metrics_latency_buckets_n);
    const char *result[] = {"result"};
    st->m_builds = metrics_family_new(r, METRICS_COUNTER, "dagsched_extender_snapshot_builds_total",
                                      "Snapshot builds, by result.", result, 1, NULL, 0);
    st->m_units = metrics_family_new(
        r, METRICS_COUNTER, "dagsched_extender_snapshot_units_evaluated_total",
        "Units (a job's objects, or a bucket of pods outside any job) whose job model was "
        "evaluated again for a snapshot.",
        NULL, 0, NULL, 0);
    st->m_built_at =
        metrics_family_new(r, METRICS_GAUGE, "dagsched_extender_snapshot_timestamp_seconds",
                           "Wall-clock time the current snapshot was built at.", NULL, 0, NULL, 0);
    st->m_policy_gen = metrics_family_new(
        r, METRICS_GAUGE, "dagsched_extender_policy_generation",
        "Generation of the active policy (1: built-in defaults; +1 per change).", NULL, 0, NULL, 0);
    st->m_policy_dups = metrics_family_new(
        r, METRICS_GAUGE, "dagsched_extender_policy_duplicates",
        "Other ConfigMaps claiming the active policy's name, ignored.", NULL, 0, NULL, 0);
    const char *pi[] = {"policy", "source"};
    st->m_policy_info =
        metrics_family_new(r, METRICS_GAUGE, "dagsched_extender_policy_info",
                           "1 for the active policy (name and source).", pi, 2, NULL, 0);
    st->m_policy_reloads =
        metrics_family_new(r, METRICS_COUNTER, "dagsched_extender_policy_reloads_total",
                           "Policy ConfigMap versions examined, by outcome.", result, 1, NULL, 0);
    const char *ev[] = {"reason", "result"};
    st->m_events = metrics_family_new(r, METRICS_COUNTER, "dagsched_extender_events_total",
                                      "Warning Events, by reason and result.", ev, 2, NULL, 0);
    st->m_inf_healthy = metrics_family_new(
        r, METRICS_GAUGE, "dagsched_extender_informer_healthy",
        "1 when the informer has synced and is in contact with the API server.", kind, 1, NULL, 0);
}

static void count(metrics_family *f, const char *a, const char *b)
{
    if (f == NULL)
        return;
    const char *v[] = {a, b};
    metrics_add(f, v, 1);
}

/* ---- events ---- */

/* True when an Event with this key was queued within EVENT_DEDUPE_S (then it is suppressed);
 * otherwise remembers it. Called with ev_mu held. */
static bool seen_recently(ext_state *st, uint64_t h, double now)
{
    size_t slot = (size_t)(h % EVENT_DEDUPE);
    if (st->dedupe_hash[slot] == h && now - st->dedupe_at[slot] < EVENT_DEDUPE_S)
        return true;
    st->dedupe_hash[slot] = h;
    st->dedupe_at[slot] = now;
    return false;
}

static bool enqueue_event(ext_state *st, const char *kind, const kube_meta *m, const char *dedupe,
                          const char *reason, const char *message)
{
    if (m == NULL || m->ns == NULL || m->name == NULL)
        return false;
    pthread_mutex_lock(&st->ev_mu);
    const char *fields[] = {m->uid != NULL ? m->uid : m->name, reason, dedupe};
    uint64_t h = ds_fnv1a_fields(fields, 3);
    if (seen_recently(st, h, mono_now())) {
        pthread_mutex_unlock(&st->ev_mu);
        count(st->m_events, reason, "suppressed");
        return false;
    }
    if (st->q_len == EVENT_QUEUE) {
        pthread_mutex_unlock(&st->ev_mu);
        count(st->m_events, reason, "dropped");
        return false;
    }
    event_item *e = &st->queue[(st->q_head + st->q_len) % EVENT_QUEUE];
    snprintf(e->kind, sizeof e->kind, "%s", kind);
    snprintf(e->ns, sizeof e->ns, "%s", m->ns);
    snprintf(e->name, sizeof e->name, "%s", m->name);
    snprintf(e->uid, sizeof e->uid, "%s", m->uid != NULL ? m->uid : "");
    snprintf(e->reason, sizeof e->reason, "%s", reason);
    snprintf(e->message, sizeof e->message, "%s", message);
    st->q_len++;
    pthread_cond_signal(&st->ev_cv);
    pthread_mutex_unlock(&st->ev_mu);
    return true;
}

bool ext_state_pod_event(ext_state *st, const kube_pod *pod, const char *reason,
                         const char *message)
{
    if (st == NULL || pod == NULL)
        return false;
    return enqueue_event(st, "Pod", &pod->meta, message, reason, message);
}

static void post_event(ext_state *st, const event_item *e)
{
    kube_object_ref ref = {.api_version = "v1",
                           .kind = e->kind,
                           .ns = e->ns,
                           .name = e->name,
                           .uid = e->uid[0] != '\0' ? e->uid : NULL};
    ds_err err;
    if (kube_create_event(st->client, &ref, "Warning", e->reason, e->message, st->component,
                          &err) != 0) {
        KLOG_WARN(COMPONENT, "posting Event %s on %s %s/%s: %s", e->reason, e->kind, e->ns, e->name,
                  err.msg);
        count(st->m_events, e->reason, "failed");
    } else {
        count(st->m_events, e->reason, "posted");
    }
}

static void *event_loop(void *arg)
{
    ext_state *st = arg;
    pthread_mutex_lock(&st->ev_mu);
    for (;;) {
        while (st->q_len == 0 && !st->stop)
            pthread_cond_wait(&st->ev_cv, &st->ev_mu);
        if (st->stop)
            break;
        event_item e = st->queue[st->q_head];
        st->q_head = (st->q_head + 1) % EVENT_QUEUE;
        st->q_len--;
        pthread_mutex_unlock(&st->ev_mu);
        post_event(st, &e);
        pthread_mutex_lock(&st->ev_mu);
    }
    pthread_mutex_unlock(&st->ev_mu);
    return NULL;
}

/* ---- informer callbacks: only mark dirty ---- */

static void mark_dirty(ext_state *st)
{
    pthread_mutex_lock(&st->mu);
    double now = mono_now();
    if (!st->dirty)
        st->first_dirty = now;
    st->dirty = true;
    st->last_dirty = now;
    pthread_cond_signal(&st->cv);
    pthread_mutex_unlock(&st->mu);
}

static void cb_add(void *user, const kube_meta *obj)
{
    (void)obj;
    mark_dirty(user);
}

static void cb_update(void *user, const kube_meta *old, const kube_meta *cur)
{
    (void)old;
    (void)cur;
    mark_dirty(user);
}

static void cb_synced(void *user)
{
    ext_state *st = user;
    pthread_mutex_lock(&st->mu);
    st->reset = true;
    pthread_mutex_unlock(&st->mu);
    mark_dirty(st);
}

static void drop_pending(pending_change *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        kube_obj_unref(p[i].old);
        kube_obj_unref(p[i].cur);
    }
}

/* Queue a change of an object the snapshot cache groups (pods, JobGraphs, Workflows). */
static void queue_change(ext_state *st, int inf, const kube_meta *old, const kube_meta *cur)
{
    pthread_mutex_lock(&st->mu);
    if (!st->reset && st->n_pending == st->cap_pending) {
        /* Doubled, never past PENDING_MAX. */
        pending_change *p = st->cap_pending <= PENDING_MAX / 2
                                ? ds_grow(st->pending, &st->cap_pending, sizeof *p, 256)
                                : NULL;
        if (p == NULL) {
            drop_pending(st->pending, st->n_pending);
            st->n_pending = 0;
            st->reset = true;
        } else {
            st->pending = p;
        }
    }
    if (!st->reset)
        st->pending[st->n_pending++] = (pending_change){inf, old != NULL ? kube_obj_ref(old) : NULL,
                                                        cur != NULL ? kube_obj_ref(cur) : NULL};
    pthread_mutex_unlock(&st->mu);
    mark_dirty(st);
}

#define CHANGE_CALLBACKS(name, inf)                                                                \
    static void name##_add(void *user, const kube_meta *obj)                                       \
    {                                                                                              \
        queue_change(user, inf, NULL, obj);                                                        \
    }                                                                                              \
    static void name##_update(void *user, const kube_meta *old, const kube_meta *cur)              \
    {                                                                                              \
        queue_change(user, inf, old, cur);                                                         \
    }                                                                                              \
    static void name##_delete(void *user, const kube_meta *obj)                                    \
    {                                                                                              \
        queue_change(user, inf, obj, NULL);                                                        \
    }

CHANGE_CALLBACKS(pods, INF_PODS)
CHANGE_CALLBACKS(graphs, INF_GRAPHS)
CHANGE_CALLBACKS(wfs, INF_WORKFLOWS)

/* ---- building ---- */

static void set_gauge(metrics_family *f, const char *label, double v)
{
    if (f == NULL)
        return;
    const char *lv[] = {label};
    metrics_set(f, label != NULL ? lv : NULL, v);
}

/* Pods and nodes are decoded with the active policy's gpuResourceNames: when a reloaded policy
 * changes them, both watches list again and decode every object with the new names (the
 * snapshots built meanwhile still count the old ones). */
static void apply_gpu_names(ext_state *st)
{
    const char *gpu[DS_POLICY_MAX_LIST];
    size_t n = ds_name_list_ptrs(&st->policy.policy.gpu_resource_names, gpu);
    const int which[] = {INF_PODS, INF_NODES};
    for (size_t i = 0; i < 2; i++) {
        ds_err err = {{0}};
        int rc = kube_informer_set_gpu_names(st->inf[which[i]], gpu, n, &err);
        if (rc < 0)
            KLOG_ERROR(COMPONENT, "gpuResourceNames: %s", err.msg);
        else if (rc == 1)
            KLOG_INFO(COMPONENT, "gpuResourceNames changed: decoding %s again",
                      inf_names[which[i]]);
    }
}

static void apply_policy(ext_state *st, const kube_obj_list *cms)
{
    kube_policy_update u;
    kube_policy_refresh(&st->policy, (const kube_configmap *const *)cms->items, cms->n,
                        st->policy_name, &u);
    if (u.outcome == KUBE_POLICY_UNCHANGED)
        return;
    kube_policy_log(COMPONENT, st->policy_name, &st->policy, &u);
    count(st->m_policy_reloads, kube_policy_outcome_name(u.outcome), NULL);
    if (u.outcome == KUBE_POLICY_INVALID) {
        char msg[EVENT_MSG_MAX];
        kube_policy_event_message("dagsched-extender", &st->policy, &u, msg, sizeof msg);
        enqueue_event(st, "ConfigMap", &u.cm->meta,
                      u.cm->meta.resource_version != NULL ? u.cm->meta.resource_version : "",
                      KUBE_POLICY_EVENT_REASON, msg);
    }
    if (u.outcome != KUBE_POLICY_UPDATED)
        return;
    if (st->m_policy_info != NULL) {
        if (st->policy_info_name[0] != '\0') {
            const char *old[] = {st->policy_info_name, st->policy_info_source};
            metrics_set(st->m_policy_info, old, 0);
        }
        snprintf(st->policy_info_name, sizeof st->policy_info_name, "%s", st->policy.policy.name);
        snprintf(st->policy_info_source, sizeof st->policy_info_source, "%s", st->policy.source);
        const char *cur[] = {st->policy_info_name, st->policy_info_source};
        metrics_set(st->m_policy_info, cur, 1);
    }
    if (st->m_policy_gen != NULL)
        metrics_set(st->m_policy_gen, NULL, (double)st->policy.generation);
    if (st->m_policy_dups != NULL)
        metrics_set(st->m_policy_dups, NULL, (double)st->policy.duplicates);
}

static bool all_synced(ext_state *st)
{
    for (int i = 0; i < INF_N; i++)
        if (st->inf[i] != NULL && !kube_informer_synced(st->inf[i]))
            return false;
    return true;
}

static void free_lists(kube_obj_list *l)
{
    for (int k = 0; k < INF_N; k++)
        kube_obj_list_free(&l[k]);
}

/* List informer i into l[i] (nothing when it does not exist); false when out of memory. */
static bool list_one(ext_state *st, int i, kube_obj_list *l)
{
    if (st->inf[i] == NULL)
        return true;
    if (kube_informer_list(st->inf[i], &l[i]) != 0) {
        KLOG_ERROR(COMPONENT, "listing the %s cache: out of memory", inf_names[i]);
        return false;
    }
    set_gauge(st->m_objects, inf_names[i], (double)l[i].n);
    return true;
}

static void apply_change(ext_snapcache *c, const pending_change *p)
{
    if (p->inf == INF_PODS)
        ext_snapcache_pod(c, (const kube_pod *)p->old, (const kube_pod *)p->cur);
    else if (p->inf == INF_GRAPHS)
        ext_snapcache_graph(c, (const kube_configmap *)p->old, (const kube_configmap *)p->cur);
    else
        ext_snapcache_workflow(c, (const kube_workflow *)p->old, (const kube_workflow *)p->cur);
}

/* Bring the snapshot cache up to date: apply the queued changes or, when a reset is due (after a
 * (re)list, an overflow, or for the periodic refresh), load it from the informers' lists. The lists
 * are taken under mu, so that every change a callback queues afterwards is newer than them
 * (changes are idempotent: one the lists had seen already changes nothing). */
static int update_cache(ext_state *st, bool refresh, kube_obj_list *l)
{
    pthread_mutex_lock(&st->mu);
    bool reset = refresh || st->reset || ext_snapcache_needs_reset(st->cache);
    pending_change *p = st->pending;
    size_t n = st->n_pending;
    st->pending = NULL;
    st->n_pending = st->cap_pending = 0;
    bool listed = true;
    if (reset) {
        st->reset = false;
        listed = list_one(st, INF_PODS, l) && list_one(st, INF_GRAPHS, l) &&
                 list_one(st, INF_WORKFLOWS, l);
        if (!listed)
            st->reset = true;
    }
    pthread_mutex_unlock(&st->mu);
    int rc = 0;
    if (reset) {
        ds_err err;
        ext_build_input in = {
            .pods = (const kube_pod *const *)l[INF_PODS].items,
            .n_pods = l[INF_PODS].n,
            .graphs = (const kube_configmap *const *)l[INF_GRAPHS].items,
            .n_graphs = l[INF_GRAPHS].n,
            .workflows = (const kube_workflow *const *)l[INF_WORKFLOWS].items,
            .n_workflows = l[INF_WORKFLOWS].n,
        };
        if (!listed || ext_snapcache_reset(st->cache, &in, &err) != 0) {
            if (listed)
                KLOG_ERROR(COMPONENT, "loading the snapshot cache: %s", err.msg);
            rc = -1;
        }
    } else {
        for (size_t i = 0; i < n; i++)
            apply_change(st->cache, &p[i]);
    }
    drop_pending(p, n);
    free(p);
    return rc;
}

/* The controller's learned run times: decoded again when its ConfigMap changed. True when they
 * changed (every job is then evaluated again). */
static bool apply_learned(ext_state *st, const kube_obj_list *cms)
{
    const kube_configmap *cm = cms->n > 0 ? (const kube_configmap *)cms->items[0] : NULL;
    const char *rv =
        cm != NULL && cm->meta.resource_version != NULL ? cm->meta.resource_version : "";
    if (strcmp(rv, st->learned_rv) == 0)
        return false;
    snprintf(st->learned_rv, sizeof st->learned_rv, "%s", rv);
    const char *text = "";
    for (size_t i = 0; cm != NULL && i < cm->n_data; i++)
        if (strcmp(cm->data[i].key, RUNTIMES_KEY) == 0)
            text = cm->data[i].value;
    size_t skipped = 0;
    ds_err err = {{0}};
    if (ds_rt_history_decode(&st->learned, text, strlen(text), &skipped, &err) != 0) {
        KLOG_WARN(COMPONENT, "learned run times: %s", err.msg);
        return false;
    }
    KLOG_INFO(COMPONENT, "learned run times: %zu task(s)%s", st->learned.n,
              skipped > 0 ? " (malformed lines skipped)" : "");
    return true;
}

static void build_once(ext_state *st, bool refresh)
{
    kube_obj_list l[INF_N];
    memset(l, 0, sizeof l);
    if (!list_one(st, INF_NODES, l) || !list_one(st, INF_NAMESPACES, l) ||
        !list_one(st, INF_POLICIES, l) || !list_one(st, INF_RUNTIMES, l)) {
        count(st->m_builds, "error", NULL);
        free_lists(l);
        return;
    }
    if (apply_learned(st, &l[INF_RUNTIMES]))
        refresh = true;
    if (update_cache(st, refresh, l) != 0) {
        count(st->m_builds, "error", NULL);
        free_lists(l);
        return;
    }
    for (int i = 0; i < INF_N; i++)
        if (st->inf[i] != NULL)
            set_gauge(st->m_inf_healthy, inf_names[i],
                      kube_informer_healthy(st->inf[i], 60.0) ? 1.0 : 0.0);
    apply_policy(st, &l[INF_POLICIES]);
    apply_gpu_names(st);
    ext_build_input in = {
        .nodes = (const kube_node *const *)l[INF_NODES].items,
        .n_nodes = l[INF_NODES].n,
        .namespaces = (const kube_namespace *const *)l[INF_NAMESPACES].items,
        .n_namespaces = l[INF_NAMESPACES].n,
        .policy = &st->policy.policy,
        .policy_generation = st->policy.generation,
        .policy_source = st->policy.source,
        .learned = &st->learned,
        .now = rt_wall_now(),
    };
    ext_snapshot *s = NULL;
    ds_err err;
    uint64_t built = ext_snapcache_units_built(st->cache);
    int rc = ext_snapcache_build(st->cache, &in, &s, &err);
    free_lists(l);
    if (st->m_units != NULL)
        metrics_add(st->m_units, NULL, (double)(ext_snapcache_units_built(st->cache) - built));
    if (rc != 0) {
        KLOG_ERROR(COMPONENT, "building a snapshot: %s; keeping the previous one", err.msg);
        count(st->m_builds, "error", NULL);
        pthread_mutex_lock(&st->mu);
        st->reset = true; /* start from the lists next time */
        pthread_mutex_unlock(&st->mu);
        return;
    }
    set_gauge(st->m_objects, inf_names[INF_PODS], (double)s->n_pods);
    size_t valid = 0;
    for (size_t j = 0; j < s->jobs.n_jobs; j++)
        valid += s->jobs.jobs[j].valid;
    set_gauge(st->m_jobs, "valid", (double)valid);
    set_gauge(st->m_jobs, "invalid", (double)(s->jobs.n_jobs - valid));
    if (st->m_dsp_tasks != NULL)
        metrics_set(st->m_dsp_tasks, NULL, (double)s->n_dsp_tasks);
    if (st->m_build != NULL)
        metrics_observe(st->m_build, NULL, s->build_s);
    if (st->m_built_at != NULL)
        metrics_set(st->m_built_at, NULL, s->now);
    count(st->m_builds, "ok", NULL);

    pthread_mutex_lock(&st->mu);
    s->seq = ++st->seq;
    const ext_snapshot *old = st->current;
    bool first = old == NULL;
    st->current = s;
    pthread_mutex_unlock(&st->mu);
    ext_snapshot_unref(old);
    if (first)
        KLOG_INFO(COMPONENT,
                  "caches synced: %zu nodes, %zu pods, %zu jobs (%zu valid); ready to serve",
                  s->n_nodes, s->n_pods, s->jobs.n_jobs, valid);
    else
        KLOG_DEBUG(COMPONENT, "snapshot %llu: %zu nodes, %zu pods, %zu jobs in %.1f ms",
                   (unsigned long long)s->seq, s->n_nodes, s->n_pods, s->jobs.n_jobs,
                   s->build_s * 1e3);
}

static void *builder_loop(void *arg)
{
    ext_state *st = arg;
    double last_build = -INFINITY;
    pthread_mutex_lock(&st->mu);
    while (!st->stop) {
        double now = mono_now();
        double due;
        if (st->dirty) {
            due = fmin(st->last_dirty + st->debounce_s, st->first_dirty + st->max_delay_s);
        } else {
            due = last_build + st->refresh_s;
        }
        if (now < due) {
            rt_cond_wait_s(&st->cv, &st->mu, due - now);
            continue;
        }
        bool refresh = !st->dirty;
        st->dirty = false;
        pthread_mutex_unlock(&st->mu);
        if (all_synced(st))
            build_once(st, refresh);
        last_build = mono_now();
        pthread_mutex_lock(&st->mu);
    }
    pthread_mutex_unlock(&st->mu);
    return NULL;
}

/* ---- lifecycle ---- */

static int new_informer(ext_state *st, kube_kind kind, const char *ns, const char *selector,
                        kube_informer **out, ds_err *err)
{
    kube_informer_opts o;
    memset(&o, 0, sizeof o);
    o.kind = kind;
    o.namespace = ns;
    o.label_selector = selector;
    /* The active policy's gpuResourceNames (the documented default until a policy is read; a
     * reloaded list is applied by apply_gpu_names). The informer copies them. */
    const char *gpu[DS_POLICY_MAX_LIST];
    o.decode.gpu_names = gpu;
    o.decode.n_gpu_names = ds_name_list_ptrs(&st->policy.policy.gpu_resource_names, gpu);
    o.cb = (kube_informer_callbacks){.on_add = cb_add,
                                     .on_update = cb_update,
                                     .on_delete = cb_add,
                                     .on_synced = cb_synced,
                                     .user = st};
    /* The objects the snapshot cache groups: their changes are queued for it. */
    if (kind == KUBE_KIND_POD)
        o.cb = (kube_informer_callbacks){pods_add, pods_update, pods_delete, cb_synced, st};
    else if (kind == KUBE_KIND_WORKFLOW)
        o.cb = (kube_informer_callbacks){wfs_add, wfs_update, wfs_delete, cb_synced, st};
    else if (kind == KUBE_KIND_CONFIGMAP && selector != NULL &&
             strcmp(selector, DS_SELECTOR_JOBGRAPH) == 0)
        o.cb = (kube_informer_callbacks){graphs_add, graphs_update, graphs_delete, cb_synced, st};
    return kube_informer_new(st->client, &o, out, err);
}

int ext_state_start(kube_client *client, const ext_state_opts *opts, ext_state **out, ds_err *err)
{
    *out = NULL;
    ext_state *st = calloc(1, sizeof *st);
    if (st == NULL)
        return ds_err_set(err, "extender state: out of memory");
    st->client = client;
    const char *ns = opts->policy_namespace;
    if (ns == NULL || ns[0] == '\0')
        ns = kube_client_config(client)->namespace;
    st->policy_namespace = kutil_strdup(ns);
    st->policy_name = kutil_strdup(opts->policy_name != NULL ? opts->policy_name : "default");
    st->component = kutil_strdup(opts->component != NULL ? opts->component : "dagsched-extender");
    st->debounce_s = opts->debounce_s > 0 ? opts->debounce_s : 0.05;
    st->max_delay_s = opts->max_delay_s > 0 ? opts->max_delay_s : 0.1;
    st->refresh_s = opts->refresh_s > 0 ? opts->refresh_s : 5.0;
    kube_policy_state_init(&st->policy);
    pthread_mutex_init(&st->mu, NULL);
    int cv_rc = rt_cond_init(&st->cv);
    pthread_mutex_init(&st->ev_mu, NULL);
    pthread_mutex_init(&st->api_mu, NULL);
    int api_cv_rc = rt_cond_init(&st->api_cv);
    pthread_cond_init(&st->ev_cv, NULL);
    if (cv_rc != 0 || api_cv_rc != 0 || st->policy_namespace == NULL || st->policy_name == NULL ||
        st->component == NULL) {
        ext_state_free(st);
        return ds_err_set(err, "extender state: out of memory");
    }
    st->reset = true; /* the cache is loaded from the lists at the first build */
    if (ds_rt_history_init(&st->learned, DS_RT_MAX_KEYS, err) != 0) {
        ext_state_free(st);
        return -1;
    }
    st->cache = ext_snapcache_new();
    if (st->cache == NULL) {
        ext_state_free(st);
        return ds_err_set(err, "extender state: out of memory");
    }
    register_metrics(st, opts->metrics);
    if (st->m_policy_gen != NULL)
        metrics_set(st->m_policy_gen, NULL, 1);

    if (new_informer(st, KUBE_KIND_POD, NULL, NULL, &st->inf[INF_PODS], err) ||
        new_informer(st, KUBE_KIND_NODE, NULL, NULL, &st->inf[INF_NODES], err) ||
        new_informer(st, KUBE_KIND_CONFIGMAP, NULL, DS_SELECTOR_JOBGRAPH, &st->inf[INF_GRAPHS],
                     err) ||
        new_informer(st, KUBE_KIND_CONFIGMAP, st->policy_namespace, KUBE_POLICY_SELECTOR,
                     &st->inf[INF_POLICIES], err) ||
        new_informer(st, KUBE_KIND_CONFIGMAP, st->policy_namespace, DS_SELECTOR_RUNTIME_HISTORY,
                     &st->inf[INF_RUNTIMES], err) ||
        /* Namespace labels for the preempt verb's namespaceSelector: always watched, since a
         * reloaded policy may set the selector at any time (name and labels only). */
        new_informer(st, KUBE_KIND_NAMESPACE, NULL, NULL, &st->inf[INF_NAMESPACES], err)) {
        ext_state_free(st);
        return -1;
    }
    /* Argo Workflows, where they are served (asked once, at start). */
    bool wf_served = false;
    ds_err wf_err = {{0}};
    if (kube_argo_workflows_served_wait(st->client, 30.0, &wf_served, &wf_err) != 0)
        KLOG_WARN(COMPONENT,
                  "cannot tell whether Argo Workflows are installed (%s): not watching Workflows",
                  wf_err.msg);
    else
        KLOG_INFO(COMPONENT, "%s",
                  wf_served ? "Argo Workflows are installed: watching Workflows"
                            : "Argo Workflows are not installed: not watching Workflows");
    if (wf_served &&
        new_informer(st, KUBE_KIND_WORKFLOW, NULL, NULL, &st->inf[INF_WORKFLOWS], err) != 0) {
        ext_state_free(st);
        return -1;
    }
    if (pthread_create(&st->ev_thread, NULL, event_loop, st) != 0) {
        ext_state_free(st);
        return ds_err_set(err, "extender state: cannot start the event thread");
    }
    st->ev_started = true;
    if (pthread_create(&st->builder, NULL, builder_loop, st) != 0) {
        ext_state_free(st);
        return ds_err_set(err, "extender state: cannot start the snapshot builder");
    }
    st->builder_started = true;
    for (int i = 0; i < INF_N; i++) {
        if (st->inf[i] != NULL && kube_informer_start(st->inf[i], err) != 0) {
            ds_err_prefix(err, "%s informer", inf_names[i]);
            ext_state_free(st);
            return -1;
        }
    }
    *out = st;
    return 0;
}

void ext_state_stop(ext_state *st)
{
    if (st == NULL)
        return;
    for (int i = 0; i < INF_N; i++)
        if (st->inf[i] != NULL)
            kube_informer_stop(st->inf[i]);
    pthread_mutex_lock(&st->mu);
    st->stop = true;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    pthread_mutex_lock(&st->ev_mu);
    pthread_cond_broadcast(&st->ev_cv);
    pthread_mutex_unlock(&st->ev_mu);
    if (st->builder_started) {
        pthread_join(st->builder, NULL);
        st->builder_started = false;
    }
    if (st->ev_started) {
        pthread_join(st->ev_thread, NULL);
        st->ev_started = false;
    }
}

void ext_state_free(ext_state *st)
{
    if (st == NULL)
        return;
    ext_state_stop(st);
    for (int i = 0; i < INF_N; i++)
        kube_informer_free(st->inf[i]);
    ext_snapshot_unref(st->current);
    ext_snapcache_free(st->cache);
    drop_pending(st->pending, st->n_pending);
    free(st->pending);
    pthread_mutex_destroy(&st->mu);
    pthread_cond_destroy(&st->cv);
    pthread_mutex_destroy(&st->ev_mu);
    pthread_mutex_destroy(&st->api_mu);
    pthread_cond_destroy(&st->api_cv);
    pthread_cond_destroy(&st->ev_cv);
    free(st->policy_namespace);
    free(st->policy_name);
    free(st->component);
    ds_rt_history_free(&st->learned);
    free(st);
}

const ext_snapshot *ext_state_acquire(ext_state *st)
{
    pthread_mutex_lock(&st->mu);
    const ext_snapshot *s = ext_snapshot_ref(st->current);
    pthread_mutex_unlock(&st->mu);
    return s;
}

/* Do the pods of `l` show every named task Succeeded? *running: some task without a Succeeded pod
 * has a pod bound to a node and still running (it may have just finished). */
static bool cached_tasks_done(const kube_obj_list *l, const char *const *tasks, size_t n,
                              bool *running)
{
    bool all = true;
    *running = false;
    for (size_t t = 0; t < n; t++) {
        bool done = false, run = false;
        for (size_t i = 0; i < l->n && !done; i++) {
            const kube_pod *p = (const kube_pod *)l->items[i];
            if (p->task_name == NULL || strcmp(p->task_name, tasks[t]) != 0)
                continue;
            done = p->phase == KUBE_POD_SUCCEEDED;
            run = run || ext_pod_occupies_node(p);
        }
        if (!done) {
            all = false;
            *running = *running || run;
        }
    }
    return all;
}

/* Task names with a Succeeded pod, per a consistent read of the job's pods from the API server;
 * remembered for API_CHECK_TTL_S so that many waiting pods of one job cost one request. */
#define API_CHECK_TTL_S   0.25
#define API_CHECK_TIMEOUT 2.0

/* kube_list_pods_once's callback: the tasks with a Succeeded pod. */
static int note_succeeded(void *user, const kube_pod *p)
{
    api_check *r = user;
    r->n_items++;
    if (p->phase == KUBE_POD_SUCCEEDED && p->task_name != NULL && r->n_done < API_CHECK_TASKS)
        snprintf(r->done[r->n_done++], sizeof r->done[0], "%s", p->task_name);
    return 0;
}

/* Read the job's pods from the API server into r (no lock held): the dagsched job label first,
 * else the Argo workflow label. r->at stays 0 when a read failed. */
static void api_read(ext_state *st, const char *ns, const char *job, const char *key, api_check *r)
{
    const char *labels[] = {DS_LABEL_JOB, DS_LABEL_ARGO_WORKFLOW};
    kube_request_opts ro = {.no_retry = true, .timeout_s = API_CHECK_TIMEOUT};
    for (int li = 0; li < 2 && r->n_items == 0; li++) {
        char sel[512];
        snprintf(sel, sizeof sel, "%s=%s", labels[li], job);
        ds_err err = {{0}};
        if (kube_list_pods_once(st->client, &ro, ns, sel, 5000, note_succeeded, r, &err) != 0) {
            KLOG_WARN(COMPONENT, "checking upstream tasks of job %s: %s", key, err.msg);
            r->at = 0;
            return;
        }
        r->at = mono_now();
    }
}

/* Whether the read c succeeded and found a Succeeded pod for each of the n tasks. */
static bool all_done(const api_check *c, const char *const *tasks, size_t n)
{
    if (!(c->at > 0))
        return false;
    for (size_t t = 0; t < n; t++) {
        bool found = false;
        for (size_t k = 0; k < c->n_done && !found; k++)
            found = strcmp(c->done[k], tasks[t]) == 0;
        if (!found)
            return false;
    }
    return true;
}

static bool api_tasks_done(ext_state *st, const char *ns, const char *job, const char *const *tasks,
                           size_t n)
{
    char key[512];
    if (kube_pod_job_index_key(ns, job, key, sizeof key) != 0 || !kube_valid_name(ns))
        return false;
    pthread_mutex_lock(&st->api_mu);
    api_check *hit = NULL;
    for (;;) {
        double now = mono_now();
        api_check *pending = NULL;
        for (size_t i = 0; i < API_CHECK_SLOTS; i++) {
            api_check *c = &st->api_checks[i];
            if (strcmp(c->key, key) != 0)
                continue;
            if (c->pending)
                pending = c;
            else if (c->at > 0 && now - c->at < API_CHECK_TTL_S)
                hit = c;
        }
        if (hit != NULL || pending == NULL)
            break;
        /* Another request reads this job's pods: its answer serves this one too. */
        uint64_t gen = pending->gen;
        while (pending->pending && pending->gen == gen)
            if (rt_cond_wait_s(&st->api_cv, &st->api_mu, API_CHECK_TIMEOUT + 0.5) != 0)
                break;
        if (pending->pending && pending->gen == gen)
            break; /* still reading: read on our own */
    }
    if (hit == NULL) {
        /* Claim a slot and read without the lock: other jobs' checks and cache hits go on. */
        api_check *slot = &st->api_checks[st->api_next++ % API_CHECK_SLOTS];
        uint64_t gen = ++st->api_gen;
        memset(slot, 0, sizeof *slot);
        snprintf(slot->key, sizeof slot->key, "%s", key);
        slot->pending = true;
        slot->gen = gen;
        pthread_mutex_unlock(&st->api_mu);
        api_check *r = calloc(1, sizeof *r);
        if (r != NULL)
            api_read(st, ns, job, key, r);
        pthread_mutex_lock(&st->api_mu);
        if (slot->gen == gen) {
            if (r != NULL) {
                memcpy(slot->done, r->done, sizeof r->done);
                slot->n_done = r->n_done;
                slot->n_items = r->n_items;
                slot->at = r->at;
            }
            slot->pending = false;
        }
        pthread_cond_broadcast(&st->api_cv);
        bool all = r != NULL && all_done(r, tasks, n);
        pthread_mutex_unlock(&st->api_mu);
        free(r);
        return all;
    }
    bool all = all_done(hit, tasks, n);
    pthread_mutex_unlock(&st->api_mu);
    return all;
}

bool ext_state_tasks_succeeded(void *user, const char *ns, const char *job,
                               const char *const *tasks, size_t n)
{
    ext_state *st = user;
    char key[512];
    if (st == NULL || n == 0 || kube_pod_job_index_key(ns, job, key, sizeof key) != 0)
        return false;
    kube_obj_list l;
    if (kube_informer_by_index(st->inf[INF_PODS], KUBE_INDEX_POD_JOB, key, &l) != 0)
        return false;
    bool running;
    bool all = cached_tasks_done(&l, tasks, n, &running);
    kube_obj_list_free(&l);
    if (all)
        return true;
    /* kube-scheduler may have seen an upstream pod finish a millisecond before our own watch
     * did; only a pod still running in our cache can be in that state. Ask the API server. */
    return running && api_tasks_done(st, ns, job, tasks, n);
}

bool ext_state_ready(ext_state *st)
{
    pthread_mutex_lock(&st->mu);
    bool ready = st->current != NULL;
    pthread_mutex_unlock(&st->mu);
    return ready;
}

bool ext_state_healthy(ext_state *st, double max_age_s, char *why, size_t why_size)
{
    if (why_size > 0)
        why[0] = '\0';
    if (!ext_state_ready(st)) {
        snprintf(why, why_size, "caches not synced yet");
        return false;
    }
    for (int i = 0; i < INF_N; i++)
        if (st->inf[i] != NULL && !kube_informer_healthy(st->inf[i], max_age_s)) {
            snprintf(why, why_size, "the %s informer lost contact with the API server",
                     inf_names[i]);
            return false;
        }
    return true;
}
