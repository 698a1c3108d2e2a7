/* victim.h: DSP Algorithm 1 (task preemption with normalised priorities) as a pure function.
 *
 * Given the waiting tasks, the running tasks, each node's free resources and the preemption
 * parameters, decide which running pods to evict for which waiting pods, and why. The caller (the
 * controller, the simulator, the extender's preempt verb) turns decisions into actions. */
#ifndef DAGSCHED_VICTIM_H
#define DAGSCHED_VICTIM_H

#include <stdbool.h>
#include <stddef.h>

#include "dag.h"
#include "dsp.h"
#include "ds_error.h"
#include "job_room.h"
#include "resources.h"

#define DS_NO_TASK ((size_t)-1)

/* How the priority gap of a (preemptor, victim) pair is normalised before it is compared with rho
 * (docs/model.md, "Preemption"). */
typedef enum ds_gap_norm {
    DS_NORM_PAPER = 0, /* DSP: P_hat / P_bar, P_bar = (P_max - P_min) / (n - 1) over all tasks */
    DS_NORM_RATIO = 1, /* P_A / P_B: depends on the pair alone */
} ds_gap_norm;

typedef struct ds_preempt_params {
    double epsilon_s; /* urgent when t_allow <= epsilon (or by forecast: ds_task_urgent); 30 */
    double epoch_s;   /* preemptable only when t_allow > epoch; default 10 */
    double delta;     /* fraction of waiting tasks (by priority) tried; default 0.35 */
    double rho;       /* normalised gap threshold, 0 or > 1; default 1.5 (0: DSP w/o PP) */
    /* P_bar / 2 of the population above (ds_pbar_acc), when the caller knows it (pbar_given);
     * otherwise computed over the waiting and running tasks passed to ds_select_victims. */
    bool pbar_given;
    double pbar_half;
    ds_gap_norm norm; /* how the gap is normalised; the policy's default is DS_NORM_PAPER */
    bool payoff; /* evict only when it pays (ds_eviction_pays, with the wait of lib/room.h); the
                  * policy's default is true */
    bool queue_order;      /* a victim comes after its preemptor in the order across jobs
                            * (ds_victim_after); the policy's default is true */
    bool deadline_victims; /* tasks with a deadline (t_allow_s finite) may be victims; the
                            * policy's default is false */
    /* A victim is a long task when it ran and has left at least this long (ran_s + t_rem_s);
     * at most one long task is evicted per node while ds_node_free.long_evicted (Dice). 0:
     * no task is long. The policy's default is 600. */
    double long_task_s;
    /* With one victim per preemptor, victims whose dominant resource (on their node's capacity)
     * is the one the preemptor lacks most there come first (3DSF); the policy's default is
     * true. */
    bool same_resource_first;
    double tau_s;     /* starvation guard on waiting time; 0 = off (default) */
    double min_run_s; /* a victim must have run this long; default 60 */
    /* The time from room on a node to the preemptor running there (release, kube-scheduler's
     * queue and back-off, bind, start): taken off the preemptor's slack in the savable and
     * exchange rules (ds_preemptor_slack_on); default 5. */
    double start_latency_s;
    /* With payoff: a task preempts only when the blocked tasks of its job can still get room in
     * time (lib/job_room.h); the policy's default is false. */
    bool job_room;
    size_t max_victims_per_preemptor; /* victims evicted on one node for one preemptor; default 1 */
    size_t max_evictions; /* total decisions in one call (the caller's remaining budget) */
} ds_preempt_params;

/* A job's DAG, so that condition C2 (never evict an ancestor of the preemptor) can be checked. */
typedef struct ds_waiting_task {
    size_t job;  /* index into the jobs array; DS_NO_TASK when not part of a DAG */
    size_t task; /* index of the task in that job's DAG */
    double priority;
    double t_allow_s; /* INFINITY without deadline */
    double t_wait_s;
    double t_rem_s; /* remaining run time at reference speed; 0 when unknown */
    ds_res request;
    double order[2]; /* its job's figures in the order across jobs (ds_order_job_figures) */
    /* The requests of the waiting tasks before it in the queue order, summed: they take the room
     * that frees before it gets any (lib/room.h). Zero when the caller does not know. */
    ds_res ahead;
    /* Of `ahead`, the requests of the tasks that wait at dagsched's gate (not yet in
     * kube-scheduler's queue): for the exchange rule's wait (ds_room_saved_wait). Zero when the
     * caller does not know: all of `ahead` then counts as queued. */
    ds_res ahead_gated;
    /* The job rule (lib/job_room.h, spec.preemption.jobRoom): its DAG level and what the blocked
     * tasks of its job need, by level (ds_job_level_needs); n_job_needs 0 when the caller does
     * not know or the job has no blocked task with a deadline. */
    int level;
    const ds_level_need *job_needs;
    size_t n_job_needs;
    /* The job deadline rule (ds_job_savable, with payoff): its job's slack (deadline - now - the
     * remaining critical path at reference speed: ds_job_summary.slack_s, INFINITY without a
     * deadline) and that path. job_known false when the caller does not know: not judged. */
    bool job_known;
    double job_slack_s;
    double job_path_s;
    size_t job_steps; /* the tasks on that path (ds_job_summary.remaining_steps) */
} ds_waiting_task;

typedef struct ds_running_task {
    size_t job;
    size_t task;
    double priority;
    double t_allow_s;
    double ran_s;   /* time since it started */
    double t_rem_s; /* remaining run time on its node (DSP's t_rem of a running task); 0 when
                     * unknown: no exchange test */
    ds_res request;
    size_t node;     /* index into the nodes array */
    bool evictable;  /* opted in, not protected, its disruption budget allows an eviction */
    double order[2]; /* its job's figures in the order across jobs (ds_order_job_figures) */
} ds_running_task;

typedef struct ds_node_free {
    ds_res free_;          /* allocatable minus requests of running pods */
    size_t evictions_left; /* per-node budget for this call */
    double speed;          /* the node's rate g(k); 0 = 1.0 (lib/preempt_rules.h, savable) */
    ds_res capacity;       /* allocatable, for the dominant resources (zero: unknown) */
    bool long_evicted;     /* a long task was evicted here within the window: no other now */
} ds_node_free;

typedef enum {
    DS_REASON_URGENT = 0, /* urgent preemptor (ds_task_urgent: t_allow <= epsilon or forecast) */
    DS_REASON_STARVATION, /* preemptor waited longer than tau */
    DS_REASON_PRIORITY,   /* normalised priority gap above rho */
} ds_preempt_reason;

typedef struct ds_decision {
    size_t waiting; /* index into the waiting array: the preemptor */
    size_t running; /* index into the running array: the victim */
    size_t node;
    ds_preempt_reason reason;
    double gap;            /* P_hat = P_A - P_B */
    double normalised_gap; /* P_hat / P_bar (INFINITY when P_bar = 0) */
    /* DS_REASON_URGENT: the preemptor's forecast wait for room without evictions, as the call
     * began (lib/room.h; INFINITY: the known ends never free enough room; not a number when not
     * forecast: its slack was within epsilon). Not a number for the other reasons. */
    double room_wait_s;
} ds_decision;

/* Run Algorithm 1. `jobs` has n_jobs DAGs (may be NULL when n_jobs is 0). A preemptor makes room
 * only on a node where it can still meet its deadline if it starts now (ds_preemptor_savable with
 * its t_allow_s, t_rem_s and the node's speed): a passed deadline preempts nothing. Among nodes
 * where equally good plans make room (same highest victim priority, same number of victims), the
 * node with the lower index wins: a caller expresses a preference between nodes (e.g. faster ones
 * first) by their order in `nodes`. Decisions go to out
 * (capacity out_cap; a preemptor with several victims produces one decision per victim, all with
 * the same node). Returns the number of decisions, or -1 with err set on invalid input / allocation
 * failure. Inputs are not modified. */
long ds_select_victims(const ds_waiting_task *waiting, size_t n_waiting,
                       const ds_running_task *running, size_t n_running, const ds_node_free *nodes,
                       size_t n_nodes, const ds_dag *const *jobs, size_t n_jobs,
                       const ds_preempt_params *p, ds_decision *out, size_t out_cap, ds_err *err);

const char *ds_reason_name(ds_preempt_reason r); /* "urgent", "starvation", "priority" */

/* Predicates of Algorithm 1, shared with the extender's preempt verb (lib/placement.h). */

/* Why a running task may or may not be evicted, in the order checked. */
typedef enum {
    DS_PREEMPTABLE = 0,
    DS_NOT_EVICTABLE,    /* not opted in, protected, or its disruption budget forbids it */
    DS_TOO_YOUNG,        /* ran less than min_run_s */
    DS_TOO_LITTLE_SLACK, /* t_allow <= epoch: it cannot afford to be delayed one epoch */
    DS_HAS_DEADLINE,     /* it has a deadline and p->deadline_victims is false */
} ds_preemptable_status;

/* Is a running task long (p->long_task_s, Dice)? */
bool ds_running_is_long(const ds_running_task *b, const ds_preempt_params *p);

/* The dominant resource of x on a node of this capacity: the kind with the largest share
 * x[k] / capacity[k]; -1 when no kind has a positive share (or the capacity is unknown). */
int ds_dominant_resource(const ds_res *x, const ds_res *capacity);

ds_preemptable_status ds_running_preemptable(const ds_running_task *b, const ds_preempt_params *p);

/* P_bar / 2 for n priorities spanning pmin..pmax: (pmax - pmin) / (n - 1) / 2, 0 when n < 2.
 * Halved so that gaps between huge finite priorities never overflow. */
double ds_pbar_half(double pmin, double pmax, size_t n);

/* The population of the paper's P_bar, one definition for the controller, the extender and the
 * simulator: the DSP priorities of every task of a valid DAG job that is waiting (runnable, not
 * running) or running, whether or not a pod of it exists yet or kube-scheduler has tried it.
 * Accumulate job by job, then read P_bar / 2. */
typedef struct ds_pbar_acc {
    double pmin, pmax;
    size_t n;
} ds_pbar_acc;

void ds_pbar_acc_init(ds_pbar_acc *acc);

/* Add the waiting and running tasks among a job's n tasks (status and DSP evaluation per task);
 * non-finite priorities are skipped. */
void ds_pbar_acc_add_job(ds_pbar_acc *acc, const ds_task_status *st, const ds_task_eval *ev,
                         size_t n);

double ds_pbar_acc_half(const ds_pbar_acc *acc); /* ds_pbar_half over the tasks added */

/* The normalised-gap test: P_hat = pa - pb > 0 and (rho = 0 or (P_bar > 0 and P_hat / P_bar >
 * rho)). */
bool ds_gap_passes(double pa, double pb, double pbar_half, double rho);

/* P_hat / P_bar (INFINITY when P_bar = 0). */
double ds_normalised_gap(double pa, double pb, double pbar_half);

/* The pair test under the parameters' normalisation: with DS_NORM_PAPER ds_gap_passes; with
 * DS_NORM_RATIO P_A > P_B and (rho = 0, or P_B <= 0, or P_A / P_B > rho). The ratio test reads
 * nothing but the pair, so no task joining or leaving the cluster changes its answer. */
bool ds_pair_gap_passes(const ds_preempt_params *p, double pa, double pb, double pbar_half);

/* The normalised gap reported with a decision: P_hat / P_bar (paper) or P_A / P_B (ratio;
 * INFINITY when P_B <= 0). */
double ds_pair_normalised_gap(const ds_preempt_params *p, double pa, double pb, double pbar_half);

const char *ds_gap_norm_name(ds_gap_norm n); /* "paper", "ratio" */

/* Parse "paper" or "ratio"; -1 otherwise. */
int ds_gap_norm_parse(const char *s, ds_gap_norm *out);

/* How many waiting tasks (the first by priority) may preempt on priority: ceil(delta * n). */
size_t ds_delta_count(double delta, size_t n_waiting);

#endif
