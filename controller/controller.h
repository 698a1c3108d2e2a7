/* controller.h: the running controller: its options, the watches it keeps, leader election, the
 * eviction ledger, metrics and the decision loop (round.c) that turns each snapshot into
 * releases, nudges, published values and evictions (actions.c). main.c parses the flags and wires
 * it together. */
#ifndef DAGSCHED_CONTROLLER_CONTROLLER_H
#define DAGSCHED_CONTROLLER_CONTROLLER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "client.h"
#include "httpd.h"
#include "informer.h"
#include "leader.h"
#include "ledger_store.h"
#include "runtime_store.h"
#include "memo.h"
#include "metrics.h"
#include "policy.h"
#include "policy_source.h"
#include "preempt.h"
#include "publish.h"
#include "outcomes.h"
#include "releaser.h"
#include "tracker.h"
#include "workset.h"
#include "writer.h"

#define CTL_COMPONENT "dagsched-controller"

typedef struct ctl_options {
    const char *kubeconfig;
    const char *context;
    const char *policy_namespace; /* policy ConfigMaps, the ledger, the Lease (default) */
    const char *policy_name;
    bool dry_run;
    bool leader_elect;
    const char *lease_name;
    const char *lease_namespace;
    const char *identity;
    double lease_duration_s, renew_deadline_s, retry_period_s;
    const char *metrics_listen; /* HOST:PORT; "" disables the server */
    double cache_max_age_s;     /* no action when a watch has been out of contact this long */
    const char *ledger_name;
    const char *runtime_history_name; /* ConfigMap of learned run times (runtime_store.h) */
    const char *scheduler_name;       /* the pods dagsched acts on (ctl_pod.foreign) */
    int max_annotation_updates;       /* informational pod writes queued per round */
    double min_round_interval_s;
    double write_qps;       /* informational pod writes a second (writer.h); <= 0: no limit */
    size_t write_queue_max; /* informational pod writes queued at most */
    size_t max_graph_tasks; /* tasks of DAG jobs a round evaluates (workset.h); 0: no bound */
    size_t release_window;  /* releases sent at once (releaser.h) */
    double kube_api_qps;    /* the client's requests a second (kube_client_opts.qps); 0: none */
    double kube_api_burst;  /* ... and its burst */
} ctl_options;

typedef struct ctl_metrics {
    metrics_registry *reg;
    metrics_family *evictions;       /* counter {result, reason} */
    metrics_family *releases;        /* counter {kind} */
    metrics_family *nudges;          /* counter */
    metrics_family *urgent;          /* gauge: urgent pending tasks */
    metrics_family *duration;        /* histogram: decision loop duration */
    metrics_family *leader;          /* gauge 0/1 */
    metrics_family *rounds;          /* counter {outcome} */
    metrics_family *urgent_rounds;   /* counter: rounds run ahead of the cadence (cadence.h) */
    metrics_family *healthy;         /* gauge: caches synced and recent */
    metrics_family *tasks;           /* gauge {state} */
    metrics_family *annotations;     /* counter: DSP annotation updates */
    metrics_family *policy_dups;     /* gauge: other ConfigMaps claiming the policy's name */
    metrics_family *api_errors;      /* counter {action} */
    metrics_family *api_requests;    /* counter {verb}: requests sent (kube_client_requests) */
    metrics_family *api_throttled;   /* counter: requests that waited for --kube-api-qps */
    metrics_family *guards;          /* gauge {guard}: running tasks held back by each guard */
    metrics_family *unsaved;         /* counter: urgent tasks left unsaved (owner-would-fail) */
    metrics_family *release_latency; /* histogram {kind}: created -> released, seconds */
    metrics_family *release_request; /* histogram {request}: a release's API requests (patch,
                                      * event), seconds */
    metrics_family *queue;           /* gauge {reason}: held tasks by why they wait */
    /* Outcomes (outcomes.h), counted by the leader from the moment it leads. */
    metrics_family *jobs_done;  /* counter {namespace, outcome} */
    metrics_family *makespan;   /* histogram: job creation -> last task finished */
    metrics_family *lateness;   /* histogram: last task finished - deadline, missed jobs */
    metrics_family *task_wait;  /* histogram {from}: created / ready -> started */
    metrics_family *build_info; /* gauge {version, git} = 1 */
    /* What became of evictions (reserve.h, outcomes.h), counted once by the leader. */
    metrics_family *room;            /* counter {fate}: reached, elsewhere, lost */
    metrics_family *preemptor_jobs;  /* counter {outcome}: evictions by their preemptor's job */
    metrics_family *preemptor_tasks; /* counter {outcome}: evictions by their preemptor task's
                                      * level deadline */
    metrics_family *reserved;        /* gauge: preemptors the freed room is held for */
    metrics_family *upcoming_kept;   /* gauge: upcoming tasks room is kept for */
    /* The write queue (writer.h) and the rounds' own cost. */
    metrics_family *wq_depth;     /* gauge: informational writes queued */
    metrics_family *wq_coalesced; /* counter: writes that replaced a queued one */
    metrics_family *wq_dropped;   /* counter: refused (queue full), or dropped (not leader, stop) */
    metrics_family *wq_latency;   /* histogram {stage}: wait (queued), request (API call) */
    metrics_family *round_cpu;    /* histogram: CPU time of one decision round */
    metrics_family *tenant_share; /* gauge {tenant}: dominant share (spec.fairness) */
    metrics_family *gangs_waiting; /* gauge: gangs not started and not released (lib/gang.h) */
    metrics_family *gang_timeouts; /* counter: GangTimeout Events posted */
    /* The bound on graph work per round (workset.h). */
    metrics_family *jobs_deferred; /* counter: jobs deferred, once per round each */
    metrics_family *graph_tasks;   /* gauge {disposition}: the last round's work, evaluated and
                                    * deferred */
} ctl_metrics;

/* Tenants the dominant-share gauge keeps a series for at most (the registry bounds them too). */
#define CTL_TENANT_SERIES_MAX 1024

/* The metrics listener's limits: Prometheus and probes need a handful of connections and no body.
 */
#define CTL_HTTP_MAX_CONNS    64
#define CTL_HTTP_MAX_BUFFERED (4u << 20)

typedef struct ctl_controller {
    ctl_options opt;
    kube_client *client;
    httpd_budget http_budget; /* of the metrics listener (CTL_HTTP_MAX_*) */
    /* Every watch the controller keeps; a round acts only while all of them are synced and in
     * contact (namespaces: their labels, for spec.preemption.namespaceSelector). */
    kube_informer *pods, *nodes, *pdbs, *jobs, *graphs, *policies, *namespaces;
    kube_informer *workflows; /* Argo Workflows; NULL when the API server does not serve them */
    kube_leader *leader;
    ctl_ledger_store ledger;
    ctl_runtime_store runtimes; /* run times learned from earlier runs */
    kube_policy_state policy;
    ctl_metrics m;
    ctl_memo memo;
    ctl_writer writer;     /* informational pod writes, off the decision loop */
    ctl_releaser releaser; /* the release window: the round's releases sent at once */
    ctl_workset work;      /* the graph work of rounds: where the next starts, its debt */

    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool kicked;        /* a relevant change happened: run a round soon */
    bool kicked_urgent; /* a DAG task's pod became Unschedulable: run a round now (cadence.h) */
    atomic_bool stop;
    atomic_bool leading;       /* set by the elector callbacks */
    atomic_bool need_ledger;   /* the ledger must be (re)loaded before any eviction */
    atomic_bool need_runtimes; /* the learned run times must be (re)loaded (a new leader) */
    bool was_healthy;
    ctl_outcomes outcomes; /* initialised by the first round this process leads */
    bool outcomes_leading; /* outcomes counts since this process last became the leader */
    /* The tenants the dominant-share gauge has a series for (owned copies): a tenant without DAG
     * tasks any more is set to 0 once and forgotten. */
    char **tenant_series;
    size_t n_tenant_series;
} ctl_controller;

/* The controller object (controller.c): metrics registration, -1 on allocation failure. */
int ctl_metrics_init(ctl_metrics *m, const char *version, const char *git);

/* Wake the decision loop (from informer callbacks). */
void ctl_kick(ctl_controller *c);

/* Wake the decision loop for a round at once, ahead of --min-round-interval (cadence.h): a DAG
 * task's pod has just been found Unschedulable and may need an eviction. */
void ctl_kick_urgent(ctl_controller *c);

/* One decision round: snapshot, release, nudge, preempt, publish. */
void ctl_round(ctl_controller *c);

/* Whether this process may write now (leader, or leader election off). */
bool ctl_may_write(ctl_controller *c);

/* The decision loop: runs rounds every epoch and soon after relevant changes until c->stop. */
void ctl_loop(ctl_controller *c);

/* Actions (actions.c). Each checks ctl_may_write first and reports failures in logs, Events and
 * metrics; none retries in a loop. */
/* Release a task; how: the release rule's words ("fits on node n3", "released ahead of room
 * (look-ahead): ...", "" under admission all), added to the Event and the log line. A released
 * pod gets dagsched.io/released-at and loses dagsched.io/waiting-reason in one patch, sent by the
 * release window (releaser.h; ctl_round waits for it before it ends), which then reports it. */
/* hold_node: a gang member's planned node, whose room the release holds for it for hold_s
 * seconds (dagsched.io/reserved-node, lib/gang.h); NULL: no hold. */
void ctl_act_release_pod(ctl_controller *c, const ctl_snapshot *s, size_t pod, const char *how,
                         const char *hold_node, double hold_s);
void ctl_act_release_job(ctl_controller *c, const ctl_snapshot *s, size_t job, const char *how);
/* A held pod's reason: queue (writer.h) dagsched.io/waiting-reason = msg and, when changed (the
 * reason, not only its details), the Normal Event Waiting after it. 0 when queued. */
int ctl_act_waiting_pod(ctl_controller *c, const ctl_snapshot *s, size_t pod, const char *msg,
                        bool changed);
/* A held suspended Job's reason: the Normal Event Waiting on the Job. */
void ctl_act_waiting_job(ctl_controller *c, const ctl_snapshot *s, size_t job, const char *msg);
void ctl_act_nudge(ctl_controller *c, const ctl_snapshot *s, size_t pod);
/* Remove the dagsched gate of a pod outside any DAG job (its dagsched metadata cannot be used). */
void ctl_act_ungate(ctl_controller *c, const ctl_snapshot *s, size_t pod);
/* Queue the pod's DSP annotations (writer.h); 0 when queued (or coalesced with a queued write). */
int ctl_act_publish(ctl_controller *c, const ctl_snapshot *s, size_t pod, const ctl_dsp_values *v);
/* Carry out one eviction of the plan; returns -1 when the round must stop evicting (the ledger
 * could not be written, leadership lost). */
int ctl_act_evict(ctl_controller *c, const ctl_snapshot *s, const ds_policy *p,
                  const ctl_eviction *e);
/* The release window's callbacks (releaser.h), ud the controller: a pod's release reported (or
 * its failure), and whether it may be sent. */
void ctl_release_done(void *ud, const ctl_release_req *r, int rc, const ds_err *err,
                      double seconds);
bool ctl_release_may_write(void *ud);
/* Post an Event about a pod (best effort). */
void ctl_event_pod(ctl_controller *c, const ctl_pod *pod, const char *type, const char *reason,
                   const char *message);
/* Post an Event about a listed object: a pod, a ConfigMap, a batch Job or an Argo Workflow (best
 * effort; nothing for other kinds). */
void ctl_event_object(ctl_controller *c, const kube_meta *m, const char *type, const char *reason,
                      const char *message);

#endif
