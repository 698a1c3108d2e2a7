/* snapshot.c: building immutable cluster snapshots for the extender's request handlers from
 * cached objects: node usage and speed, namespace labels, the job model, P_bar (see state.h).
 * Pure: no I/O, no clock; the caller passes the time. */
#include "state.h"

#include "snapcache.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evictor.h"
#include "gang.h"
#include "model_input.h"
#include "node_speed.h"
#include "room.h"
#include "upcoming.h"
#include "victim.h"
#include "clock.h"

bool ext_pod_occupies_node(const kube_pod *p)
{
    return p->node_name != NULL && p->node_name[0] != '\0' && p->phase != KUBE_POD_SUCCEEDED &&
           p->phase != KUBE_POD_FAILED;
}

static const char *meta_label(const void *ctx, const char *key)
{
    return kube_meta_label(ctx, key);
}

bool ext_pod_evictable(const kube_pod *p, const kube_namespace *ns, const ds_policy *pol)
{
    ds_evict_candidate c = {.ns = p->meta.ns,
                            .priority_class = p->priority_class,
                            .labels = {meta_label, &p->meta},
                            .ns_known = ns != NULL,
                            .ns_labels = {meta_label, ns != NULL ? &ns->meta : NULL}};
    return ds_evictor_filter(pol, &c) == DS_EVICT_OK;
}

const kube_namespace *ext_snapshot_namespace(const ext_snapshot *s, const char *name)
{
    size_t idx;
    if (name == NULL || s->n_namespaces == 0 ||
        ds_strmap_get(&s->namespace_index, name, strlen(name), &idx) != 0)
        return NULL;
    return s->namespaces[idx];
}

const ext_snapshot *ext_snapshot_ref(const ext_snapshot *s)
{
    if (s != NULL)
        atomic_fetch_add(&((ext_snapshot *)s)->refs, 1);
    return s;
}

void ext_snapshot_discard(ext_snapshot *s)
{
    for (size_t i = 0; i < s->n_nodes; i++)
        kube_obj_unref(&s->node_objs[i]->meta);
    for (size_t i = 0; i < s->n_pods && s->units == NULL; i++)
        kube_obj_unref(&s->pods[i]->meta);
    for (size_t i = 0; i < s->n_units; i++)
        ext_unit_unref(s->units[i]);
    free(s->units);
    for (size_t i = 0; i < s->n_graphs; i++)
        kube_obj_unref(&s->graph_objs[i]->meta);
    for (size_t i = 0; i < s->n_wfs; i++)
        kube_obj_unref(&s->wf_objs[i]->meta);
    free(s->wf_objs);
    for (size_t i = 0; i < s->n_namespaces; i++)
        kube_obj_unref(&s->namespaces[i]->meta);
    free(s->node_objs);
    free(s->nodes);
    free(s->node_names);
    free(s->pods);
    free(s->pod_node);
    free(s->graph_objs);
    free(s->namespaces);
    ds_strmap_free(&s->node_index);
    ds_strmap_free(&s->namespace_index);
    ds_jobset_free(&s->jobs);
    free(s->job_order);
    free(s->job_sum);
    free(s->holds);
    free(s);
}

void ext_snapshot_unref(const ext_snapshot *s)
{
    if (s != NULL && atomic_fetch_sub(&((ext_snapshot *)s)->refs, 1) == 1)
        ext_snapshot_discard((ext_snapshot *)s);
}

const ext_node *ext_snapshot_node(const ext_snapshot *s, const char *name)
{
    size_t idx;
    if (ds_strmap_get(&s->node_index, name, strlen(name), &idx) != 0)
        return NULL;
    return &s->nodes[idx];
}

static int build_nodes(ext_snapshot *s, const ext_build_input *in, ds_err *err)
{
    s->node_objs = calloc(in->n_nodes ? in->n_nodes : 1, sizeof *s->node_objs);
    s->nodes = calloc(in->n_nodes ? in->n_nodes : 1, sizeof *s->nodes);
    if (s->node_objs == NULL || s->nodes == NULL ||
        ds_strmap_init(&s->node_index, in->n_nodes ? in->n_nodes : 1) != 0)
        return ds_err_set(err, "snapshot: out of memory (%zu nodes)", in->n_nodes);
    double max_cpu = 0, max_mem = 0;
    size_t names_len = 0;
    for (size_t i = 0; i < in->n_nodes; i++) {
        max_cpu = fmax(max_cpu, (double)in->nodes[i]->allocatable.v[DS_RES_CPU]);
        max_mem = fmax(max_mem, (double)in->nodes[i]->allocatable.v[DS_RES_MEMORY]);
        if (in->nodes[i]->meta.name != NULL)
            names_len += strlen(in->nodes[i]->meta.name) + 1;
    }
    /* Node names packed together: every request looks up thousands of them, and keys spread
     * over the node objects would cost a cache miss each. */
    s->node_names = malloc(names_len ? names_len : 1);
    if (s->node_names == NULL)
        return ds_err_set(err, "snapshot: out of memory (%zu nodes)", in->n_nodes);
    size_t at = 0;
    for (size_t i = 0; i < in->n_nodes; i++) {
        const kube_node *n = in->nodes[i];
        if (n->meta.name == NULL)
            continue;
        size_t idx = s->n_nodes, len = strlen(n->meta.name);
        char *name = s->node_names + at;
        memcpy(name, n->meta.name, len + 1);
        int rc = ds_strmap_put(&s->node_index, name, len, idx, NULL);
        if (rc < 0)
            return ds_err_set(err, "snapshot: node index full (%zu nodes)", in->n_nodes);
        if (rc == 1)
            continue; /* duplicate name: the first wins */
        at += len + 1;
        kube_obj_ref(&n->meta);
        s->node_objs[idx] = n;
        ext_node *en = &s->nodes[idx];
        en->name = name;
        en->view.allocatable = n->allocatable;
        en->view.speed = ds_node_speed_label(kube_meta_label(&n->meta, in->policy->speed_label),
                                             (double)n->allocatable.v[DS_RES_CPU],
                                             (double)n->allocatable.v[DS_RES_MEMORY], max_cpu,
                                             max_mem, in->policy);
        s->max_speed = fmax(s->max_speed, en->view.speed);
        s->n_nodes++;
    }
    return 0;
}

/* The namespaces by name (keys borrowed from the referenced objects); a duplicate name keeps the
 * first. */
static int build_namespaces(ext_snapshot *s, const ext_build_input *in, ds_err *err)
{
    size_t n = in->namespaces != NULL ? in->n_namespaces : 0;
    s->namespaces = calloc(n ? n : 1, sizeof *s->namespaces);
    if (s->namespaces == NULL || ds_strmap_init(&s->namespace_index, n ? n : 1) != 0)
        return ds_err_set(err, "snapshot: out of memory (%zu namespaces)", n);
    for (size_t i = 0; i < n; i++) {
        const kube_namespace *ns = in->namespaces[i];
        if (ns == NULL || ns->meta.name == NULL)
            continue;
        size_t idx = s->n_namespaces;
        int rc =
            ds_strmap_put(&s->namespace_index, ns->meta.name, strlen(ns->meta.name), idx, NULL);
        if (rc < 0)
            return ds_err_set(err, "snapshot: namespace index full (%zu namespaces)", n);
        if (rc == 1)
            continue;
        kube_obj_ref(&ns->meta);
        s->namespaces[idx] = ns;
        s->n_namespaces++;
    }
    return 0;
}

size_t ext_snapshot_pod_node(const ext_snapshot *s, const kube_pod *p)
{
    size_t idx;
    if (!ext_pod_occupies_node(p) ||
        ds_strmap_get(&s->node_index, p->node_name, strlen(p->node_name), &idx) != 0)
        return DS_NONE;
    return idx;
}

double ext_snapshot_place_pod(ext_snapshot *s, size_t i)
{
    const kube_pod *p = s->pods[i];
    size_t idx = ext_snapshot_pod_node(s, p);
    s->pod_node[i] = idx;
    if (idx == DS_NONE)
        return 1.0;
    ds_res_add(&s->nodes[idx].view.requested, &p->requests);
    s->nodes[idx].n_pods++;
    return s->nodes[idx].view.speed;
}

static int build_pods(ext_snapshot *s, const ext_build_input *in, ds_pod_obs *obs)
{
    for (size_t i = 0; i < in->n_pods; i++) {
        const kube_pod *p = in->pods[i];
        kube_obj_ref(&p->meta);
        s->pods[i] = p;
        s->n_pods = i + 1;
        s->pod_node[i] = DS_NONE;
        double speed = ext_snapshot_place_pod(s, i);
        kube_pod_obs(p, speed, &obs[i]);
    }
    return 0;
}

/* P_bar over every waiting and running task of the valid jobs (ds_pbar_acc, the population the
 * controller and the simulator use too). */
static void compute_pbar(ext_snapshot *s)
{
    ds_pbar_acc acc;
    ds_pbar_acc_init(&acc);
    for (size_t j = 0; j < s->jobs.n_jobs; j++) {
        const ds_job *job = &s->jobs.jobs[j];
        if (job->valid)
            ds_pbar_acc_add_job(&acc, job->status, job->eval, job->dag.n);
    }
    s->n_dsp_tasks = acc.n;
    s->pbar_half = ds_pbar_acc_half(&acc);
}

int ext_snapshot_begin(const ext_build_input *in, ext_snapshot **out, ds_err *err)
{
    *out = NULL;
    ext_snapshot *s = calloc(1, sizeof *s);
    if (s == NULL)
        return ds_err_set(err, "snapshot: out of memory");
    atomic_init(&s->refs, 1);
    s->now = in->now;
    s->policy = *in->policy;
    s->policy_generation = in->policy_generation;
    snprintf(s->policy_source, sizeof s->policy_source, "%s",
             in->policy_source != NULL ? in->policy_source : "built-in defaults");
    if (build_nodes(s, in, err) != 0 || build_namespaces(s, in, err) != 0) {
        ext_snapshot_discard(s);
        return -1;
    }
    *out = s;
    return 0;
}

/* The room upcoming task up[i]'s upstream pod `from` freed that is left for it: from's request,
 * less the requests of the pods of its job's tasks downstream of from's task that are bound to
 * from's node and not finished (they took it), less what the holds of up[0..i-1] with the same
 * upstream pod took. `taken` holds, per upcoming task, what its hold took. */
static ds_res freed_room_left(const ext_snapshot *s, const ds_upcoming *up, size_t i,
                              const ds_res *taken)
{
    const ds_job *j = &s->jobs.jobs[up[i].job];
    const kube_pod *from = s->pods[up[i].from_pod];
    ds_res left = from->requests;
    size_t k = DS_NONE; /* from's task */
    for (size_t t = 0; t < j->dag.n && k == DS_NONE; t++)
        if (j->task_pod[t] == up[i].from_pod)
            k = t;
    for (size_t t = 0; t < j->dag.n && k != DS_NONE; t++) {
        const ds_dag_task *dt = &j->dag.tasks[t];
        size_t pi = j->task_pod[t];
        bool below = false;
        for (size_t u = 0; u < dt->n_up && !below; u++)
            below = dt->up[u] == k;
        if (!below || pi == DS_NONE || pi >= s->n_pods)
            continue;
        const kube_pod *p = s->pods[pi];
        if (p->node_name != NULL && strcmp(p->node_name, from->node_name) == 0 &&
            (p->phase == KUBE_POD_PENDING || p->phase == KUBE_POD_RUNNING))
            ds_res_sub(&left, &p->requests);
    }
    for (size_t e = 0; e < i; e++)
        if (up[e].job == up[i].job && up[e].from_pod == up[i].from_pod)
            ds_res_sub(&left, &taken[e]);
    return left;
}

/* The holds of room: for preemptors, the pending, unbound pods with dagsched.io/reserved-node
 * naming a known node (a malformed value holds nothing); for upcoming tasks (lib/upcoming.h: no
 * pod yet, or an unbound one), the node of an upstream task's pod, for DS_UPCOMING_HOLD_S after
 * the task became ready (none when that pod is gone). The upcoming tasks of an upstream pod
 * share the room it freed: each, in task order, holds what is left of it up to its own request
 * (freed_room_left), and one that finds none left holds nothing; so a fan-out of three tasks
 * behind a task that freed room for one holds that room, not three times it. */
static int build_holds(ext_snapshot *s, ds_err *err)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n_pods; i++)
        if (kube_meta_annotation(&s->pods[i]->meta, DS_ANN_RESERVED_NODE) != NULL)
            n++;
    size_t n_up = ds_jobset_upcoming(&s->jobs, NULL, s->now, NULL, 0);
    if (n + n_up == 0)
        return 0;
    s->holds = calloc(n + n_up, sizeof *s->holds);
    ds_upcoming *up = calloc(n_up ? n_up : 1, sizeof *up);
    ds_res *taken = calloc(n_up ? n_up : 1, sizeof *taken);
    if (s->holds == NULL || up == NULL || taken == NULL) {
        free(up);
        free(taken);
        return ds_err_set(err, "snapshot: out of memory (%zu room holds)", n + n_up);
    }
    for (size_t i = 0; i < s->n_pods; i++) {
        const kube_pod *p = s->pods[i];
        const char *v = kube_meta_annotation(&p->meta, DS_ANN_RESERVED_NODE);
        if (v == NULL || p->node_name != NULL || p->meta.deleting || p->phase != KUBE_POD_PENDING)
            continue;
        char node[256];
        double until;
        size_t idx;
        ds_err e = {{0}};
        if (ds_room_hold_parse(v, node, sizeof node, &until, &e) != 0 ||
            ds_strmap_get(&s->node_index, node, strlen(node), &idx) != 0)
            continue;
        s->holds[s->n_holds++] =
            (ds_room_hold){.ns = p->meta.ns,
                           .uid = p->meta.uid,
                           .name = p->meta.name,
                           .node = idx,
                           .request = p->requests,
                           .until = until,
                           .gang = kube_meta_label(&p->meta, DS_LABEL_GANG) != NULL};
    }
    n_up = ds_jobset_upcoming(&s->jobs, NULL, s->now, up, n_up);
    for (size_t i = 0; i < n_up; i++) {
        const ds_job *j = &s->jobs.jobs[up[i].job];
        const kube_pod *from = up[i].from_pod < s->n_pods ? s->pods[up[i].from_pod] : NULL;
        size_t idx;
        if (from == NULL || from->node_name == NULL ||
            ds_strmap_get(&s->node_index, from->node_name, strlen(from->node_name), &idx) != 0)
            continue;
        const kube_pod *own = up[i].pod < s->n_pods ? s->pods[up[i].pod] : NULL;
        if (own != NULL && own->node_name != NULL)
            continue; /* bound already */
        ds_res request = own != NULL ? own->requests : up[i].request;
        ds_res left = freed_room_left(s, up, i, taken);
        taken[i] = ds_upcoming_share(&left, &request);
        if (ds_res_is_zero(&taken[i]))
            continue; /* the room its upstream task freed went to its siblings */
        s->holds[s->n_holds++] = (ds_room_hold){.ns = j->ns,
                                                .uid = own != NULL ? own->meta.uid : NULL,
                                                .job = j->key,
                                                .name = j->dag.tasks[up[i].task].name,
                                                .node = idx,
                                                .request = taken[i],
                                                .until = up[i].ready_since + DS_UPCOMING_HOLD_S};
    }
    free(up);
    free(taken);
    return 0;
}

int ext_snapshot_finish(ext_snapshot *s, const ext_build_input *in, ds_err *err)
{
    compute_pbar(s);
    if (build_holds(s, err) != 0)
        return -1;
    s->job_order = calloc(s->jobs.n_jobs ? s->jobs.n_jobs : 1, sizeof *s->job_order);
    s->job_sum = calloc(s->jobs.n_jobs ? s->jobs.n_jobs : 1, sizeof *s->job_sum);
    if (s->job_order == NULL || s->job_sum == NULL)
        return ds_err_set(err, "snapshot: out of memory (%zu jobs)", s->jobs.n_jobs);
    return ds_jobset_job_figures(&s->jobs, &in->policy->order, in->now, s->job_order, s->job_sum,
                                 err);
}

int ext_snapshot_build(const ext_build_input *in, ext_snapshot **out, ds_err *err)
{
    *out = NULL;
    double t0 = rt_mono_now();
    ext_snapshot *s = NULL;
    if (ext_snapshot_begin(in, &s, err) != 0)
        return -1;
    ds_pod_obs *obs = NULL;
    ds_graph_obs *gobs = NULL;
    ds_wf_obs *wobs = NULL;
    s->pods = calloc(in->n_pods ? in->n_pods : 1, sizeof *s->pods);
    s->pod_node = calloc(in->n_pods ? in->n_pods : 1, sizeof *s->pod_node);
    s->graph_objs = calloc(in->n_graphs ? in->n_graphs : 1, sizeof *s->graph_objs);
    obs = calloc(in->n_pods ? in->n_pods : 1, sizeof *obs);
    gobs = calloc(in->n_graphs ? in->n_graphs : 1, sizeof *gobs);
    s->wf_objs = calloc(in->n_workflows ? in->n_workflows : 1, sizeof *s->wf_objs);
    wobs = calloc(in->n_workflows ? in->n_workflows : 1, sizeof *wobs);
    if (s->pods == NULL || s->pod_node == NULL || s->graph_objs == NULL || obs == NULL ||
        gobs == NULL || s->wf_objs == NULL || wobs == NULL) {
        ds_err_set(err, "snapshot: out of memory (%zu pods)", in->n_pods);
        goto fail;
    }
    build_pods(s, in, obs);
    for (size_t i = 0; i < in->n_graphs; i++) {
        const kube_configmap *cm = in->graphs[i];
        kube_obj_ref(&cm->meta);
        s->graph_objs[i] = cm;
        s->n_graphs = i + 1;
        kube_graph_obs(cm, &gobs[i]);
    }
    for (size_t i = 0; i < in->n_workflows; i++) {
        const kube_workflow *w = in->workflows[i];
        kube_obj_ref(&w->meta);
        s->wf_objs[i] = w;
        s->n_wfs = i + 1;
        kube_workflow_obs(w, &wobs[i]);
    }
    if (ds_jobs_build_learned(obs, in->n_pods, gobs, in->n_graphs, wobs, in->n_workflows, in->now,
                              &in->policy->priority, in->learned, &s->jobs, err) != 0) {
        ds_err_prefix(err, "job model");
        goto fail;
    }
    if (ext_snapshot_finish(s, in, err) != 0)
        goto fail;
    free(obs);
    free(gobs);
    free(wobs);
    s->build_s = rt_mono_now() - t0;
    *out = s;
    return 0;
fail:
    free(obs);
    free(gobs);
    free(wobs);
    ext_snapshot_discard(s);
    return -1;
}

/* The evaluation of the task a snapshot pod belongs to, or NULL outside a valid DAG job. */
static const ds_task_eval *pod_eval(const ext_snapshot *s, size_t i, size_t *job)
{
    const ds_pod_result *pr = &s->jobs.pods[i];
    if (pr->job == DS_NONE || pr->task == DS_NONE || pr->job >= s->jobs.n_jobs ||
        !s->jobs.jobs[pr->job].valid)
        return NULL;
    *job = pr->job;
    return &s->jobs.jobs[pr->job].eval[pr->task];
}

int ext_snapshot_room_wait(const ext_snapshot *s, size_t job, size_t task, const ds_res *request,
                           double *wait_s, double *saved_s, ds_err *err)
{
    *wait_s = NAN; /* not forecast */
    *saved_s = NAN;
    if (job >= s->jobs.n_jobs || task >= s->jobs.jobs[job].dag.n)
        return 0;
    ds_room_task *t = calloc(s->n_pods ? s->n_pods : 1, sizeof *t);
    ds_res *free_ = calloc(s->n_nodes ? s->n_nodes : 1, sizeof *free_);
    if (t == NULL || free_ == NULL) {
        free(t);
        free(free_);
        return ds_err_set(err, "room: out of memory (%zu pods)", s->n_pods);
    }
    for (size_t n = 0; n < s->n_nodes; n++) {
        free_[n] = s->nodes[n].view.allocatable;
        ds_res_sub(&free_[n], &s->nodes[n].view.requested);
    }
    ds_order_key mine, key;
    ds_order_key_from_figures(&s->policy.order, s->job_order[job], &s->jobs.jobs[job].eval[task],
                              &mine);
    ds_res ahead = {{0}}, ahead_gated = {{0}};
    size_t nt = 0;
    for (size_t i = 0; i < s->n_pods; i++) {
        size_t j = DS_NONE;
        const ds_task_eval *e = pod_eval(s, i, &j);
        const kube_pod *p = s->pods[i];
        if (e == NULL)
            continue;
        const ds_pod_result *pr = &s->jobs.pods[i];
        ds_task_state st = s->jobs.jobs[j].status[pr->task].state;
        if (s->pod_node[i] != DS_NONE && st == DS_TASK_RUNNING) {
            t[nt++] = (ds_room_task){s->pod_node[i], e->t_rem_s, p->requests};
        } else if (s->pod_node[i] == DS_NONE && st == DS_TASK_WAITING && pr->primary &&
                   !(j == job && pr->task == task)) {
            ds_order_key_from_figures(&s->policy.order, s->job_order[j], e, &key);
            if (ds_order_key_cmp(&key, &mine) < 0) {
                ds_res_add(&ahead, &p->requests);
                if (p->n_gates > 0)
                    ds_res_add(&ahead_gated, &p->requests);
            }
        }
    }
    ds_room_index ix;
    int rc = ds_room_index_build(&ix, t, nt, free_, s->n_nodes, err);
    if (rc == 0) {
        *wait_s = ds_room_preemptor_wait(&ix, t, NULL, free_, request, &ahead);
        *saved_s = ds_room_saved_wait(&ix, t, NULL, free_, request, &ahead, &ahead_gated);
        ds_room_index_free(&ix);
    }
    free(t);
    free(free_);
    return rc;
}
