/* tracker.h: one consistent snapshot of what the controller watches, turned into the decision
 * view (view.h) and the job model (lib/jobmodel.h).
 *
 * The caller lists its informer caches (references to immutable objects) and hands them over;
 * the snapshot keeps those references for its lifetime, so every string in the view stays valid
 * however the caches change meanwhile. Building it:
 *  - feeds every pod, and every suspended (or not yet started) batch Job that is a DAG task, with
 *    the JobGraph ConfigMaps and the Argo Workflows (both in `graphs`), to ds_jobs_build_wf, which
 * groups them into jobs, builds each DAG, derives task states and evaluates DSP priorities, level
 * deadlines and slack at `now`;
 *  - fills one ctl_pod per pod (state, request, owner, scheduling facts: node selector,
 *    tolerations, required node affinity; the dagsched.io annotations the controller writes, the
 *    PodDisruptionBudgets that select it, the labels of its namespace when the namespace is among
 *    the listed ones) and one ctl_node per node (allocatable, schedulable, labels, taints, and its
 *    speed, used by the job model and to prefer fast nodes when preempting: the policy's speed
 *    label, else DSP Eq. 1).
 * No I/O: unit-tested on decoded objects. */
#ifndef DAGSCHED_CONTROLLER_TRACKER_H
#define DAGSCHED_CONTROLLER_TRACKER_H

#include <stddef.h>

#include "cache.h"
#include "ds_error.h"
#include "joborder.h"
#include "jobmodel.h"
#include "objects.h"
#include "policy.h"
#include "view.h"
#include "workset.h"

typedef struct ctl_snapshot {
    double now;
    /* The listed objects (owned references). */
    kube_obj_list pods, nodes, pdbs, jobs, graphs, namespaces;

    ds_jobset js;
    const ds_dag **dags;     /* [js.n_jobs]: every job's DAG (empty for invalid jobs) */
    size_t *pos_base;        /* [js.n_jobs]: offset of each job's tasks in queue_pos */
    size_t *queue_pos;       /* per task of every job: place in the queue order, SIZE_MAX if none */
    double (*job_order)[2];  /* [js.n_jobs]: each job's figures in that order (NAN if invalid) */
    ds_job_summary *job_sum; /* [js.n_jobs]: each job's summary (slack and path NAN if invalid) */

    ctl_pod *pod; /* [pods.n], in list order */
    size_t n_pod;
    ctl_node *node; /* [nodes.n] */
    size_t n_node;
    ctl_batch_job *job; /* [jobs.n] */
    size_t n_job;
    size_t *job_obs;   /* [jobs.n]: index of the Job's entry in the job model's input, or DS_NONE */
    ctl_namespace *ns; /* [namespaces.n], sorted by name */
    size_t n_ns;

    /* Storage the view points into. */
    ctl_kv *kv;
    ctl_toleration *tol;
    ctl_taint *taint;
    size_t n_learned; /* runs recorded into the learned run times while building */
    /* The round's graph work (workset.h), borrowed; NULL: every job evaluated. The objects of the
     * jobs it defers are left out of the job model; their pods and batch Jobs are marked
     * (ctl_task_info.deferred). */
    const ctl_work_round *work;
} ctl_snapshot;

/* Build from the lists (ownership of their references passes to the snapshot, also on error;
 * the lists are emptied). namespaces may be NULL (no namespace known). -1 with err set on
 * allocation failure or invalid arguments. */
int ctl_snapshot_build(kube_obj_list *pods, kube_obj_list *nodes, kube_obj_list *pdbs,
                       kube_obj_list *jobs, kube_obj_list *graphs, kube_obj_list *namespaces,
                       const ds_policy *policy, double now, ctl_snapshot *out, ds_err *err);

/* ctl_snapshot_build with run times learned from earlier runs (lib/runtime_history.h; NULL:
 * none): the job model counts them for tasks without a run time of their own, and the tasks that
 * succeeded since are recorded into `learned` (ctl_snapshot.n_learned). */
int ctl_snapshot_build_learned(kube_obj_list *pods, kube_obj_list *nodes, kube_obj_list *pdbs,
                               kube_obj_list *jobs, kube_obj_list *graphs,
                               kube_obj_list *namespaces, const ds_policy *policy,
                               ds_rt_history *learned, double now, ctl_snapshot *out, ds_err *err);

/* ctl_snapshot_build_learned for one round's graph work (NULL: every job evaluated): the jobs
 * `work` defers are left out of the job model (see ctl_snapshot.work). */
int ctl_snapshot_build_work(kube_obj_list *pods, kube_obj_list *nodes, kube_obj_list *pdbs,
                            kube_obj_list *jobs, kube_obj_list *graphs, kube_obj_list *namespaces,
                            const ds_policy *policy, ds_rt_history *learned,
                            const ctl_work_round *work, double now, ctl_snapshot *out, ds_err *err);

/* Mark the pods whose schedulerName is not scheduler_name as foreign (ctl_pod.foreign): they did
 * not opt in to dagsched, which then never acts on them. A pod's empty schedulerName is the API
 * server's default-scheduler; scheduler_name NULL or "" marks none (every scheduler's pods). */
void ctl_mark_foreign(ctl_snapshot *s, const char *scheduler_name);

/* A namespace of the snapshot by name, or NULL when it was not listed. */
const ctl_namespace *ctl_snapshot_namespace(const ctl_snapshot *s, const char *name);
void ctl_snapshot_free(ctl_snapshot *s);

/* P_bar / 2 over the snapshot's DAG tasks (ds_pbar_acc: every waiting or running task of a valid
 * job), the population the extender and the simulator use too. */
double ctl_snapshot_pbar_half(const ctl_snapshot *s);

/* The job of a pod or batch Job in the snapshot (NULL when it is not part of a job). */
const ds_job *ctl_snapshot_job_of(const ctl_snapshot *s, const ctl_task_info *t);

#endif
