/* gang.h: gang release, tasks that must start together (see docs/model.md, "Gang release").
 *
 * A task is a member of a gang when its pod carries the label dagsched.io/gang (the gang's name, a
 * label value) and the label dagsched.io/gang-size (how many members must start together, 1 to
 * DS_GANG_SIZE_MAX). A gang is scoped to its job: the gang "workers" of job a/j1 (namespace a) and
 * the gang "workers" of job b/j2 are two gangs, whatever their names; a namespace cannot join
 * another namespace's gang, nor a job another job's.
 *
 * The members of a gang are the distinct tasks of its job that name it. A gang is:
 *  - INVALID when its members disagree on the size, when it has more members than its size, or
 *    when its job lists all its tasks (a JobGraph, an Argo Workflow) and has fewer tasks than the
 *    size: its members are never released, and their waiting reason says why (an error, never a
 *    silent hold). A gang whose size exceeds the members that come (a job declared by its pods'
 *    annotations, where more pods may come) waits: the gang timeout reports it;
 *  - STARTED when one of its members was released before (in flight, running or finished): the
 *    gang started together; a member that comes back (a retried pod) is released as any task;
 *  - WAITING when some members are not ready (upstream tasks not done, pods not created yet): none
 *    of them is released ("gang G: 5 of 8 members ready");
 *  - READY when all its members are ready: the release plan (lib/admit.h) releases all of them in
 *    the same round when the room for all of them is planned, none of them otherwise.
 *
 * A gang that stays unreleased for longer than the policy's gang timeout (spec.gang.timeout, from
 * the time its first member became ready) is reported by a Warning Event GangTimeout; it keeps
 * waiting. A gang none of whose members is ready waits for upstream tasks, which is no reason to
 * report it.
 * Pure: no I/O, no global state. */
#ifndef DAGSCHED_GANG_H
#define DAGSCHED_GANG_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"

#define DS_LABEL_GANG      "dagsched.io/gang"
#define DS_LABEL_GANG_SIZE "dagsched.io/gang-size"
#define DS_GANG_SIZE_MAX   1000 /* members of one gang */
#define DS_GANG_NAME_MAX   64   /* a label value: 63 + NUL */
/* A member released with its gang holds the room planned for it (dagsched.io/reserved-node, "<node>
 * <until>", lib/room_hold.h) for this long, or the policy's preemption cooldown when shorter, so
 * that a pod already in kube-scheduler's queue does not take it before the member binds. */
#define DS_GANG_HOLD_S 15.0
/* A Warning Event of the controller: a gang waited longer than spec.gang.timeout. */
#define DS_EV_GANG_TIMEOUT "GangTimeout"

/* The gang labels of one pod. */
typedef struct ds_gang_spec {
    bool member;                 /* both labels are set and valid */
    char name[DS_GANG_NAME_MAX]; /* when member */
    size_t size;                 /* when member: 1..DS_GANG_SIZE_MAX */
} ds_gang_spec;

/* Parse the two label values (either may be NULL: the label is absent). Neither set: 0, not a
 * member. Both set and valid: 0, a member. Otherwise -1 with err set ("label dagsched.io/gang-size
 * \"0\" must be an integer from 1 to 1000", "label dagsched.io/gang is set without
 * dagsched.io/gang-size", ...); *out is then not a member. */
int ds_gang_parse(const char *name, const char *size, ds_gang_spec *out, ds_err *err);

/* What a gang's members are doing, counted over the distinct tasks that name it. */
typedef struct ds_gang_count {
    size_t size;      /* the size its first member declares */
    bool sizes_agree; /* every member declares that size */
    size_t members;   /* distinct tasks naming it */
    size_t ready;     /* members ready and not released (gated, upstream tasks done) */
    size_t started;   /* members released before: in flight, running or finished */
    size_t can_exist; /* the most members there can be: its job's tasks when the job lists them
                       * all (JobGraph, Workflow); SIZE_MAX when more pods may come */
} ds_gang_count;

typedef enum ds_gang_state {
    DS_GANG_READY = 0, /* all members ready: the release plan decides them together */
    DS_GANG_WAITING,   /* members missing or not ready: none is released */
    DS_GANG_STARTED,   /* released before: its members are released as any task */
    DS_GANG_INVALID,   /* can never be released as declared: an error */
} ds_gang_state;

/* "ready", "waiting", "started", "invalid". */
const char *ds_gang_state_name(ds_gang_state s);

/* The state of a gang by the rule above. */
ds_gang_state ds_gang_judge(const ds_gang_count *c);

/* Why the members of a gang in that state are held, for users (bufsize > 0, always
 * NUL-terminated):
 *   WAITING  "gang workers: 5 of 8 members ready" (members not created yet count as not ready)
 *   INVALID  "gang workers is invalid: its members declare different sizes" | "... 9 members,
 *            more than its size 8" | "... its job has 6 tasks, fewer than its size 8"
 *   READY, STARTED: "" */
void ds_gang_describe(const char *name, ds_gang_state s, const ds_gang_count *c, char *buf,
                      size_t bufsize);

/* "gang workers: room for 3 of 8 members" (the release plan's HELD_GANG for room). */
void ds_gang_describe_room(const char *name, size_t room_for, size_t size, char *buf,
                           size_t bufsize);

/* One pod of a gang member, as the caller sees it. */
typedef struct ds_gang_obs {
    size_t job;         /* its job (an index of the caller's): the gang's scope */
    const char *name;   /* the gang's name (borrowed) */
    size_t size;        /* the size it declares */
    size_t task;        /* its task in the job: pods of one task are one member */
    bool ready;         /* not released, upstream tasks done */
    bool started;       /* released (in flight, running, finished) */
    double ready_since; /* ready: when it became ready (upstream tasks done); NAN otherwise */
    size_t can_exist;   /* as ds_gang_count.can_exist, for its job */
} ds_gang_obs;

/* A gang: its scope and name, its members' count and its state. */
typedef struct ds_gang {
    size_t job;
    const char *name;
    ds_gang_count count;
    ds_gang_state state;
    double ready_since; /* when its first member became ready (NAN: none is ready) */
    size_t first;       /* the observation of its first member (by task) */
} ds_gang;

/* Group n observations into gangs by (job, name): gangs (room for n entries), *n_gangs, and
 * gang_of[i], the gang of obs[i]. A member is ready when one of its pods is ready and none
 * started, started when one of its pods started. Gangs come ordered by job, then name. 0, or -1
 * with err set on missing arrays or out of memory. */
int ds_gang_tally(const ds_gang_obs *obs, size_t n, ds_gang *gangs, size_t *n_gangs,
                  size_t *gang_of, ds_err *err);

/* How long a member released with its gang holds its planned room: DS_GANG_HOLD_S, or the
 * policy's preemption cooldown when shorter (a hold never outlasts it, lib/room_hold.h). */
double ds_gang_hold_s(double cooldown_s);

/* Has a gang waited past its timeout: timeout_s > 0, the times finite and
 * now - ready_since >= timeout_s? */
bool ds_gang_timed_out(double ready_since, double now, double timeout_s);

#endif
