/* engine_state.h: the simulation's state, shared by the event loop (engine.c) and the model of
 * the admission gate and the controller's releases (release.c). Private to sim/: engine.c,
 * release.c, kqueue.c, jobview.c.
 *
 * A task's pod goes through these states:
 *
 *   BLOCKED    no pod yet, or a pod whose upstream tasks have not all succeeded
 *   GATED      ready, its pod carries the scheduling gate (policies with `gated`): it waits for
 *              a controller round to release it (release.c)
 *   RELEASING  released by the controller; in kube-scheduler's queue after the release latency
 *   QUEUED     in kube-scheduler's queue (engine.q): active, or parked after a failed attempt
 *              (unschedulable or backing off, kqueue.c)
 *   DELAYED    evicted or failed; its owner recreates the pod after a delay
 *   RUNNING, DONE */
#ifndef DAGSCHED_SIM_ENGINE_STATE_H
#define DAGSCHED_SIM_ENGINE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "evheap.h"
#include "evict_budget.h"
#include "joborder.h"
#include "strmap.h"
#include "wqueue.h"

enum { T_BLOCKED = 0, T_QUEUED, T_DELAYED, T_RUNNING, T_DONE, T_GATED, T_RELEASING };
enum { F_CHECKPOINT = 1, F_DISORDER_RUN = 2, F_KNOWN = 4 }; /* F_KNOWN: its pod was created */
enum { SQ_ACTIVE = 0, SQ_UNSCHED, SQ_BACKOFF }; /* a QUEUED pod in kube-scheduler's queue */

/* Instants closer than this are one (kube-scheduler's back-off and flush grids, kqueue.c). */
#define SIM_TIME_EPS 1e-9

#define NONE32          UINT32_MAX
#define SEG_NONE        SIZE_MAX
#define MAX_PRIO_LEVELS 64

typedef struct etask {
    double runtime;        /* reference seconds */
    double progress;       /* reference seconds kept across evictions (checkpointing tasks) */
    double runnable_since; /* when it last became runnable / was recreated */
    double created_at;     /* gated policies: when its current pod was created (NAN: no pod) */
    double queued_at;      /* when its pod last entered kube-scheduler's queue */
    double started_at;     /* start of the current run */
    double last_evicted;
    double preempt_retry_at; /* kube preemption: not before */
    double failed_at;        /* kube-scheduler: its last failed scheduling attempt (kqueue.c) */
    ds_res req;
    uint32_t n_up_left; /* upstream tasks not yet succeeded */
    uint32_t node;
    uint32_t gen; /* run generation: stale FINISH/REQUEUE/RELEASE events are ignored */
    uint32_t qh;  /* kube-scheduler queue handle */
    uint32_t gh;  /* gated queue handle (release.c) */
    uint32_t rh;  /* waiting-rank handle (release.c) */
    uint32_t run_idx;
    uint32_t uh;       /* index in engine.unsched while unschedulable */
    uint16_t attempts; /* kube-scheduler: failed scheduling attempts of the current pod */
    uint16_t fails;
    uint16_t evictions; /* times this task was evicted (maxEvictionsPerTask) */
    /* DSP preemption made room for this task evictions_for times; evict_for_deadline is its
     * level deadline (absolute, INFINITY without one) at the first (the task-level yield). */
    uint16_t evictions_for;
    double evict_for_deadline;
    uint8_t state;
    uint8_t sq; /* SQ_*, while QUEUED */
    /* While QUEUED: its pod has an UNSCHED_TIMEOUT event in the heap (kqueue.c: at most one) */
    uint8_t timeout_pending;
    uint8_t flags;
    uint16_t gang_size; /* its gang's members; 0: no gang */
    uint32_t gang;      /* its gang: an index among the job's gangs; NONE32: none */
    size_t seg;         /* open segment */
} etask;

typedef struct ejob {
    ds_dag dag;
    ds_dag view; /* jobview.c: the DAG as the controller knows it (graph_observed) */
    bool has_view, view_stale;
    etask *t;
    ds_task_status *st;
    ds_task_eval *ev;
    ds_job_summary sum; /* job-level figures for the order across jobs */
    double arrival, deadline;
    int32_t priority;
    bool upfront;
    bool stale; /* a task changed state since the job's last evaluation */
    uint32_t n_done;
    uint32_t active_pos;
    uint32_t tenant; /* its namespace (tenants.c) */
} ejob;

typedef struct running_ref {
    uint32_t job, task;
} running_ref;

typedef struct prio_count {
    int32_t prio;
    uint32_t count;
} prio_count;

/* Room held for an upcoming task (holds.c): the node its upstream task `from` freed, its share of
 * that room (ds_upcoming_share), until when. */
typedef struct sim_hold {
    uint32_t job, task, from, node;
    ds_res held;
    double until;
} sim_hold;

typedef struct engine {
    const sim_workload *w;
    const sim_config *c;
    const sim_policy_desc *p;
    sim_result *r;
    ds_err *err;

    size_t n_nodes;
    sim_node_state *nodes;
    /* Component-wise maximum of the nodes' free room (a request above it fits no node), kept
     * while no pod starts or stops (free_max_stale). */
    ds_res free_max;
    bool free_max_stale;
    unsigned char *allowed;
    double max_speed;
    ds_res used_total;

    ejob **jobs; /* by workload index; NULL when not in the system */
    uint32_t *active;
    size_t n_active;
    size_t next_arrival;
    size_t jobs_done;

    running_ref *running;
    size_t n_running, cap_running;
    prio_count prios[MAX_PRIO_LEVELS]; /* running pods per priority value */
    size_t n_prios;

    sim_wqueue q; /* kube-scheduler's queue */
    /* Its unschedulable pool (kqueue.c) and whether a pod left a node since the last move. */
    running_ref *unsched;
    size_t n_unsched, cap_unsched;
    uint32_t *unpark; /* scratch of sim_kq_pods_freed: queue handles, cap_unpark of them */
    size_t cap_unpark;
    bool pods_freed;
    /* kube-scheduler's scheduling cycle (sched_cycle_s): busy until sched_free_at; a SCHED event
     * is in the heap for it. */
    double sched_free_at;
    bool sched_pending;
    sim_evheap h;
    uint64_t seq;
    double now, last_t;
    bool epoch_pending;

    /* Recent evictions (anti-thrash limits of lib/evict_budget.h): DSP evictions name their node,
     * kube-style ones count for the minute only. */
    ds_evict_mark *evicts;
    size_t n_evicts, evicts_cap;

    ds_order_params order; /* spec.order: the controller's release order, or the queue's */

    /* The admission gate and the controller (release.c; policies with `gated`). */
    sim_wqueue gq;         /* GATED tasks in the controller's order */
    sim_wqueue rq;         /* GATED, RELEASING and QUEUED tasks by DSP priority (criticality) */
    running_ref *inflight; /* RELEASING tasks, in the order they were released */
    size_t n_inflight, cap_inflight;
    double last_round;  /* time of the last controller round */
    double writes_done; /* when the last round's release writes are done (release_cost_s) */
    bool round_wanted;  /* something changed since the last round */
    bool round_pending; /* a ROUND event is in the heap */
    bool gate_limited;  /* the last round held ready tasks at maxConcurrentReleases */
    bool has_gangs;     /* a job with gangs arrived (release.c decides the whole gated queue) */

    /* Tenants (tenants.c): the jobs' namespaces, and the requests of each one's running pods. */
    char **tenant_name;
    ds_res *tenant_used;
    size_t n_tenants, cap_tenants;
    ds_strmap tenant_ix; /* name -> index; keys are tenant_name's strings */

    /* Room held for upcoming tasks (holds.c; gated policies), and the nodes a pod may use
     * beside them (scratch of sim_hold_mask). */
    sim_hold *holds;
    size_t n_holds, cap_holds;
    unsigned char *hold_allowed;

    /* scratch */
    uint32_t *handles;
    size_t cap_handles;
} engine;

/* engine.c */
int sim_eng_oom(engine *e, const char *what);
int sim_eng_enqueue(engine *e, uint32_t job, uint32_t task); /* into kube-scheduler's queue */
int sim_eng_evaluate_job(engine *e, ejob *j);
int sim_eng_grow_handles(engine *e, size_t n);

/* kqueue.c: kube-scheduler's attempts, back-off and unschedulable pool */
int sim_kq_init(engine *e);
void sim_kq_free(engine *e);
/* The back-off after `attempts` failed attempts. */
double sim_kq_backoff(const sim_config *c, unsigned attempts);
/* A pod entered kube-scheduler's queue (a new pod: no attempts yet), active. */
void sim_kq_entered(engine *e, etask *t);
/* A queued pod leaves the queue (bound). */
void sim_kq_left(engine *e, etask *t);
/* The scheduling pass tried the pod and no node had room: unschedulable. */
int sim_kq_failed(engine *e, uint32_t job, uint32_t task);
/* After a pod left a node (pods_freed): the unschedulable pods back off or become active. */
int sim_kq_pods_freed(engine *e);
int sim_kq_backoff_done(engine *e, const sim_event *ev);    /* SIM_EV_BACKOFF */
int sim_kq_unsched_timeout(engine *e, const sim_event *ev); /* SIM_EV_UNSCHED_TIMEOUT */

/* holds.c: room held for upcoming tasks (lib/upcoming.h, lib/room_hold.h) */
/* Task `task` of job `job` became ready when its upstream task `from` ended on `node`: with a
 * deadline (and a gated policy), its share of the room `from` freed there is held for it (the
 * next tasks of `from`, in the order they are added, share it). 0, or -1 when out of memory. */
int sim_hold_add(engine *e, uint32_t job, uint32_t task, uint32_t from, uint32_t node);
/* A member of a gang released on `node` (its planned node) holds its request's room there for
 * for_s seconds, until it binds. 0, or -1 when out of memory. */
int sim_hold_gang(engine *e, uint32_t job, uint32_t task, uint32_t node, double for_s);
/* Does the task hold room now (its pod exists, is not bound, its hold has not run out)? */
bool sim_hold_upcoming(const engine *e, uint32_t job, uint32_t task);
/* Does the extender refuse `node`, whose free room is free_, to a pod of job `job` requesting
 * req, because it fits there only in room held for another job's task? */
bool sim_hold_refuses(engine *e, uint32_t node, uint32_t job, const ds_res *req,
                      const ds_res *free_);
/* Drop the holds that will apply to no one any more (once per scheduling attempt and round). */
void sim_holds_prune(engine *e);
void sim_holds_free(engine *e);

/* jobview.c: the DAG of a job as the controller and the extender know it */
bool sim_view_observed(const engine *e, const ejob *j);
/* The task's pod was created: it is known from now on. */
void sim_view_known(engine *e, ejob *j, uint32_t task);
/* The DAG to evaluate the job on (the full DAG, or the view); NULL with e->err set on failure. */
const ds_dag *sim_view_dag(engine *e, ejob *j);
/* Is the task unknown to the controller (no pod yet, in an observed view)? */
bool sim_view_unknown(const engine *e, const ejob *j, uint32_t task);
void sim_view_free(ejob *j);

/* tenants.c */
int sim_tenants_init(engine *e);
void sim_tenants_free(engine *e);
/* The index of namespace ns among the tenants, added when new. */
int sim_tenant_of(engine *e, const char *ns, uint32_t *out);
/* A pod of the tenant starts (add) or stops running. */
void sim_tenant_use(engine *e, uint32_t tenant, const ds_res *request, bool add);
/* Copy the tenants' names into the run's result. */
int sim_tenants_result(engine *e);

/* release.c */
int sim_gate_init(engine *e);
void sim_gate_free(engine *e);
/* A task of a gated policy is ready (its upstream tasks succeeded) and its pod carries the gate:
 * it waits for a controller round. */
int sim_gate_ready(engine *e, uint32_t job, uint32_t task);
/* The task leaves the waiting set (it starts to run). */
void sim_gate_started(engine *e, etask *t);
/* Re-key the gated tasks and the waiting rank after every job was evaluated (an epoch). */
int sim_gate_rekey_all(engine *e);
/* After the events of an instant: schedule a controller round when one is wanted. */
int sim_gate_schedule_round(engine *e);
/* SIM_EV_ROUND: one controller round (lib/admit.h decides what to release). */
int sim_gate_round(engine *e);
/* SIM_EV_RELEASE: a release takes effect; the pod enters kube-scheduler's queue. */
int sim_gate_release_arrives(engine *e, const sim_event *ev);
/* The extender's criticality of a waiting task: 1 - (waiting tasks of strictly higher DSP
 * priority) / (waiting - 1), as ds_jobset_wait_rank. */
double sim_gate_criticality(const engine *e, double priority);

#endif
