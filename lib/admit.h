/* admit.h: release as admission. Which ready tasks to release now (scheduling gate removed,
 * suspended Job resumed), given in queue order, against the free room of the nodes.
 *
 * The caller (the controller, the simulator) orders the ready tasks (joborder.h, then DSP
 * priority), gives each one's request and the nodes it may run on (node selector, required node
 * affinity, taints and tolerations, schedulable nodes only), and the nodes' free room: allocatable
 * minus the requests of the pods bound to them. Tasks released earlier and not bound yet
 * (in-flight) are given too: they take room first. The rule, with admission DS_ADMIT_CAPACITY:
 *
 *  0. Ready tasks marked upcoming or first (lib/upcoming.h: the room their upstream tasks just
 *     freed is theirs; the extender's filter keeps the tasks in flight off it), in queue order
 *     among themselves, take room before the tasks in flight and the other ready tasks:
 *     RELEASED on the best-fitting node when they fit (an upcoming task:
 *     HELD_NO_ROOM otherwise; a first task that does not fit, or meets the max_concurrent
 *     limit, is decided in step 2 with the others).
 *  1. In-flight tasks, in the order given, each take room on one node they may use: the best fit
 *     (below). An in-flight task that fits no node takes no room and uses one look-ahead slot.
 *     In-flight entries marked room_only (pending pods that are no released task: another
 *     scheduler's, a pod outside every DAG job) take room the same way but count neither against
 *     max_concurrent nor the look-ahead.
 *  2. Ready tasks, in queue order. With max_concurrent = N > 0 and N tasks in flight or released
 *     by this call, every remaining task is HELD_LIMIT. Otherwise a task that fits the free room
 *     of a node it may use, not reserved by a starving task ahead of it, is RELEASED and takes
 *     room on the best-fitting such node. A task that fits only nodes reserved by a starving task
 *     ahead of it is HELD_STARVING. A task that fits no node is released as LOOKAHEAD while
 *     look-ahead slots remain (lookahead minus the in-flight tasks that fit no node), unless it
 *     could use (its request within the allocatable of) a node reserved by a starving task ahead
 *     of it: then it is HELD_STARVING. Otherwise it is HELD_NO_ROOM. A task whose request exceeds
 *     the allocatable of every node it may use is HELD_NO_ROOM (never_fits) and uses no slot.
 *     An upcoming task (its pod still to come) keeps the room it took in step 0 from the tasks
 *     behind it; it is never held for the limit and never uses a look-ahead slot. A task that
 *     fits no free room but could use (within allocatable) a node where room went to an
 *     upcoming or first task in step 0 is HELD_NO_ROOM rather than LOOKAHEAD: released ahead of
 *     room, it would take that room the moment it frees.
 *     Held room (params.hold_room = H > 0): of the ready tasks marked may_hold that fit no free
 *     room and could fit a node's allocatable, the first H decided (and not held for fair share)
 *     are HELD_NO_ROOM with room_held: each takes its request from the free room of the node it
 *     may use (not reserved by a starving task ahead) whose allocatable, less the room held
 *     there before, holds it and whose free room comes closest to holding it (least shortfall,
 *     then most free room), below zero where the room is not free yet. The room that frees
 *     there then goes to it (it is released the round it fits) and not to smaller tasks behind
 *     it, which see only the room beyond; those that could use that node are not released as
 *     look-ahead. EASY backfilling's reservation for the head of the queue, for the tasks whose
 *     job can still meet its deadline (the caller marks them): behind a backlog of small tasks,
 *     a larger task otherwise never finds its room free at once.
 *  3. Starvation guard: a task marked starving (the order's starvation threshold, joborder.h)
 *     that is not RELEASED reserves every node it may use whose allocatable could hold it: no
 *     task behind it takes room there, so freed room goes to it. Tasks behind it still start on
 *     the other nodes (backfill).
 *
 * Best fit: among the nodes a task may use whose free room holds the request, the node whose
 * free room left after it, as fractions of the node's allocatable summed over the resource
 * kinds, is least; ties go to the lower node index. Free room may be negative (an over-committed
 * node); nothing with a positive request of that kind fits there. A zero request fits every node.
 *
 * With admission DS_ADMIT_ALL, every ready task is RELEASED (node SIZE_MAX, no room taken) up to
 * max_concurrent: the rule before release as admission.
 *
 * Fair share across tenants (spec.fairness; params.fair given, lib/fairshare.h): the ready tasks
 * of step 2 are decided in the fair queue's order instead of the order given: the starving tasks
 * first (in the order given), then, pick after pick, the next task of the tenant with the lowest
 * weighted dominant share. Each task RELEASED or LOOKAHEAD, in any step, and each counted task in
 * flight is charged to its tenant, so that the next pick sees the shares as they will be. The
 * order within a tenant is the order given. A task fits as before whatever its tenant's share
 * (work-conserving: room nobody else can use goes to whoever fits it), with two exceptions, both
 * HELD_FAIR_SHARE: a task that would take its tenant's dominant share past the tenant's cap (a
 * tenant using nothing may start one task), in every step; and a task that fits no free room
 * (LOOKAHEAD or HELD_NO_ROOM, not never_fits) while its tenant is above its fair share and
 * another tenant has ready tasks: it waits in the gate rather than in kube-scheduler's queue,
 * where it would take the next room that frees before the tenants below their share.
 *
 * Gang release (lib/gang.h; tasks with gang_size > 0 and the same gang id are one gang): a gang
 * is decided as one, when its first member comes in the order of step 2 (the fair queue's with
 * fairness), never in step 0 (its upcoming and first marks are ignored). All its ready members
 * are RELEASED together when there are at least gang_size of them, max_concurrent allows them
 * all (see below) and each of them, in the order given, fits the free room left by the members
 * before it (best fit, the nodes reserved by a starving task ahead skipped); otherwise none of
 * them is: every member is HELD_GANG, with gang_ready < gang_size (members missing) or the
 * members the room was found for (gang_room). A gang whose members are all ready but do not all
 * fit holds room (gang_holds): each member, in the order given, on the node it may use (not
 * reserved by a starving task ahead) whose allocatable, less the members held there before it,
 * holds it and whose free room comes closest to holding it (least shortfall, then most free
 * room); its request is taken from that node's free room, below zero where the room is not free
 * yet, so that the room which frees there goes to the gang, not to the tasks behind it (Volcano's
 * and Kueue's all-or-nothing waits for room the same way; without it, a gang behind work of
 * tasks its members' size never finds its room free at once). The tasks behind it use the room
 * beyond the gang's, and those that could use a node where its room is held are not released as
 * look-ahead (HELD_NO_ROOM, as beside room kept in step 0). A gang whose members cannot all be
 * placed on the nodes' allocatable holds nothing (its room is left to the tasks behind it; the
 * gang timeout reports it). Members are never released as look-ahead (their room must be planned),
 * and a starving member reserves no node. max_concurrent: the members count together; a gang is
 * held for the limit (HELD_LIMIT, every member) when the tasks in flight and its members would pass
 * it, unless nothing is in flight (a gang larger than the limit starts alone); while it is held for
 * the limit, the tasks behind it are too, so that the tasks in flight drain for it. Under the
 * tenant cap, the gang's summed request counts (HELD_FAIR_SHARE, every member; the caller gives the
 * members of a gang one tenant: they are one job's). Under
 * admission all, a gang needs its members and the limit only.
 *
 * Pure: no I/O, no global state; one allocation of scratch space per call, plus one for gangs.
 * O(tasks * nodes + tasks log tasks). */
#ifndef DAGSCHED_ADMIT_H
#define DAGSCHED_ADMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"
#include "fairshare.h"
#include "resources.h"

typedef enum ds_admit_mode {
    DS_ADMIT_CAPACITY = 0, /* release what fits, plus the look-ahead (the default) */
    DS_ADMIT_ALL,          /* release every ready task (up to max_concurrent) */
} ds_admit_mode;

/* "capacity", "all"; "unknown" otherwise. */
const char *ds_admit_mode_name(ds_admit_mode m);
/* 0 and *out set for a known name, -1 otherwise. */
int ds_admit_mode_parse(const char *name, ds_admit_mode *out);

typedef enum ds_admit_verdict {
    DS_ADMIT_RELEASED = 0,    /* fits now; took room on result.node */
    DS_ADMIT_LOOKAHEAD,       /* fits nowhere now; released to wait in the scheduler's queue */
    DS_ADMIT_HELD_NO_ROOM,    /* fits nowhere now and no look-ahead slot is left (or never fits) */
    DS_ADMIT_HELD_STARVING,   /* the room it could use is reserved by a starving task ahead */
    DS_ADMIT_HELD_LIMIT,      /* max_concurrent tasks are in flight */
    DS_ADMIT_HELD_FAIR_SHARE, /* its tenant is above its fair share, or would pass its cap */
    DS_ADMIT_HELD_GANG,       /* its gang lacks members, or the room for all of them */
    DS_ADMIT_VERDICT_N,
} ds_admit_verdict;

/* "released", "lookahead", "no-room", "behind-starving", "limit", "fair-share", "gang"; "unknown"
 * otherwise. */
const char *ds_admit_verdict_name(ds_admit_verdict v);

/* Is the task released by this verdict (RELEASED or LOOKAHEAD)? */
bool ds_admit_verdict_releases(ds_admit_verdict v);

typedef struct ds_admit_node {
    ds_res allocatable;
    ds_res free_; /* allocatable minus the requests of the pods bound to the node */
} ds_admit_node;

typedef struct ds_admit_task {
    ds_res request;
    /* eligible[k]: the task may run on node k (n_nodes entries); NULL: on every node. */
    const bool *eligible;
    bool starving;  /* marked by the order's starvation threshold (ready tasks only) */
    bool room_only; /* in-flight only: takes room, not a look-ahead slot nor max_concurrent */
    /* Ready only: a task whose pod does not exist yet (lib/upcoming.h). RELEASED when it fits:
     * the room is kept for it; otherwise HELD_NO_ROOM. It counts against neither max_concurrent
     * nor the look-ahead, and reserves nothing when starving. Decided before the tasks in
     * flight, as a first task is. */
    bool upcoming;
    /* Ready only: the room its upstream tasks freed is its own (lib/upcoming.h): when it fits
     * (and max_concurrent allows), it is RELEASED before the tasks in flight take room;
     * otherwise it is decided with the others. */
    bool first;
    /* With fairness (ds_admit_params.fair): the index of its tenant in fair->tenants. A task in
     * flight with SIZE_MAX (and every room_only entry) is charged to no tenant. */
    size_t tenant;
    /* Ready only: a member of a gang of gang_size members (> 0) whose id is gang; 0: no gang. The
     * ids are the caller's (one per gang, scoped to the job). */
    size_t gang_size;
    size_t gang;
    /* Ready only: when it fits no free room, it may hold the room that frees on the node closest
     * to holding it (ds_admit_params.hold_room; the caller marks the tasks of jobs whose deadline
     * can still be met). */
    bool may_hold;
} ds_admit_task;

/* Fair share across tenants (spec.fairness): the tenants and the cluster's capacity. */
typedef struct ds_admit_fair {
    const ds_fair_tenant *tenants; /* use before the round: the requests of running pods */
    size_t n_tenants;
    ds_res capacity; /* the sum of the nodes' allocatable */
} ds_admit_fair;

typedef struct ds_admit_params {
    ds_admit_mode mode;
    size_t lookahead;          /* tasks released beyond what fits (in flight ones included) */
    size_t max_concurrent;     /* tasks in flight at once, 0: no limit */
    size_t hold_room;          /* ready tasks marked may_hold that may hold room; 0: none */
    const ds_admit_fair *fair; /* NULL: the order given (fairness off) */
} ds_admit_params;

typedef struct ds_admit_result {
    ds_admit_verdict verdict;
    /* RELEASED: the node whose room the task took (SIZE_MAX under DS_ADMIT_ALL).
     * LOOKAHEAD, HELD_NO_ROOM: the node it may use that comes closest to holding it (least
     * shortfall as fractions of allocatable summed over kinds, then most free room, then lower
     * index); SIZE_MAX when it may use no node. HELD_STARVING: a reserved node it could use.
     * HELD_LIMIT: SIZE_MAX. */
    size_t node;
    ds_res node_free; /* that node's free room when the task was decided (zero for SIZE_MAX) */
    bool never_fits;  /* HELD_NO_ROOM: the request exceeds the allocatable of every node it may
                       * use (or it may use none) */
    size_t blocker;   /* HELD_STARVING: index in ready of the starving task; SIZE_MAX otherwise */
    /* HELD_FAIR_SHARE: the tenant's dominant share when the task was decided (with the task when
     * over_cap) and its fair share (its cap when over_cap). */
    bool over_cap;
    double share, fair_share;
    /* Members of a gang: its ready members, its size, and (HELD_GANG with all members ready) the
     * members the room was found for, and whether the room of every member is held (node: where
     * this member's is). */
    size_t gang_ready, gang_size, gang_room;
    bool gang_holds;
    /* HELD_NO_ROOM of a task that may hold: the room that frees on `node` is held for it. */
    bool room_held;
} ds_admit_result;

typedef struct ds_admit_summary {
    size_t count[DS_ADMIT_VERDICT_N]; /* ready tasks per verdict */
    size_t inflight_placed;           /* in-flight entries that took room on a node */
    size_t inflight_unplaced;         /* counted in-flight tasks that fit no node (look-ahead
                                       * slots); room_only entries are not counted */
} ds_admit_summary;

/* Decide every ready task (out[i] for ready[i], n_ready entries) as the rule above says.
 * nodes: n_nodes entries (may be 0); inflight: n_inflight tasks released earlier and not bound
 * yet, and room_only pending pods (their starving flags are ignored); ready: in queue order
 * (their room_only flags are ignored). summary may be NULL. Returns 0,
 * or -1 with err set on missing arrays or out of memory (out is then undefined). */
int ds_admit_plan(const ds_admit_params *p, const ds_admit_node *nodes, size_t n_nodes,
                  const ds_admit_task *inflight, size_t n_inflight, const ds_admit_task *ready,
                  size_t n_ready, ds_admit_result *out, ds_admit_summary *summary, ds_err *err);

/* Why a task with this request and result is held or released as look-ahead, for users:
 *   RELEASED        "fits on node <name>"
 *   LOOKAHEAD       "released ahead of room (look-ahead): needs cpu 2, memory 1Gi; most free
 *                    room on node n3: cpu 1500m, memory 4Gi" (the free room of the kinds
 *                    requested, zeros included)
 *   HELD_NO_ROOM    "no room: needs ...; most free room on node n3: ..." (or "no node it may
 *                    run on", or "needs ...; larger than the allocatable of every node it may
 *                    run on"; with room_held "no room: needs ...; the room that frees on node
 *                    n3 is held for it (free now: ...)")
 *   HELD_STARVING   "behind starving task <blocker_name>, which waits for room on node n3"
 *   HELD_LIMIT      "maxConcurrentReleases (<max_concurrent>) tasks released and not yet
 *                    running"
 *   HELD_GANG       "gang <other_name>: 5 of 8 members ready" or "gang <other_name>: room for
 *                    3 of 8 members" (with "; the room that frees is held for it" when
 *                    gang_holds)
 *   HELD_FAIR_SHARE "tenant <other_name> is above its fair share (dominant share 0.75, fair
 *                    share 0.50): needs cpu 2; most free room on node n3: cpu 0" (or "...
 *                    (dominant share 0.30 with this task, cap 0.25)")
 * node_name: the name of result->node (ignored when SIZE_MAX); other_name: the starving task's
 * name (HELD_STARVING), the tenant's (HELD_FAIR_SHARE), the gang's (HELD_GANG). Writes at most
 * bufsize bytes, always NUL-terminated (bufsize > 0). */
void ds_admit_describe(const ds_admit_result *r, const ds_res *request, const char *node_name,
                       const char *other_name, size_t max_concurrent, char *buf, size_t bufsize);

#endif
