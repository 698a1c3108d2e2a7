/* outlook.h: what kubectl-dagsched says about when a job ends: a finished job's finish, makespan
 * and deadline met or missed by how much; a running job's estimated finish (ETA) and what it is
 * based on, and whether that meets its deadline.
 *
 * The ETA is now plus the job's remaining critical path (the run times the job model uses), made
 * later by the wait for room of its ready tasks (all upstream tasks succeeded, not started): a
 * ready task starts when the room forecast of lib/room.h says it gets room (ds_room_preemptor_wait:
 * the free room of the nodes it may use (its node selector, required node affinity and the taints
 * it tolerates), the running DAG tasks' expected ends, and the requests of the tasks before it in
 * the release order), and the job ends no sooner than that wait plus the remaining path through
 * the task. The tasks not ready yet are counted without a wait (their room depends on
 * work to come). Where some ready task's wait cannot be forecast (its request is not known before
 * its pod exists, the known ends never free enough, the controller holds it for another reason,
 * the cluster's room could not be read) the ETA is a lower bound and says why. Pure: no I/O (the
 * inputs come from cli/eta_inputs.h); unit-tested in tests/cli/test_outlook.c. */
#ifndef DAGSCHED_CLI_OUTLOOK_H
#define DAGSCHED_CLI_OUTLOOK_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"
#include "resources.h"
#include "room.h"

/* The cluster's room as lib/room.h reads it (arrays borrowed), indexed once for every job. */
typedef struct cli_room {
    const ds_res *free_; /* [n_nodes]: each node's free room now (very negative: out of reach) */
    size_t n_nodes;
    const ds_room_task *running; /* [n_running]: the running DAG tasks, their ends and requests */
    size_t n_running;
    ds_room_index ix;
} cli_room;

/* Index r's arrays: 0, or -1 with err set (out of memory). */
int cli_room_index(cli_room *r, ds_err *err);
void cli_room_free(cli_room *r);

/* The room of base's nodes and running tasks where only the nodes a task may use count
 * (eligible[n]: node n passes its node selector, required node affinity and the taints it
 * tolerates, as the controller's release judges them); the others are out of reach. free_ (the
 * caller's, [base->n_nodes], alive as long as out) receives the nodes' free room. out is indexed:
 * 0, or -1 with err set (out of memory); cli_room_free it. */
int cli_room_only(const cli_room *base, const bool *eligible, ds_res *free_, cli_room *out,
                  ds_err *err);

/* A ready task of the job (all its upstream tasks succeeded, not started). */
typedef struct cli_ready_task {
    const char *name;
    double path_s;      /* remaining path through it: its run time and the longest chain after */
    bool request_known; /* false: no pod yet, and no template states its request */
    ds_res request;
    ds_res ahead;     /* the requests of the tasks before it in the release order (every job) */
    size_t n_ahead;   /* how many they are */
    const char *held; /* NULL, or why the controller holds it besides room ("maxConcurrentReleases
                       * reached", from its dagsched.io/waiting-reason): its wait is then longer */
    const cli_room *room; /* NULL: the room cli_eta_of is given; else the room of the nodes it
                           * may use (cli_room_only), when they are not those of that room */
} cli_ready_task;

/* What a running job's ETA is based on. */
typedef struct cli_eta {
    double path_s;  /* the remaining critical path; NAN when unknown (no ETA) */
    size_t n_ready; /* ready tasks */
    double delay_s; /* >= 0: how much later than now + path_s the forecast waits make the end */
    /* The ready task whose forecast wait ends latest (its wait + its path), NULL when every
     * forecast wait is 0. */
    const char *wait_task;
    double wait_s;     /* its forecast wait */
    size_t wait_ahead; /* the tasks before it in the release order */
    bool lower_bound;  /* some ready task's wait is not forecast: the job ends no sooner */
    char why[256];     /* lower_bound: "greet: its request is not known before its pod exists" */
} cli_eta;

/* The basis of a job's ETA from its remaining critical path and its ready tasks. room NULL: the
 * cluster's room could not be read (room_missing says why: every ready task's wait is then not
 * forecast). */
void cli_eta_of(const cli_room *room, const char *room_missing, const cli_ready_task *ready,
                size_t n_ready, double path_s, cli_eta *out);

typedef struct cli_outlook {
    bool ended;        /* every task has finished (finished is its last end) */
    double finished;   /* ended: epoch seconds, NAN when unknown */
    double makespan_s; /* ended: finished - created, NAN when unknown */
    double eta;        /* not ended: now + path + delay (a lower bound when basis.lower_bound),
                        * NAN when unknown */
    double margin_s;   /* deadline - (finished or eta): > 0 met with time to spare, < 0 missed;
                        * NAN without a deadline or an end */
    cli_eta basis;     /* not ended: what the ETA is based on */
} cli_outlook;

/* created, finished (NAN while some task has not ended; INFINITY: ended, when not known),
 * deadline (NAN or INFINITY: none), now, basis (of a job that has not ended; NULL: nothing
 * known). */
void cli_outlook_of(double created, double finished, double deadline, double now,
                    const cli_eta *basis, cli_outlook *out);

/* One line: "finished 3m02s ago, makespan 1m12s; deadline met with 48s to spare", or
 * "in 1m05s, at 14:03:40 (remaining critical path 45s + wait for room 20s (greet, 2 task(s) before
 * it in the release order)); deadline missed by 20s at that pace" (local time), "not before ..."
 * for a lower bound, "-" when nothing is known. */
void cli_outlook_text(const cli_outlook *o, double now, char *buf, size_t size);

/* The ETA for a table column: "14:03:40", ">14:03:40" for a lower bound, "-" for none. */
void cli_outlook_eta_cell(const cli_outlook *o, double now, char *buf, size_t size);

#endif
