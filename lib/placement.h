/* placement.h: the per-pod placement decisions of the scheduler extender (also used by the
 * simulator): filter verdicts per node, prioritize scores per node, and the DSP preemption rules
 * applied to the victims kube-scheduler proposes on each node.
 *
 * Pure functions over a view the caller builds: the pod (its request, reference runtime, level
 * deadline and criticality), the candidate nodes (allocatable, requested, speed; NULL for a node
 * the caller does not know) and, for preemption, the running tasks proposed as victims. The job
 * DAG questions (is a task blocked by upstream tasks, its priority, its level deadline) are
 * answered before by the job model (lib/dsp.h, lib/dag.h). See docs/extender.md, "Rules". */
#ifndef DAGSCHED_PLACEMENT_H
#define DAGSCHED_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>

#include "dag.h"
#include "ds_error.h"
#include "dsp.h"
#include "resources.h"
#include "sailfish.h"
#include "preempt_rules.h"
#include "victim.h"

/* The pod being placed. */
typedef struct ds_place_pod {
    ds_res request;
    double runtime_s;      /* reference (speed 1.0) runtime; 0 when unknown: no deadline test */
    double level_deadline; /* absolute seconds; INFINITY when the task has none */
    double criticality;    /* 0..1: preference for fast nodes (0 outside any DAG) */
} ds_place_pod;

typedef enum {
    DS_NODE_OK = 0,
    DS_NODE_UNKNOWN,  /* the caller does not know the node: passed through, never rejected */
    DS_NODE_NO_FIT,   /* the request does not fit the node's free resources */
    DS_NODE_TOO_SLOW, /* would miss the level deadline while another fitting node would not */
} ds_node_verdict;

/* Does a verdict let the node through the filter? */
bool ds_node_verdict_passes(ds_node_verdict v);

/* Filter: one verdict per node (out has n entries); returns the number of nodes that pass.
 * - A node the request does not fit (ds_node_fits) is DS_NODE_NO_FIT.
 * - With reject_late, a fitting node on which now + runtime / speed > level deadline is
 *   DS_NODE_TOO_SLOW, but only when at least one fitting node can finish in time; when none can,
 *   every fitting node passes (the task runs late rather than not at all).
 * - A NULL node is DS_NODE_UNKNOWN and passes. */
size_t ds_place_filter(const ds_place_pod *pod, const ds_node_view *const *nodes, size_t n,
                       double now, bool reject_late, ds_node_verdict *out);

/* The first resource kind (DS_RES_*) the node lacks for the request, or -1 when it fits. */
int ds_place_shortfall(const ds_res *request, const ds_node_view *node);

/* Absolute time at which the pod would finish on the node if started at `now` (INFINITY when the
 * node's speed is not positive). */
double ds_place_finish_time(const ds_place_pod *pod, const ds_node_view *node, double now);

/* Prioritize: a score 0..10 per node (ds_score_node with the pod's criticality and the fastest
 * node's rate max_speed); 0 for NULL (unknown) nodes and nodes the request does not fit.
 * Deterministic. */
void ds_place_prioritize(const ds_place_pod *pod, const ds_node_view *const *nodes, size_t n,
                         double max_speed, const ds_pack_params *p, int *scores);

/* The preemptor: its task (job/task = DS_NO_TASK outside a DAG, priority, t_allow, t_wait,
 * request) and its rank among the waiting tasks by descending priority. */
typedef struct ds_place_preemptor {
    ds_waiting_task task;
    size_t rank;      /* 0 = highest priority waiting task */
    size_t n_waiting; /* waiting tasks ranked */
    /* When room frees anyway for its request on some node (lib/room.h), when the caller knows:
     * room_known and room_wait_s (INFINITY: never, as far as the known ends go). */
    bool room_known;
    double room_wait_s;
    /* With room_known: the wait an eviction saves it (ds_room_saved_wait: room_wait_s, or not a
     * number when "never" comes only from the tasks ahead at dagsched's gate). */
    double room_saved_s;
    /* The fastest node's rate, for the job deadline rule (task.job_known; <= 0: 1.0). */
    double fastest_speed;
} ds_place_preemptor;

typedef enum {
    DS_PREEMPTOR_URGENT = 0, /* ds_task_urgent (lib/preempt_rules.h): no priority-gap test */
    DS_PREEMPTOR_STARVING,   /* tau > 0 and t_wait >= tau: no priority-gap test */
    DS_PREEMPTOR_PRIORITY,   /* within the first delta fraction: victims must pass the gap test */
    DS_PREEMPTOR_OUTSIDE,    /* outside any DAG: DSP priorities do not apply to it */
    DS_PREEMPTOR_BARRED,     /* a DAG task neither urgent, starving nor in the first delta */
} ds_preemptor_mode;

ds_preemptor_mode ds_place_preemptor_mode(const ds_place_preemptor *a, const ds_preempt_params *p);

const char *ds_preemptor_mode_name(ds_preemptor_mode m); /* "urgent", "starving", ... */

typedef enum {
    DS_VICTIM_KEEP = 0,
    DS_VICTIM_UNKNOWN,          /* not known to the caller: never evict what cannot be checked */
    DS_VICTIM_ANCESTOR,         /* an upstream task of the preemptor (condition C2) */
    DS_VICTIM_NOT_EVICTABLE,    /* protected, not opted in */
    DS_VICTIM_TOO_YOUNG,        /* ran less than min_run_s */
    DS_VICTIM_TOO_LITTLE_SLACK, /* t_allow <= epoch */
    DS_VICTIM_PRIORITY_GAP,     /* the normalised priority gap test failed */
    DS_VICTIM_PREEMPTOR_BARRED, /* the preemptor may not preempt at all */
    DS_VICTIM_UNSAVABLE,        /* the preemptor would miss its deadline on this node anyway */
    DS_VICTIM_CROSS_NAMESPACE,  /* the pair rule of lib/preempt_rules.h refuses this victim */
    DS_VICTIM_NO_PAYOFF,        /* evicting it would throw away more than it saves (exchange) */
    DS_VICTIM_QUEUE_ORDER,      /* its job comes before the preemptor's in the order across jobs */
    DS_VICTIM_HAS_DEADLINE,     /* it has a deadline of its own (spec.preemption.deadlineVictims) */
} ds_victim_verdict;

#define DS_VICTIM_VERDICTS (DS_VICTIM_HAS_DEADLINE + 1) /* number of verdicts */

const char *ds_victim_verdict_name(ds_victim_verdict v); /* "keep", "unknown", "ancestor", ... */

/* Apply the preemption rules to the victims proposed on one node.
 * - mode: from ds_place_preemptor_mode. With DS_PREEMPTOR_BARRED every victim is refused.
 * - preemptor_dag: the DAG of the preemptor's job (NULL outside a DAG); a victim of the same job
 *   (victim->job == a->task.job) that is the preemptor itself or one of its ancestors is refused.
 * - victims[i] == NULL is an unknown pod (refused). Every known victim must be preemptable
 *   (ds_running_preemptable); when both preemptor and victim are DAG tasks and the mode is
 *   DS_PREEMPTOR_PRIORITY, the gap test ds_gap_passes(P_A, P_B, pbar_half, rho) must pass too.
 * - node: the node's view with the victims still counted in `requested`. The node stays a
 *   candidate (*keep_node) only when the kept victims (at least one) free enough room for the
 *   preemptor's request.
 * - A DAG preemptor with a deadline that it cannot meet on this node even if it starts now
 *   (ds_preemptor_savable with its t_allow_s, t_rem_s and node->speed) keeps no victim
 *   (DS_VICTIM_UNSAVABLE): a lost deadline is saved by no eviction.
 * - With p->payoff, a DAG preemptor keeps a victim only when the eviction pays
 *   (ds_eviction_pays with its slack on this node, the victim's ran_s and the wait
 *   ds_eviction_wait of the victim's t_rem_s and, when room_known, room_saved_s), else
 *   DS_VICTIM_NO_PAYOFF.
 * - With p->queue_order, a DAG victim of a DAG preemptor must come after it in the order across
 *   jobs (ds_victim_after with both tasks' order figures), else DS_VICTIM_QUEUE_ORDER.
 * - pair: NULL, or for each victim the verdict of ds_preempt_pair_check (who may preempt whom);
 *   a victim whose verdict is not DS_PAIR_OK is refused (DS_VICTIM_CROSS_NAMESPACE).
 * Verdicts go to out (n entries). Returns the number of kept victims, or -1 with err set on
 * allocation failure or an inconsistent input (a victim task index outside the DAG). */
long ds_place_preempt_node(const ds_place_preemptor *a, ds_preemptor_mode mode,
                           const ds_dag *preemptor_dag, const ds_node_view *node,
                           const ds_running_task *const *victims, const ds_pair_reason *pair,
                           size_t n, double pbar_half, const ds_preempt_params *p,
                           ds_victim_verdict *out, bool *keep_node, ds_err *err);

#endif
