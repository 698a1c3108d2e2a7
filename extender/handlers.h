/* handlers.h: the extender verbs (filter, prioritize, preempt) as functions of a request body and
 * a snapshot: parse the request, resolve the pod against the job model, apply the placement rules
 * of lib/placement.h, write the result. No clock (the caller passes `now`). The handlers
 * themselves take no lock and do no I/O, so they are tested on recorded bodies and benchmarked
 * without a server, with one exception, the optional ext_ctx.tasks_succeeded callback below:
 * when the snapshot says a DAG task's upstream tasks have not all succeeded, and only then, the
 * handler calls it, on the HTTP thread. The live implementation (ext_state_tasks_succeeded) reads
 * the pod informer's cache (its lock, held for one index lookup) and, when a missing upstream
 * task's pod is still running there, does one synchronous GET of the job's pods from the API
 * server under the extender's check mutex (at most 2 s, no retry, the answer shared for 250 ms by
 * all requests about that job). Without the callback (ctx.tasks_succeeded NULL, as in the tests
 * and the benchmark) the contract holds fully.
 *
 * Rules in brief (docs/extender.md has the full text):
 *  - A pod outside any DAG job passes the filter on every node it fits and gets packing scores.
 *  - A DAG task whose upstream tasks have not all succeeded fails on every node, in
 *    FailedAndUnresolvableNodes, with "dagsched: waiting for upstream tasks: a, b".
 *  - A pod of an invalid job (cycle, unknown upstream, bad annotation...) is handled as if it were
 *    outside any DAG, and the outcome says why so that the caller logs it and posts an Event.
 *  - A pod whose dagsched labels or annotations are beyond dagsched's bounds (a 200 KB
 *    depends-on...) is a pod dagsched does not manage: handled as outside any DAG, never a bad
 *    request. A request is bad (400) only when it, or its Pod, is not what an API server and
 *    kube-scheduler produce (malformed JSON, a Pod without name or namespace, fields of the
 *    wrong type).
 *  - Nodes the pod does not fit fail (FailedNodes); with the policy's filterInfeasibleNodes, nodes
 *    on which it would miss its level deadline fail as long as a fitting node can make it.
 *  - Nodes unknown to the snapshot pass (never rejected for lack of information) with score 0.
 *  - Preemption keeps only victims that the DSP rules allow and nodes where the kept victims still
 *    make room. */
#ifndef DAGSCHED_EXT_HANDLERS_H
#define DAGSCHED_EXT_HANDLERS_H

#include <stdbool.h>
#include <stddef.h>

#include "objects.h"
#include "placement.h"
#include "protocol.h"
#include "state.h"

typedef struct ext_ctx {
    ext_limits limits;
    /* Optional: has every named task of job ns/job a Succeeded pod in the live caches (which may
     * be newer than the snapshot)? Consulted only before answering "waiting for upstream tasks",
     * so that a task whose upstream tasks finished a moment ago is not held back by a snapshot
     * that has not caught up yet. It may lock and block (see the top of this file): the one
     * place where a handler waits on anything but the CPU. */
    bool (*tasks_succeeded)(void *user, const char *ns, const char *job, const char *const *tasks,
                            size_t n);
    void *tasks_user;
    /* The dagsched scheduler's name: a pod of another scheduler (its spec.schedulerName; none is
     * default-scheduler) did not opt in, and is judged as a pod outside any DAG (fit and packing
     * only), since a KubeSchedulerConfiguration's extenders serve all its profiles. NULL or "":
     * every scheduler's pods are dagsched's. */
    const char *scheduler_name;
} ext_ctx;

typedef enum {
    EXT_OK = 0,
    EXT_BAD_REQUEST, /* 400: malformed body or Pod */
    EXT_NOT_READY,   /* 503: no snapshot yet */
    EXT_INTERNAL,    /* 500: allocation failure */
} ext_result_kind;

typedef enum {
    EXT_POD_OUTSIDE = 0, /* no job key */
    EXT_POD_DAG,         /* a task of a valid job, runnable */
    EXT_POD_BLOCKED,     /* waiting for upstream tasks */
    EXT_POD_INVALID_JOB, /* job key present but the job (or the pod's task) is unusable */
    EXT_POD_INVALID_POD, /* the pod's own dagsched metadata is beyond dagsched's bounds
                          * (kube_meta.dagsched_error): outside any DAG; the controller posts
                          * the Event */
    EXT_POD_HELD,        /* like EXT_POD_INVALID_JOB, but the pod may depend on other tasks
                          * (ds_job_holds_pod): no node until its job is fixed */
} ext_pod_class;

/* What happened, for metrics, logs and Events. */
typedef struct ext_outcome {
    ext_result_kind kind;
    char error[EXT_ERR_MAX]; /* EXT_BAD_REQUEST / EXT_INTERNAL */
    ext_pod_class pod_class;
    char pod_ns[64], pod_name[254], pod_uid[64];
    char job[254], task[254]; /* its labels dagsched.io/job (or Argo workflow), dagsched.io/task */
    char note[DS_ERR_MAX];    /* EXT_POD_INVALID_*, EXT_POD_HELD: why; EXT_POD_BLOCKED: the missing
                               * tasks */
    const kube_pod *pod;      /* reference for Events (EXT_POD_INVALID_JOB), or NULL */
    size_t n_nodes;
    size_t n_passed;
    size_t n_no_fit, n_too_slow, n_unknown, n_blocked;
    size_t n_victims_in, n_victims_kept, n_nodes_kept;
    size_t victims_refused[DS_VICTIM_VERDICTS]; /* by ds_victim_verdict */
    const char *preemptor_mode;                 /* ds_preemptor_mode_name */
    bool live_override; /* upstream tasks done per the live caches, not yet per the snapshot */
} ext_outcome;

/* Release the outcome's pod reference. */
void ext_outcome_clear(ext_outcome *o);

/* The HTTP answer. */
typedef struct ext_reply {
    int status;
    char *body; /* malloc'd */
    size_t len;
} ext_reply;

/* s may be NULL (not ready yet: 503). */
void ext_handle_filter(const ext_ctx *c, const ext_snapshot *s, const char *body, size_t len,
                       double now, ext_reply *r, ext_outcome *o);
void ext_handle_prioritize(const ext_ctx *c, const ext_snapshot *s, const char *body, size_t len,
                           double now, ext_reply *r, ext_outcome *o);
void ext_handle_preempt(const ext_ctx *c, const ext_snapshot *s, const char *body, size_t len,
                        double now, ext_reply *r, ext_outcome *o);

/* The benchmark's floor: parse the request like ext_handle_filter / ext_handle_prioritize, then
 * pass every node / give every node the same score, without looking at any state. */
void ext_handle_floor_filter(const ext_ctx *c, const char *body, size_t len, ext_reply *r,
                             ext_outcome *o);
void ext_handle_floor_prioritize(const ext_ctx *c, const char *body, size_t len, ext_reply *r,
                                 ext_outcome *o);

#endif
