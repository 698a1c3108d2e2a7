/* eta_inputs.h: the inputs of a running job's ETA (outlook.h), read off the plugin's snapshot of
 * the cluster (cluster_view.h), once for every job the command shows.
 *
 *  - The room, as lib/room.h takes it (and as the extender builds it for its preempt verb): each
 *    node's free room (allocatable minus the requests of every pod bound to it; a cordoned or
 *    not-ready node is out of reach), and the running DAG tasks, each with its expected remaining
 *    run time on its node (DSP's t_rem) and its request. Pods outside any DAG job take room and
 *    are never counted as ending. A ready task counts only the nodes it may use, as the
 *    controller's release judges them (ctl_guard_node_eligible: its node selector, required node
 *    affinity and the NoSchedule/NoExecute taints it tolerates; a suspended Job's task, one
 *    without a pod: the nodes without such taints).
 *  - The release order: the waiting tasks of every job by their place in the controller's queue
 *    order, each with its request (its pod's; a suspended batch Job's template; an Argo template
 *    that states one): the tasks before a ready task take the room that frees before it does.
 *  - For each ready task of a job: its request, the requests before it, and the controller's
 *    reason when it holds the task for something other than room (its dagsched.io/waiting-reason,
 *    which the Waiting Events repeat: maxConcurrentReleases, a starving task, Argo's listing).
 *
 * What the plugin cannot see is left out, as the room rule leaves it out: room the controller
 * keeps for an upcoming task or a preemptor, pods waiting in kube-scheduler's queue outside any
 * DAG job, work that arrives later. */
#ifndef DAGSCHED_CLI_ETA_INPUTS_H
#define DAGSCHED_CLI_ETA_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "cluster_view.h"
#include "outlook.h"

typedef struct cli_eta_inputs {
    bool room_known; /* false: missing says why (the nodes, or other namespaces, not read) */
    char missing[480];
    ds_res *free_; /* [snap.n_node]: every node's free room */
    ds_room_task *running;
    cli_room all;       /* free_ and running, not indexed: the base of a task's own room */
    bool *plain;        /* [snap.n_node]: the nodes a pod without constraints may use */
    ds_res *free_plain; /* [snap.n_node]: free_ with the other nodes out of reach */
    cli_room room;      /* of the plain nodes, indexed when room_known */
    /* The release queue: q_pos ascending, q_sum[k] the requests of entries 0..k-1. */
    size_t *q_pos;
    ds_res *q_sum;
    size_t n_q;
} cli_eta_inputs;

/* Build from the view (its nodes and pods; missing: why the room cannot be read honestly, NULL
 * when it can). 0, or -1 with err set (out of memory). */
int cli_eta_inputs_build(const cli_view *v, const char *missing, cli_eta_inputs *out, ds_err *err);
void cli_eta_inputs_free(cli_eta_inputs *in);

/* The basis of the ETA of job j (valid, of the view's snapshot) whose remaining critical path is
 * path_s. 0, or -1 with err set (out of memory). */
int cli_eta_of_job(const cli_eta_inputs *in, const cli_view *v, const ds_job *j, double path_s,
                   cli_eta *out, ds_err *err);

#endif
