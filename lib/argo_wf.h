/* argo_wf.h: an Argo Workflow (argoproj.io/v1alpha1) as a DAG job.
 *
 * The caller decodes a Workflow object into a ds_wf_obs (kube/argo_decode.c does it from JSON);
 * ds_wf_expand turns it into the job's tasks, one per pod Argo runs (or will run), with their
 * upstream tasks, run time estimates and the state Argo recorded in status.nodes. Pure: no I/O, no
 * clock. docs/dag-jobs.md ("Argo Workflows") is the user-facing reference.
 *
 * What becomes a task. Expansion starts at spec.entrypoint:
 *  - a `dag` template: each of its tasks, after the tasks named by `dependencies` or `depends`;
 *    `depends` is accepted when it only joins task names, optionally with `.Succeeded`, by `&&`
 *    (with parentheses); anything else (`||`, `!`, `.Failed`, `.Skipped`, `.AnySucceeded`...)
 *    makes the job invalid for dagsched;
 *  - a `steps` template: its groups run one after another; every step of a group waits for every
 *    step of the group before;
 *  - a task or step that calls a `dag` or `steps` template (nested) expands that template in its
 *    place: its first tasks wait for the caller's upstream tasks, and whatever depended on the
 *    caller waits for the nested template's last tasks;
 *  - a task or step with withItems, withParam or withSequence is one task until Argo has expanded
 *    it; then each child node listed in status.nodes is a task of its own (fan-out);
 *  - every other template (container, script, containerSet, resource, data, suspend, http,
 *    plugin) is one task, named by its Argo node name without the workflow's name and the dot
 *    after it ("extract", "outer.inner", "[0].step", "fan(3:c)"). With retryStrategy, the pods of
 *    every attempt are the same task (Argo's Retry node and its children).
 * templateRef, a template that calls itself (recursion) and spec.onExit handlers are not
 * supported: the first two make the job invalid; the exit handler's pod is not a task.
 *
 * Run times, per task, in this order: the template's annotation dagsched.io/runtime
 * (templates[].metadata.annotations), the Workflow's annotation dagsched.io/runtime, Argo's
 * estimatedDuration of the task's node (from earlier runs of the same WorkflowTemplate), else
 * DS_DEFAULT_RUNTIME_S. The deadline comes from the Workflow's dagsched.io/deadline or
 * dagsched.io/deadline-after (from the Workflow's creation); activeDeadlineSeconds is not one.
 *
 * Task state from status.nodes: Succeeded, Skipped and Omitted are done (DS_WF_NODE_SUCCEEDED),
 * Failed and Error failed; a task without a node of its own takes the state of the nearest
 * enclosing node that has finished (a skipped nested DAG skips its tasks). Pods are matched to
 * tasks by their annotations workflows.argoproj.io/node-id and node-name (ds_wf_job_task_of). */
#ifndef DAGSCHED_ARGO_WF_H
#define DAGSCHED_ARGO_WF_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "ds_error.h"
#include "resources.h"
#include "strmap.h"

#define DS_ARGO_ANN_NODE_ID   "workflows.argoproj.io/node-id"
#define DS_ARGO_ANN_NODE_NAME "workflows.argoproj.io/node-name"

#define DS_WF_MAX_TEMPLATES 10000
#define DS_WF_MAX_NODES     100000 /* status.nodes entries */
#define DS_WF_MAX_TASKS     100000 /* tasks after expansion */
#define DS_WF_MAX_DEPTH     32     /* nested templates */
#define DS_WF_DEPENDS_MAX   4096   /* bytes of one `depends` expression */

typedef enum {
    DS_WF_TMPL_POD = 0, /* runs one pod per attempt (container, script, resource, ...) */
    DS_WF_TMPL_NOPOD,   /* suspend, http, plugin: a task without a pod */
    DS_WF_TMPL_DAG,
    DS_WF_TMPL_STEPS,
} ds_wf_tmpl_kind;

/* A task of a `dag` template or a step of a `steps` template. */
typedef struct ds_wf_step {
    const char *name;
    const char *template_name;       /* `template`; NULL when absent */
    bool template_ref;               /* `templateRef` (not supported) */
    const char *const *dependencies; /* DAG: `dependencies` */
    size_t n_dependencies;
    const char *depends; /* DAG: `depends`, NULL when absent */
    bool fan_out;        /* withItems, withParam or withSequence */
    size_t group;        /* STEPS: index of its group (0-based) */
} ds_wf_step;

typedef struct ds_wf_template {
    const char *name;
    ds_wf_tmpl_kind kind;
    const ds_wf_step *steps; /* DAG tasks, or every step of every group in order */
    size_t n_steps;
    const char *runtime; /* metadata.annotations["dagsched.io/runtime"], or NULL */
    /* retryStrategy: the retries Argo makes of a failed attempt (DS_WF_NO_RETRY without a
     * retryStrategy, DS_WF_RETRY_UNLIMITED without a limit, 0 for a limit that is an expression),
     * and whether they cover errors such as an evicted pod ("pod deleted"): retryPolicy Always
     * or OnError (not OnFailure, the default, nor OnTransientError). */
    int retry_limit;
    bool retries_errors;
    /* A pod template: the request of its pods as the template states it (its containers against
     * its largest init container); has_request false when it states none or one is unreadable. */
    ds_res request;
    bool has_request;
} ds_wf_template;

#define DS_WF_NO_RETRY        (-1)
#define DS_WF_RETRY_UNLIMITED INT_MAX

typedef enum {
    DS_WF_NODE_NONE = 0, /* no node yet */
    DS_WF_NODE_PENDING,
    DS_WF_NODE_RUNNING,
    DS_WF_NODE_SUCCEEDED, /* Succeeded, Skipped, Omitted */
    DS_WF_NODE_FAILED,    /* Failed, Error */
} ds_wf_node_phase;

/* One entry of status.nodes. */
typedef struct ds_wf_node {
    const char *id; /* the key in status.nodes */
    const char *name;
    const char *type;          /* Pod, DAG, Steps, StepGroup, TaskGroup, Retry, Skipped, ... */
    const char *template_name; /* templateName, or NULL */
    ds_wf_node_phase phase;
    double started_at, finished_at; /* epoch seconds; NAN when absent */
    double estimated_duration_s;    /* NAN when absent */
    const char *const *children;    /* node ids */
    size_t n_children;
} ds_wf_node;

/* A Workflow as observed. Strings and arrays are borrowed for the duration of ds_wf_expand. */
typedef struct ds_wf_obs {
    const char *ns, *name;
    /* The job family of learned run times (lib/runtime_history.h): its WorkflowTemplate (label
     * workflows.argoproj.io/workflow-template), else metadata.generateName; NULL: its name. */
    const char *family;
    double created_at; /* metadata.creationTimestamp; NAN when unknown */
    const char *runtime, *deadline, *deadline_after; /* dagsched.io/ annotations, or NULL */
    const char *entrypoint;
    const ds_wf_template *templates;
    size_t n_templates;
    const ds_wf_node *nodes;
    size_t n_nodes;
    const char *decode_error; /* why the object could not be decoded (job invalid), or NULL */
} ds_wf_obs;

typedef enum {
    DS_WF_RUNTIME_TEMPLATE = 0, /* template annotation */
    DS_WF_RUNTIME_WORKFLOW,     /* Workflow annotation */
    DS_WF_RUNTIME_ESTIMATED,    /* estimatedDuration */
    DS_WF_RUNTIME_DEFAULT,
    DS_WF_RUNTIME_LEARNED, /* learned from earlier runs (lib/runtime_history.h) */
} ds_wf_runtime_source;

typedef struct ds_wf_task {
    const char *name;      /* task name in the DAG */
    const char *node_name; /* Argo node name ("etl.extract") */
    double runtime_s;
    ds_wf_runtime_source runtime_source;
    const char **up; /* upstream task names */
    size_t n_up;
    bool has_pod;     /* its template runs a pod */
    ds_res request;   /* its template's request (ds_wf_template.request) */
    bool has_request; /* known from the template */
    ds_wf_node_phase phase;
    double started_at, finished_at; /* from its node; NAN when unknown */
} ds_wf_task;

typedef enum {
    DS_WF_DEADLINE_NONE = 0,
    DS_WF_DEADLINE_ABSOLUTE, /* deadline: epoch seconds */
    DS_WF_DEADLINE_AFTER,    /* deadline: seconds after created_at */
} ds_wf_deadline_kind;

typedef struct ds_wf_job {
    ds_wf_task *tasks;
    size_t n_tasks;
    ds_wf_deadline_kind deadline_kind;
    double deadline;
    /* private */
    ds_strmap node_task; /* node id or node name -> task index */
    ds_arena arena;
} ds_wf_job;

/* Expand a Workflow into tasks. 0 on success; -1 with err set when the Workflow cannot be a DAG
 * job for dagsched (unsupported feature, unknown template, malformed annotation, too large) or on
 * out of memory. Free with ds_wf_job_free in both cases. */
int ds_wf_expand(const ds_wf_obs *wf, ds_wf_job *out, ds_err *err);

void ds_wf_job_free(ds_wf_job *j);

/* The task a pod of the workflow belongs to, by its node id, else its node name (either may be
 * NULL); (size_t)-1 when neither names a task's node. */
size_t ds_wf_job_task_of(const ds_wf_job *j, const char *node_id, const char *node_name);

/* How many more times Argo runs the node of pod node `node_id` after an eviction fails it: the
 * retries its template's retryStrategy has left for errors (its limit minus the attempts made so
 * far, the children of its Retry node; DS_WF_RETRY_UNLIMITED without a limit), 0 when the node
 * or its template is unknown or retries no errors. O(nodes + templates + children). */
int ds_wf_retries_left(const ds_wf_obs *wf, const char *node_id);

/* Phase of a status.nodes[].phase string (unknown strings: DS_WF_NODE_PENDING). */
ds_wf_node_phase ds_wf_node_phase_of(const char *phase);

#endif
