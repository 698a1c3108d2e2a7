/* release.h: which held-back DAG tasks to release now, which stay held and why, and which pods to
 * nudge, as a pure function over the controller's view.
 *
 * A task is held back either by the dagsched.io/dependencies scheduling gate on its pod or by its
 * batch/v1 Job being suspended. It is ready when the job model says all its upstream tasks have
 * succeeded (task state WAITING). Ready tasks are taken in the policy's queue order
 * (spec.order, lib/joborder.h), then highest DSP priority first (then the oldest, then by
 * namespace/name), and decided by the release rule of lib/admit.h (spec.release.admission):
 *
 *  - capacity (the default): against each node's free room (allocatable minus the requests of
 *    the pods bound to it; schedulable nodes only), taking first the room of the pending pods
 *    already in kube-scheduler's queue (highest Kubernetes priority, then the oldest, first, as
 *    kube-scheduler pops them). A task released by dagsched (a pending DAG task, an unsuspended
 *    Job without pods) counts under maxConcurrentReleases and, when it fits nowhere, uses a
 *    look-ahead slot; any other pending pod only takes room. Pods with scheduling gates of
 *    others are not in kube-scheduler's queue and take nothing. Which nodes a task may use:
 *    ctl_guard_node_eligible (spec.nodeSelector, required node affinity, taints it does not
 *    tolerate); a suspended Job: every schedulable node without such taints, with the request of
 *    one pod of its template. A task past spec.order.starvationThreshold is starving.
 *    Upcoming tasks (lib/upcoming.h: a deadline job's task that just became ready owns the room
 *    its upstream tasks freed) are decided first, before the pods in kube-scheduler's queue: a
 *    gated one is released when it fits, one whose pod does not exist yet keeps the room.
 *  - all: every ready task, up to maxConcurrentReleases (as before capacity admission).
 *
 * With spec.fairness (ctl_release_in.fairness), the ready tasks are decided in the fair queue's
 * order across tenants (lib/admit.h, lib/fairshare.h; tenants.h): each tenant's use is the
 * requests of its bound pods and of its tasks released and not bound yet, what the round
 * releases is charged to its tenant at once, and a task whose tenant is above its fair share (or
 * would pass its cap) may wait for that reason.
 *
 * Gang release (lib/gang.h): the gated pods labelled dagsched.io/gang and dagsched.io/gang-size
 * are grouped into gangs by job and name (ds_gang_tally; pods of one task are one member). A
 * gang that has started (a member released before) puts no constraint on its members; the ready
 * members of the other gangs are decided together by the release rule (all released in this
 * round, or none); the ready members of an invalid gang, and a pod whose gang labels are
 * malformed, are held with the reason (gang).
 *
 * Every gated task that stays held gets a reason (ctl_wait): its upstream tasks have not all
 * succeeded, no room, behind a starving task, maxConcurrentReleases, its job is invalid right
 * now, or its gang (members missing, room for some only, invalid). ctl_wait_message says it in
 * words for users (dagsched.io/waiting-reason, Event Waiting).
 *
 * A pod outside every valid DAG job (its dagsched metadata cannot be used, ctl_pod.dagsched_error;
 * or it has no task in a valid job: no dagsched.io/job label, a pod error, an invalid job) is
 * never held: when it carries the gate (its author's or the admission webhook's, which gates every
 * pod of the dagsched scheduler), the gate is removed at once (ungate). A task whose job the
 * round defers (ctl_task_info.deferred: --max-graph-tasks-per-round) is left as it is: neither
 * released, held with a reason, ungated nor nudged; released and not yet bound, it counts in
 * flight.
 *
 * A pod that kube-scheduler found unschedulable (the extender rejects pods whose upstream tasks
 * have not succeeded) and whose upstream tasks have all succeeded since is nudged once per
 * unschedulable episode: the controller updates an annotation, which makes kube-scheduler retry
 * it at once instead of after its back-off. */
#ifndef DAGSCHED_CONTROLLER_RELEASE_H
#define DAGSCHED_CONTROLLER_RELEASE_H

#include <stdbool.h>
#include <stddef.h>

#include "admit.h"
#include "ds_error.h"
#include "gang.h"
#include "jobmodel.h"
#include "tenants.h"
#include "view.h"

/* CTL_RELEASE_UPCOMING: a ready task whose pod is still to come (lib/upcoming.h): it takes its
 * place in the order and keeps the room it fits, but is neither released nor held. */
typedef enum ctl_release_kind {
    CTL_RELEASE_POD = 0,
    CTL_RELEASE_JOB,
    CTL_RELEASE_UPCOMING
} ctl_release_kind;

/* A task released now: RELEASED (room taken on r.node, or SIZE_MAX under admission all) or
 * LOOKAHEAD. */
typedef struct ctl_release {
    ctl_release_kind kind;
    size_t idx; /* into pods or jobs */
    double priority;
    ds_admit_result r;
    /* A gang member released on a planned node: that node's name (borrowed from the input), the
     * room to hold for it (DS_GANG_HOLD_S); NULL otherwise. */
    const char *hold_node;
} ctl_release;

/* Why a held task waits. */
typedef enum ctl_wait_reason {
    CTL_WAIT_UPSTREAM = 0, /* upstream tasks have not all succeeded */
    CTL_WAIT_NO_ROOM,      /* ready, fits no node's free room, no look-ahead slot left */
    CTL_WAIT_STARVING,     /* ready, the room it could use is kept for a starving task ahead */
    CTL_WAIT_LIMIT,        /* ready, maxConcurrentReleases tasks released and not yet running */
    CTL_WAIT_INVALID_JOB,  /* its job is invalid right now (InvalidJobGraph says why) */
    CTL_WAIT_UNLISTED,     /* an Argo pod whose node the Workflow does not list yet */
    CTL_WAIT_FAIR_SHARE,   /* ready, its tenant is above its fair share or would pass its cap */
    CTL_WAIT_GANG,         /* ready, its gang lacks members or room for all, or is invalid */
    CTL_WAIT_N,
} ctl_wait_reason;

/* "upstream", "no-room", "behind-starving", "limit", "invalid-job", "argo-unlisted",
 * "fair-share" (metric labels). */
const char *ctl_wait_reason_name(ctl_wait_reason r);

#define CTL_GANG_WHY_MAX 200

typedef struct ctl_wait {
    ctl_release_kind kind;
    size_t idx; /* into pods or jobs */
    ctl_wait_reason reason;
    ds_admit_result r;             /* NO_ROOM, STARVING, LIMIT, FAIR_SHARE: the rule's result */
    ctl_release_kind blocker_kind; /* STARVING: the starving task */
    size_t blocker_idx;
    const char *tenant; /* FAIR_SHARE: its tenant (borrowed from the view) */
    /* GANG: the member's gang (in ctl_release_out.gangs), NULL when its gang labels are
     * malformed */
    const struct ctl_gang *gang;
} ctl_wait;

/* An upcoming task (lib/upcoming.h) as the release rule sees it: with a pod (a gated task whose
 * upstream tasks just freed room), its pod is decided first (lib/admit.h, step 0); without one,
 * the room it fits is kept. */
typedef struct ctl_upcoming {
    size_t pod;         /* its pod in the view, SIZE_MAX when none yet */
    ds_res request;     /* without a pod: as its template states it */
    double priority;    /* DSP priority; -INFINITY when unknown */
    size_t queue_pos;   /* place in the queue order (spec.order); SIZE_MAX when unknown */
    double ready_since; /* when it became ready */
    const char *ns, *job_name, *task_name;
} ctl_upcoming;

/* Room kept for an upcoming task on node `node` (an index into the view's nodes). */
typedef struct ctl_kept {
    size_t idx; /* into ctl_release_in.upcoming */
    size_t node;
} ctl_kept;

typedef struct ctl_release_in {
    const ctl_pod *pods;
    size_t n_pods;
    const ctl_batch_job *jobs;
    size_t n_jobs;
    const ctl_node *nodes;
    size_t n_nodes;
    /* The job model's jobs (their DAGs and task states), for the names of unfinished upstream
     * tasks in reasons; NULL: reasons name none. */
    const ds_job *model;
    size_t n_model;
    ds_admit_mode admission;
    size_t lookahead;
    size_t hold_room;      /* spec.release.holdRoom (lib/admit.h) */
    size_t max_concurrent; /* 0: unlimited */
    double starvation_s;   /* spec.order.starvationThreshold; 0: no task is starving */
    /* Room held for preemptors on each node (reserve.h, ctl_reserved_room; n_nodes entries in
     * the order of nodes, NULL: none): not free for releases. */
    const ds_res *reserved;
    /* Upcoming tasks (NULL: none), under admission capacity only: decided before the tasks in
     * flight and the other ready tasks (in the queue order among themselves); those without a
     * pod keep the room they fit (lib/admit.h, step 0). */
    const ctl_upcoming *upcoming;
    size_t n_upcoming;
    /* spec.fairness (NULL, or not enabled: off), and the namespaces whose labels name the
     * tenants (sorted by name; NULL: none known, a tenant is then a namespace). */
    const ctl_fairness *fairness;
    const ctl_namespace *namespaces;
    size_t n_namespaces;
} ctl_release_in;

/* A tenant of the round with fairness on: one with DAG tasks (held, ready, or running). */
typedef struct ctl_tenant_share {
    const char *name; /* borrowed from the view */
    double share;     /* dominant share of its bound pods as the round began */
    double weight;
    size_t held; /* its ready tasks held for fair share (CTL_WAIT_FAIR_SHARE) */
} ctl_tenant_share;

/* A gang of the round (lib/gang.h): its members' state, the pod of its first member (for the
 * GangTimeout Event), and whether it waits: not started and not released by this round. */
struct ctl_gang {
    ds_gang g;
    size_t pod;
    bool waiting;
    char why[CTL_GANG_WHY_MAX]; /* waiting: the reason of its first member held ("" unknown) */
};
typedef struct ctl_gang ctl_gang;

typedef struct ctl_release_out {
    ctl_release *rel; /* to release now, in order */
    size_t n_rel;
    ctl_wait *wait; /* gated pods and suspended Jobs held, ready ones first in queue order */
    size_t n_wait;
    size_t by_reason[CTL_WAIT_N];
    size_t *nudge; /* pod indexes to nudge */
    size_t n_nudge;
    size_t *ungate; /* pods outside any DAG job whose gate is to be removed */
    size_t n_ungate;
    size_t n_ready;   /* tasks ready to be released */
    size_t in_flight; /* released tasks not bound yet (what maxConcurrentReleases counts) */
    size_t n_held;    /* ready tasks held back */
    ctl_kept *kept;   /* upcoming tasks the room they fit was kept for */
    size_t n_kept;
    ctl_tenant_share *tenants; /* with fairness: the tenants with DAG tasks, by name */
    size_t n_tenants;
    ctl_gang *gangs; /* the gangs of the round's pods, by job then name */
    size_t n_gangs;
    size_t gangs_waiting;
} ctl_release_out;

int ctl_release_plan(const ctl_release_in *in, ctl_release_out *out, ds_err *err);
void ctl_release_out_free(ctl_release_out *out);

/* The reason in words, for the dagsched.io/waiting-reason annotation and the Waiting Event:
 *   upstream       "waiting for upstream tasks: a, b, c (+2 more)" (unfinished ones, at most
 *                  CTL_WAIT_MAX_NAMES names; "waiting for upstream tasks" without the model)
 *   no-room, behind-starving, limit   ds_admit_describe's text ("no room: needs cpu 2; most free
 *                  room on node n3: cpu 1500m", "behind starving task ns/pod, which waits for
 *                  room on node n3", "maxConcurrentReleases (4) tasks released and not yet
 *                  running")
 *   invalid-job    "its job is invalid right now (see the InvalidJobGraph Event)"
 *   fair-share     ds_admit_describe's text ("tenant team-a is above its fair share (dominant
 *                  share 0.75, fair share 0.50): needs cpu 1; most free room on node n1: cpu 0")
 *   gang           "gang workers: 5 of 8 members ready", "gang workers: room for 3 of 8
 *                  members", "gang workers is invalid: ...", "gang labels are invalid: ..."
 * Always NUL-terminated (size > 0). */
#define CTL_WAIT_MAX_NAMES 5
void ctl_wait_message(const ctl_release_in *in, const ctl_wait *w, char *buf, size_t size);

/* Which reason a dagsched.io/waiting-reason value written by ctl_wait_message states (by its
 * first words), or CTL_WAIT_N for anything else ("" included). */
ctl_wait_reason ctl_wait_reason_of(const char *message);

/* Pacing of dagsched.io/waiting-reason updates on a held pod whose annotation holds `current`
 * ("" when absent) and should say `want` (for reason `reason`): nothing when they are equal; at
 * once when the reason changes (or there was none), and then *changed is set (the caller posts
 * the Waiting Event); when only the details change (the free room, the upstream tasks left), at
 * most every CTL_WAIT_UPDATE_EVERY_S after the last update (`last`, < 0: none known). */
#define CTL_WAIT_UPDATE_EVERY_S 120.0
bool ctl_wait_due(const char *current, const char *want, ctl_wait_reason reason, double last,
                  double now, bool *changed);

/* The words for a release: "fits on node n3" or "released ahead of room (look-ahead): ..."
 * (ds_admit_describe), "" under admission all. */
void ctl_release_message(const ctl_release_in *in, const ctl_release *r, char *buf, size_t size);

#endif
