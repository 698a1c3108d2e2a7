/* tracker.c: snapshot of the watched objects as the decision view and the job model (see
 * tracker.h). */
#include "tracker.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "dsp.h"
#include "joborder.h"
#include "model_input.h"
#include "node_speed.h"
#include "tenants.h"
#include "timefmt.h"
#include "victim.h"

typedef struct node_speed {
    const char *name;
    double speed;
    size_t idx;
} node_speed;

static int cmp_node_speed(const void *a, const void *b)
{
    return strcmp(((const node_speed *)a)->name, ((const node_speed *)b)->name);
}

static const node_speed *find_speed(const node_speed *ns, size_t n, const char *name)
{
    if (name == NULL || n == 0)
        return NULL;
    node_speed key = {.name = name};
    return bsearch(&key, ns, n, sizeof *ns, cmp_node_speed);
}

static double opt_time(double t)
{
    return t > 0.0 ? t : NAN;
}

static double ann_time(const kube_meta *m, const char *key)
{
    const char *v = kube_meta_annotation(m, key);
    double t;
    if (v == NULL || ds_timestamp_parse(v, &t, NULL) != 0)
        return NAN;
    return t;
}

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

static bool has_gate(const kube_pod *p, const char *gate)
{
    for (size_t i = 0; i < p->n_gates; i++)
        if (strcmp(p->gates[i], gate) == 0)
            return true;
    return false;
}

static ctl_pod_state pod_state(const kube_pod *p)
{
    if (p->phase == KUBE_POD_SUCCEEDED)
        return CTL_POD_SUCCEEDED;
    if (p->phase == KUBE_POD_FAILED)
        return CTL_POD_FAILED;
    if (p->node_name != NULL)
        return CTL_POD_BOUND;
    if (has_gate(p, DS_GATE_DEPENDENCIES))
        return CTL_POD_GATED;
    if (p->unschedulable)
        return CTL_POD_UNSCHEDULABLE;
    return CTL_POD_PENDING;
}

static bool is_dag_job(const kube_job *j)
{
    return ds_job_label_value(kube_meta_label(&j->meta, DS_LABEL_JOB),
                              kube_meta_label(&j->meta, DS_LABEL_ARGO_WORKFLOW), NULL) != NULL &&
           kube_meta_label(&j->meta, DS_LABEL_TASK) != NULL;
}

/* The job a batch Job names (its labels), or NULL. */
static const char *batch_job_key(const kube_job *j)
{
    return ds_job_label_value(kube_meta_label(&j->meta, DS_LABEL_JOB),
                              kube_meta_label(&j->meta, DS_LABEL_ARGO_WORKFLOW), NULL);
}

/* A batch Job that is a task stands for its pod when it has none: suspended or not started yet
 * (pending), or finished with its pods gone (succeeded or failed). */
static bool job_obs(const kube_job *j, ds_pod_obs *o)
{
    if (!is_dag_job(j))
        return false;
    kube_meta_obs(&j->meta, o);
    if (j->finished) {
        o->phase = j->succeeded > 0 ? DS_PHASE_SUCCEEDED : DS_PHASE_FAILED;
        return true;
    }
    if (j->suspend || j->active + j->succeeded + j->failed == 0) {
        o->phase = DS_PHASE_PENDING;
        return true;
    }
    return false;
}

static size_t count_kv(const kube_obj_list *pods, const kube_obj_list *nodes,
                       const kube_obj_list *namespaces)
{
    size_t n = 0;
    for (size_t i = 0; i < pods->n; i++) {
        const kube_pod *p = (const kube_pod *)pods->items[i];
        n += p->meta.n_labels + p->n_node_selector;
    }
    for (size_t i = 0; i < nodes->n; i++)
        n += nodes->items[i]->n_labels;
    for (size_t i = 0; i < namespaces->n; i++)
        n += namespaces->items[i]->n_labels;
    return n;
}

static int cmp_namespace(const void *a, const void *b)
{
    return strcmp(((const ctl_namespace *)a)->name, ((const ctl_namespace *)b)->name);
}

/* One ctl_namespace per listed Namespace, sorted by name, its labels in s->kv. */
static void build_namespaces(ctl_snapshot *s, size_t *kv_used)
{
    size_t n = 0;
    for (size_t i = 0; i < s->namespaces.n; i++) {
        const kube_meta *m = s->namespaces.items[i];
        if (m->name == NULL)
            continue;
        ctl_namespace *ns = &s->ns[n++];
        ns->name = m->name;
        ns->labels = &s->kv[*kv_used];
        for (size_t k = 0; k < m->n_labels; k++)
            s->kv[(*kv_used)++] = (ctl_kv){m->labels[k].key, or_empty(m->labels[k].value)};
        ns->n_labels = m->n_labels;
        ns->terminating = m->deleting;
    }
    s->n_ns = n;
    qsort(s->ns, n, sizeof *s->ns, cmp_namespace);
}

const ctl_namespace *ctl_snapshot_namespace(const ctl_snapshot *s, const char *name)
{
    if (name == NULL || s->n_ns == 0)
        return NULL;
    ctl_namespace key = {.name = name};
    return bsearch(&key, s->ns, s->n_ns, sizeof *s->ns, cmp_namespace);
}

static void take_list(kube_obj_list *dst, kube_obj_list *src)
{
    *dst = *src;
    src->items = NULL;
    src->n = 0;
}

static void fill_task(const ctl_snapshot *s, size_t obs, ctl_task_info *t, bool any_pod)
{
    t->job = DS_NO_TASK;
    t->task = DS_NO_TASK;
    t->evaluated = false;
    t->has_upstream = false;
    t->queue_pos = SIZE_MAX;
    t->order[0] = t->order[1] = NAN;
    t->job_slack_s = t->job_path_s = NAN;
    t->job_name = NULL;
    t->task_name = NULL;
    t->job_invalid = false;
    t->invalid_why = NULL;
    t->unlisted = false;
    t->deferred = false;
    if (obs == DS_NONE || obs >= s->js.n_pods)
        return;
    const ds_pod_result *r = &s->js.pods[obs];
    /* A pod of an invalid job that may depend on other tasks keeps its gate (lib's rule). */
    if (ds_jobset_pod_must_wait(&s->js, obs)) {
        t->job_invalid = true;
        t->invalid_why = r->error != NULL ? r->error : s->js.jobs[r->job].error;
        t->unlisted = r->unlisted;
    }
    if (r->job == DS_NONE || r->task == DS_NONE || !s->js.jobs[r->job].valid)
        return;
    if (!r->primary && !any_pod)
        return;
    const ds_job *j = &s->js.jobs[r->job];
    t->job = r->job;
    t->task = r->task;
    t->state = j->status[r->task].state;
    t->eval = j->eval[r->task];
    t->evaluated = true;
    t->has_upstream = j->dag.tasks[r->task].n_up > 0;
    t->queue_pos = s->queue_pos[s->pos_base[r->job] + r->task];
    t->order[0] = s->job_order[r->job][0];
    t->order[1] = s->job_order[r->job][1];
    t->job_slack_s = s->job_sum[r->job].slack_s;
    t->job_path_s = s->job_sum[r->job].remaining_path_s;
    t->job_steps = s->job_sum[r->job].remaining_steps;
    t->job_name = j->name;
    t->task_name = j->dag.tasks[r->task].name;
}

static void pdb_facts(const ctl_snapshot *s, const kube_pod *kp, ctl_pod *p)
{
    for (size_t i = 0; i < s->pdbs.n; i++) {
        const kube_pdb *b = (const kube_pdb *)s->pdbs.items[i];
        if (b->meta.ns == NULL || kp->meta.ns == NULL || strcmp(b->meta.ns, kp->meta.ns) != 0)
            continue;
        if (!kube_pdb_selects(b, &kp->meta))
            continue;
        p->n_pdbs++;
        if (b->observed_generation < b->generation)
            p->pdb_stale = true;
        if (b->disruptions_allowed <= 0)
            p->pdb_blocks = true;
    }
}

static int build_nodes(ctl_snapshot *s, const ds_policy *pol, node_speed *speeds, size_t *kv_used)
{
    double max_cpu = 0, max_mem = 0;
    for (size_t i = 0; i < s->nodes.n; i++) {
        const kube_node *n = (const kube_node *)s->nodes.items[i];
        if ((double)n->allocatable.v[DS_RES_CPU] > max_cpu)
            max_cpu = (double)n->allocatable.v[DS_RES_CPU];
        if ((double)n->allocatable.v[DS_RES_MEMORY] > max_mem)
            max_mem = (double)n->allocatable.v[DS_RES_MEMORY];
    }
    size_t n_taints = 0;
    for (size_t i = 0; i < s->nodes.n; i++)
        n_taints += ((const kube_node *)s->nodes.items[i])->n_taints;
    s->taint = calloc(n_taints ? n_taints : 1, sizeof *s->taint);
    if (s->taint == NULL)
        return -1;
    size_t t_used = 0;
    for (size_t i = 0; i < s->nodes.n; i++) {
        const kube_node *kn = (const kube_node *)s->nodes.items[i];
        ctl_node *n = &s->node[i];
        n->name = kn->meta.name;
        n->allocatable = kn->allocatable;
        n->schedulable = kn->ready && !kn->unschedulable && !kn->meta.deleting;
        n->labels = &s->kv[*kv_used];
        for (size_t k = 0; k < kn->meta.n_labels; k++)
            s->kv[(*kv_used)++] =
                (ctl_kv){kn->meta.labels[k].key, or_empty(kn->meta.labels[k].value)};
        n->n_labels = kn->meta.n_labels;
        n->taints = &s->taint[t_used];
        for (size_t k = 0; k < kn->n_taints; k++) {
            const kube_taint *kt = &kn->taints[k];
            ctl_taint_effect eff = CTL_TAINT_NO_SCHEDULE;
            if (strcmp(kt->effect, "PreferNoSchedule") == 0)
                eff = CTL_TAINT_PREFER_NO_SCHEDULE;
            else if (strcmp(kt->effect, "NoExecute") == 0)
                eff = CTL_TAINT_NO_EXECUTE;
            s->taint[t_used++] = (ctl_taint){kt->key, or_empty(kt->value), eff};
        }
        n->n_taints = kn->n_taints;
        n->speed = ds_node_speed_label(
            kube_meta_label(&kn->meta, pol->speed_label), (double)kn->allocatable.v[DS_RES_CPU],
            (double)kn->allocatable.v[DS_RES_MEMORY], max_cpu, max_mem, pol);
        speeds[i] = (node_speed){kn->meta.name, n->speed, i};
    }
    s->n_node = s->nodes.n;
    qsort(speeds, s->nodes.n, sizeof *speeds, cmp_node_speed);
    return 0;
}

static void fill_pod(ctl_snapshot *s, size_t i, size_t *kv_used, size_t *tol_used)
{
    const kube_pod *kp = (const kube_pod *)s->pods.items[i];
    const kube_meta *m = &kp->meta;
    ctl_pod *p = &s->pod[i];
    p->ns = or_empty(m->ns);
    p->name = m->name;
    p->uid = or_empty(m->uid);
    const ctl_namespace *ns = ctl_snapshot_namespace(s, m->ns);
    p->ns_known = ns != NULL;
    p->ns_labels = ns != NULL ? ns->labels : NULL;
    p->n_ns_labels = ns != NULL ? ns->n_labels : 0;
    p->node = or_empty(kp->node_name);
    p->priority_class = or_empty(kp->priority_class);
    p->k8s_priority = kp->priority;
    p->labels = &s->kv[*kv_used];
    for (size_t k = 0; k < m->n_labels; k++)
        s->kv[(*kv_used)++] = (ctl_kv){m->labels[k].key, or_empty(m->labels[k].value)};
    p->n_labels = m->n_labels;
    p->node_selector = &s->kv[*kv_used];
    for (size_t k = 0; k < kp->n_node_selector; k++)
        s->kv[(*kv_used)++] =
            (ctl_kv){kp->node_selector[k].key, or_empty(kp->node_selector[k].value)};
    p->n_node_selector = kp->n_node_selector;
    p->tolerations = &s->tol[*tol_used];
    for (size_t k = 0; k < kp->n_tolerations; k++) {
        const kube_toleration *t = &kp->tolerations[k];
        s->tol[(*tol_used)++] = (ctl_toleration){or_empty(t->key), t->op_exists, or_empty(t->value),
                                                 or_empty(t->effect)};
    }
    p->n_tolerations = kp->n_tolerations;
    p->has_required_affinity = kp->has_required_affinity;
    p->required_affinity = kp->required_affinity;
    p->affinity_error = or_empty(kp->affinity_error);
    p->dagsched_error = or_empty(m->dagsched_error);
    p->mirror = kp->mirror || (kp->owner_kind != NULL && strcmp(kp->owner_kind, "Node") == 0);
    p->state = pod_state(kp);
    p->other_gates = kp->n_gates > (has_gate(kp, DS_GATE_DEPENDENCIES) ? 1u : 0u);
    p->scheduler_name = or_empty(kp->scheduler_name);
    /* A pod of a namespace being deleted is deleted by the namespace controller: leaving too. */
    p->terminating = m->deleting || (ns != NULL && ns->terminating);
    p->created_at = opt_time(m->creation_ts);
    p->started_at = opt_time(kp->start_time);
    p->unschedulable_since = kp->unschedulable ? opt_time(kp->unschedulable_since) : NAN;
    p->request = kp->requests;
    p->evicted_at = ann_time(m, DS_ANN_EVICTED_AT);
    p->nudged_at = ann_time(m, DS_ANN_UPSTREAM_SUCCEEDED_AT);
    p->released = kube_meta_annotation(m, DS_ANN_RELEASED_AT) != NULL;
    p->has_runtime = kube_meta_annotation(m, DS_ANN_RUNTIME) != NULL;
    p->waiting_reason = or_empty(kube_meta_annotation(m, DS_ANN_WAITING_REASON));
    fill_task(s, i, &p->task, p->state == CTL_POD_GATED);
    p->task.deferred = ctl_work_deferred(s->work, m->ns, kp->job_key);
    if (p->state == CTL_POD_BOUND && p->task.job != DS_NO_TASK)
        pdb_facts(s, kp, p);
}

/* The retries the Argo node of a running pod has left for an eviction (ds_wf_retries_left): its
 * owning Workflow found by namespace, name and uid among the watched Workflows. */
static int workflow_retries(const ctl_snapshot *s, const kube_pod *kp)
{
    if (kp->owner_name == NULL || kp->argo_node_id == NULL || kp->meta.ns == NULL)
        return 0;
    for (size_t i = 0; i < s->graphs.n; i++) {
        const kube_meta *m = s->graphs.items[i];
        if (m->kind != KUBE_KIND_WORKFLOW || m->ns == NULL || m->name == NULL ||
            strcmp(m->ns, kp->meta.ns) != 0 || strcmp(m->name, kp->owner_name) != 0 ||
            (kp->owner_uid != NULL && m->uid != NULL && strcmp(m->uid, kp->owner_uid) != 0))
            continue;
        ds_wf_obs obs;
        kube_workflow_obs((const kube_workflow *)m, &obs);
        return ds_wf_retries_left(&obs, kp->argo_node_id);
    }
    return 0;
}

/* What each pod's owner does with an eviction (lib/owner_retry.h): its Job found by uid, with the
 * Job's pods being deleted (evictions on their way, not yet in status.failed) counted against its
 * retries. */
static int fill_owners(ctl_snapshot *s)
{
    ds_strmap by_uid;
    size_t *deleting = calloc(s->jobs.n ? s->jobs.n : 1, sizeof *deleting);
    if (deleting == NULL || ds_strmap_init(&by_uid, s->jobs.n) != 0) {
        free(deleting);
        return -1;
    }
    for (size_t i = 0; i < s->jobs.n; i++) {
        const char *uid = s->jobs.items[i]->uid;
        if (uid != NULL && ds_strmap_put(&by_uid, uid, strlen(uid), i, NULL) < 0) {
            ds_strmap_free(&by_uid);
            free(deleting);
            return -1;
        }
    }
    size_t *job_of = calloc(s->pods.n ? s->pods.n : 1, sizeof *job_of);
    if (job_of == NULL) {
        ds_strmap_free(&by_uid);
        free(deleting);
        return -1;
    }
    for (size_t i = 0; i < s->pods.n; i++) {
        const kube_pod *kp = (const kube_pod *)s->pods.items[i];
        job_of[i] = SIZE_MAX;
        size_t j;
        if (ds_owner_kind_of(kp->owner_kind) == DS_OWNER_JOB && kp->owner_uid != NULL &&
            ds_strmap_get(&by_uid, kp->owner_uid, strlen(kp->owner_uid), &j) == 0) {
            job_of[i] = j;
            if (kp->meta.deleting)
                deleting[j]++;
        }
    }
    for (size_t i = 0; i < s->pods.n; i++) {
        const kube_pod *kp = (const kube_pod *)s->pods.items[i];
        ctl_pod *p = &s->pod[i];
        ds_owner_facts o = {.kind = ds_owner_kind_of(kp->owner_kind)};
        if (job_of[i] != SIZE_MAX) {
            const kube_job *kj = (const kube_job *)s->jobs.items[job_of[i]];
            o.known = true;
            o.finished = kj->finished;
            o.backoff_limit = kj->backoff_limit;
            o.failed = kj->failed;
            o.pending_failures = deleting[job_of[i]];
            o.per_index_limit = kj->per_index_limit;
            o.ignores_disruption = kj->ignores_disruption;
        }
        /* Only running DAG tasks are ever victims: no Workflow lookup for other pods. */
        if (o.kind == DS_OWNER_WORKFLOW && p->state == CTL_POD_BOUND && p->task.job != DS_NO_TASK)
            o.workflow_retries = workflow_retries(s, kp);
        p->owner_evictions_left = ds_owner_evictions_left(&o, &p->owner_verdict);
        p->owner_uid = or_empty(kp->owner_uid);
    }
    free(job_of);
    free(deleting);
    ds_strmap_free(&by_uid);
    return 0;
}

static void fill_batch_job(ctl_snapshot *s, size_t i)
{
    const kube_job *kj = (const kube_job *)s->jobs.items[i];
    ctl_batch_job *j = &s->job[i];
    j->ns = or_empty(kj->meta.ns);
    j->name = kj->meta.name;
    j->uid = or_empty(kj->meta.uid);
    j->created_at = opt_time(kj->meta.creation_ts);
    j->suspended = kj->suspend;
    j->has_pods = kj->active + kj->succeeded + kj->failed > 0;
    j->request = kj->pod_request;
    j->task.job = DS_NO_TASK;
    j->task.task = DS_NO_TASK;
    j->task.queue_pos = SIZE_MAX;
    j->task.order[0] = j->task.order[1] = NAN;
    j->task.job_slack_s = j->task.job_path_s = NAN;
    j->task.deferred = false;
    if (s->job_obs[i] != DS_NONE) {
        fill_task(s, s->job_obs[i], &j->task, true);
        return;
    }
    if (!is_dag_job(kj))
        return;
    j->task.deferred = ctl_work_deferred(s->work, j->ns, batch_job_key(kj));
    if (j->task.deferred)
        return;
    /* Started: the task is represented by its pods; look it up by job key and task name. */
    const ds_job *job = ds_jobset_find_job(&s->js, j->ns, batch_job_key(kj));
    size_t t;
    if (job == NULL || !job->valid ||
        ds_dag_find(&job->dag, kube_meta_label(&kj->meta, DS_LABEL_TASK), &t) != 0)
        return;
    j->task.job = (size_t)(job - s->js.jobs);
    j->task.task = t;
    j->task.state = job->status[t].state;
    j->task.eval = job->eval[t];
    j->task.evaluated = true;
    j->task.has_upstream = job->dag.tasks[t].n_up > 0;
    j->task.queue_pos = s->queue_pos[s->pos_base[j->task.job] + t];
    j->task.order[0] = s->job_order[j->task.job][0];
    j->task.order[1] = s->job_order[j->task.job][1];
    j->task.job_slack_s = s->job_sum[j->task.job].slack_s;
    j->task.job_path_s = s->job_sum[j->task.job].remaining_path_s;
    j->task.job_steps = s->job_sum[j->task.job].remaining_steps;
}

/* An observation without its DAG labels and annotations: in the model, a pod outside any job
 * (its index stays the pod's, as the view needs). */
static void leave_out(ds_pod_obs *o)
{
    o->job_label = o->argo_workflow = o->task = NULL;
    o->depends_on = o->runtime = o->deadline = o->deadline_after = NULL;
    o->argo_node_id = o->argo_node_name = NULL;
}

static int build_jobset(ctl_snapshot *s, const ds_policy *pol, const node_speed *speeds,
                        ds_rt_history *learned, ds_err *err)
{
    size_t n_obs = s->pods.n + s->jobs.n;
    ds_pod_obs *obs = calloc(n_obs ? n_obs : 1, sizeof *obs);
    ds_graph_obs *gobs = calloc(s->graphs.n ? s->graphs.n : 1, sizeof *gobs);
    if (obs == NULL || gobs == NULL) {
        free(obs);
        free(gobs);
        return ds_err_set(err, "snapshot: out of memory");
    }
    for (size_t i = 0; i < s->pods.n; i++) {
        const kube_pod *kp = (const kube_pod *)s->pods.items[i];
        const node_speed *sp = find_speed(speeds, s->nodes.n, kp->node_name);
        kube_pod_obs(kp, sp ? sp->speed : 1.0, &obs[i]);
        if (ctl_work_deferred(s->work, kp->meta.ns, kp->job_key))
            leave_out(&obs[i]); /* its job is deferred: a pod outside any job, for the model */
    }
    size_t n = s->pods.n;
    for (size_t i = 0; i < s->jobs.n; i++) {
        const kube_job *kj = (const kube_job *)s->jobs.items[i];
        s->job_obs[i] = DS_NONE;
        if (!ctl_work_deferred(s->work, kj->meta.ns, batch_job_key(kj)) && job_obs(kj, &obs[n]))
            s->job_obs[i] = n++;
    }
    /* The graphs list holds JobGraph ConfigMaps and Argo Workflows. */
    size_t ng = 0, nw = 0;
    ds_wf_obs *wobs = calloc(s->graphs.n ? s->graphs.n : 1, sizeof *wobs);
    if (wobs == NULL) {
        free(obs);
        free(gobs);
        return ds_err_set(err, "snapshot: out of memory");
    }
    for (size_t i = 0; i < s->graphs.n; i++) {
        const kube_meta *m = s->graphs.items[i];
        if (s->work != NULL && i < s->work->n_graphs && s->work->graph_deferred[i])
            continue;
        if (m->kind == KUBE_KIND_WORKFLOW)
            kube_workflow_obs((const kube_workflow *)m, &wobs[nw++]);
        else
            kube_graph_obs((const kube_configmap *)m, &gobs[ng++]);
    }
    int rc = ds_jobs_build_learned(obs, n, gobs, ng, wobs, nw, s->now, &pol->priority, learned,
                                   &s->js, err);
    /* The runs that ended teach the next rounds (lib/runtime_history.h). */
    if (rc == 0 && learned != NULL)
        s->n_learned = ds_jobset_learn_runtimes(&s->js, obs, n, learned, s->now);
    free(obs);
    free(gobs);
    free(wobs);
    return rc;
}

/* With spec.fairness, each job's tenant rank (its weighted dominant share, lib/fairshare.h) from
 * the bound pods' requests: rank[j] for job j; NULL on error (err set). */
static double *tenant_ranks(const ctl_snapshot *s, const ds_policy *pol, ds_err *err)
{
    ctl_fairness f = ctl_fairness_of(pol);
    f.enabled = true;
    ctl_tenants ts;
    if (ctl_tenants_init(&ts, &f, s->ns, s->n_ns, s->node, s->n_node, err) != 0)
        return NULL;
    double *rank = calloc(s->js.n_jobs ? s->js.n_jobs : 1, sizeof *rank);
    bool ok = rank != NULL;
    for (size_t i = 0; ok && i < s->pods.n; i++) {
        const kube_pod *kp = (const kube_pod *)s->pods.items[i];
        if (pod_state(kp) == CTL_POD_BOUND)
            ok = ctl_tenants_charge(&ts, or_empty(kp->meta.ns), &kp->requests) == 0;
    }
    for (size_t j = 0; ok && j < s->js.n_jobs; j++) {
        size_t t = ctl_tenants_of(&ts, s->js.jobs[j].ns);
        ok = t != SIZE_MAX;
        if (ok)
            rank[j] = ds_fair_rank(&ts.fair[t], &ts.capacity);
    }
    ctl_tenants_free(&ts);
    if (!ok) {
        free(rank);
        ds_err_set(err, "snapshot: out of memory for tenants");
        return NULL;
    }
    return rank;
}

/* Every waiting task's place in the policy's queue order across jobs (lib/joborder.h), the order
 * in which held tasks are released; and every job's figures in that order. With spec.fairness,
 * the tenant furthest below its weighted fair share first (tenant_ranks). */
static int build_queue_order(ctl_snapshot *s, const ds_policy *pol, ds_err *err)
{
    size_t total = 0;
    s->pos_base = calloc(s->js.n_jobs ? s->js.n_jobs : 1, sizeof *s->pos_base);
    for (size_t j = 0; s->pos_base != NULL && j < s->js.n_jobs; j++) {
        s->pos_base[j] = total;
        total += s->js.jobs[j].dag.n;
    }
    s->queue_pos = malloc((total ? total : 1) * sizeof *s->queue_pos);
    ds_task_ref *refs = calloc(s->js.n_waiting ? s->js.n_waiting : 1, sizeof *refs);
    if (s->pos_base == NULL || s->queue_pos == NULL || refs == NULL) {
        free(refs);
        return ds_err_set(err, "snapshot: out of memory");
    }
    for (size_t i = 0; i < total; i++)
        s->queue_pos[i] = SIZE_MAX;
    double *rank = NULL;
    if (pol->fairness_enabled && (rank = tenant_ranks(s, pol, err)) == NULL) {
        free(refs);
        return -1;
    }
    long n =
        ds_jobset_queue_order_fair(&s->js, &pol->order, s->now, rank, refs, s->js.n_waiting, err);
    free(rank);
    if (n < 0) {
        free(refs);
        return -1;
    }
    for (long i = 0; i < n; i++)
        s->queue_pos[s->pos_base[refs[i].job] + refs[i].task] = (size_t)i;
    free(refs);
    s->job_order = calloc(s->js.n_jobs ? s->js.n_jobs : 1, sizeof *s->job_order);
    s->job_sum = calloc(s->js.n_jobs ? s->js.n_jobs : 1, sizeof *s->job_sum);
    if (s->job_order == NULL || s->job_sum == NULL)
        return ds_err_set(err, "snapshot: out of memory");
    return ds_jobset_job_figures(&s->js, &pol->order, s->now, s->job_order, s->job_sum, err);
}

void ctl_mark_foreign(ctl_snapshot *s, const char *scheduler_name)
{
    for (size_t i = 0; i < s->n_pod; i++) {
        const char *n = s->pod[i].scheduler_name;
        s->pod[i].foreign =
            scheduler_name != NULL && scheduler_name[0] != '\0' &&
            strcmp(n != NULL && n[0] != '\0' ? n : "default-scheduler", scheduler_name) != 0;
    }
}

int ctl_snapshot_build(kube_obj_list *pods, kube_obj_list *nodes, kube_obj_list *pdbs,
                       kube_obj_list *jobs, kube_obj_list *graphs, kube_obj_list *namespaces,
                       const ds_policy *policy, double now, ctl_snapshot *out, ds_err *err)
{
    return ctl_snapshot_build_learned(pods, nodes, pdbs, jobs, graphs, namespaces, policy, NULL,
                                      now, out, err);
}

int ctl_snapshot_build_learned(kube_obj_list *pods, kube_obj_list *nodes, kube_obj_list *pdbs,
                               kube_obj_list *jobs, kube_obj_list *graphs,
                               kube_obj_list *namespaces, const ds_policy *policy,
                               ds_rt_history *learned, double now, ctl_snapshot *out, ds_err *err)
{
    return ctl_snapshot_build_work(pods, nodes, pdbs, jobs, graphs, namespaces, policy, learned,
                                   NULL, now, out, err);
}

int ctl_snapshot_build_work(kube_obj_list *pods, kube_obj_list *nodes, kube_obj_list *pdbs,
                            kube_obj_list *jobs, kube_obj_list *graphs, kube_obj_list *namespaces,
                            const ds_policy *policy, ds_rt_history *learned,
                            const ctl_work_round *work, double now, ctl_snapshot *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    out->now = now;
    out->work = work;
    take_list(&out->pods, pods);
    take_list(&out->nodes, nodes);
    take_list(&out->pdbs, pdbs);
    take_list(&out->jobs, jobs);
    take_list(&out->graphs, graphs);
    if (namespaces != NULL)
        take_list(&out->namespaces, namespaces);
    ctl_snapshot *s = out;
    size_t n_tol = 0;
    for (size_t i = 0; i < s->pods.n; i++)
        n_tol += ((const kube_pod *)s->pods.items[i])->n_tolerations;
    size_t n_kv = count_kv(&s->pods, &s->nodes, &s->namespaces);
    node_speed *speeds = calloc(s->nodes.n ? s->nodes.n : 1, sizeof *speeds);
    s->kv = calloc(n_kv ? n_kv : 1, sizeof *s->kv);
    s->tol = calloc(n_tol ? n_tol : 1, sizeof *s->tol);
    s->pod = calloc(s->pods.n ? s->pods.n : 1, sizeof *s->pod);
    s->node = calloc(s->nodes.n ? s->nodes.n : 1, sizeof *s->node);
    s->job = calloc(s->jobs.n ? s->jobs.n : 1, sizeof *s->job);
    s->job_obs = calloc(s->jobs.n ? s->jobs.n : 1, sizeof *s->job_obs);
    s->ns = calloc(s->namespaces.n ? s->namespaces.n : 1, sizeof *s->ns);
    if (!speeds || !s->kv || !s->tol || !s->pod || !s->node || !s->job || !s->job_obs || !s->ns) {
        free(speeds);
        ctl_snapshot_free(s);
        return ds_err_set(err, "snapshot: out of memory");
    }
    size_t kv_used = 0, tol_used = 0;
    build_namespaces(s, &kv_used);
    if (build_nodes(s, policy, speeds, &kv_used) != 0) {
        free(speeds);
        ctl_snapshot_free(s);
        return ds_err_set(err, "snapshot: out of memory");
    }
    if (build_jobset(s, policy, speeds, learned, err) != 0) {
        free(speeds);
        ctl_snapshot_free(s);
        return -1;
    }
    free(speeds);
    s->dags = calloc(s->js.n_jobs ? s->js.n_jobs : 1, sizeof *s->dags);
    if (s->dags == NULL) {
        ctl_snapshot_free(s);
        return ds_err_set(err, "snapshot: out of memory");
    }
    for (size_t j = 0; j < s->js.n_jobs; j++)
        s->dags[j] = &s->js.jobs[j].dag;
    if (build_queue_order(s, policy, err) != 0) {
        ctl_snapshot_free(s);
        return -1;
    }
    for (size_t i = 0; i < s->pods.n; i++)
        fill_pod(s, i, &kv_used, &tol_used);
    s->n_pod = s->pods.n;
    if (fill_owners(s) != 0) {
        ctl_snapshot_free(s);
        return ds_err_set(err, "snapshot: out of memory");
    }
    for (size_t i = 0; i < s->jobs.n; i++)
        fill_batch_job(s, i);
    s->n_job = s->jobs.n;
    return 0;
}

void ctl_snapshot_free(ctl_snapshot *s)
{
    kube_obj_list_free(&s->pods);
    kube_obj_list_free(&s->nodes);
    kube_obj_list_free(&s->pdbs);
    kube_obj_list_free(&s->jobs);
    kube_obj_list_free(&s->graphs);
    kube_obj_list_free(&s->namespaces);
    ds_jobset_free(&s->js);
    free(s->dags);
    free(s->pos_base);
    free(s->queue_pos);
    free(s->job_order);
    free(s->job_sum);
    free(s->pod);
    free(s->node);
    free(s->job);
    free(s->job_obs);
    free(s->ns);
    free(s->kv);
    free(s->tol);
    free(s->taint);
    memset(s, 0, sizeof *s);
}

double ctl_snapshot_pbar_half(const ctl_snapshot *s)
{
    ds_pbar_acc acc;
    ds_pbar_acc_init(&acc);
    for (size_t j = 0; j < s->js.n_jobs; j++) {
        const ds_job *job = &s->js.jobs[j];
        if (job->valid)
            ds_pbar_acc_add_job(&acc, job->status, job->eval, job->dag.n);
    }
    return ds_pbar_acc_half(&acc);
}

const ds_job *ctl_snapshot_job_of(const ctl_snapshot *s, const ctl_task_info *t)
{
    if (t->job == DS_NO_TASK || t->job >= s->js.n_jobs)
        return NULL;
    return &s->js.jobs[t->job];
}
