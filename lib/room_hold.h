/* room_hold.h: room an eviction made, held for its preemptor against other pods until the
 * preemptor binds or the hold runs out, as a pure rule shared by the controller (which writes
 * the hold) and the extender's filter (which keeps other pods off the room).
 *
 * kube-scheduler's own mechanism, status.nominatedNodeName, is not enough for a DAG task: the
 * preemptor may still carry dagsched's scheduling gate when its victim goes (kube-scheduler does
 * not count gated pods' nominations), and kube-scheduler clears a nomination whenever it tries the
 * pod before the victim is gone and finds no room. Meanwhile a pod already in kube-scheduler's
 * queue (a task released ahead of room, an owner's replacement) takes the room. So the controller
 * also writes the annotation dagsched.io/reserved-node: "<node> <until, RFC 3339>" on the
 * preemptor before it evicts, and the extender's filter refuses that node to any other pod whose
 * request does not fit beside the held room.
 *
 * Multi-tenant: a pod can write such an annotation on itself. So a hold applies to pods of the
 * holder's namespace, and to another namespace's pods only when the holder's namespace is trusted
 * for cross-namespace preemption (spec.preemption.crossNamespace.trustedNamespaces): exactly the
 * pods it could have evicted. It lasts at most the preemptor cooldown (spec.preemption.cooldown),
 * the controller's own hold: a later `until` counts as no hold at all. A bound or finished holder
 * holds nothing. */
#ifndef DAGSCHED_ROOM_HOLD_H
#define DAGSCHED_ROOM_HOLD_H

#include <stdbool.h>
#include <stddef.h>

#include "ds_error.h"
#include "policy.h"
#include "resources.h"

#define DS_ANN_RESERVED_NODE "dagsched.io/reserved-node"

/* One hold: the preemptor's namespace and uid, its request, the node (an index of the caller's),
 * and until when. A hold for an upcoming task (lib/upcoming.h: a deadline job's ready task whose
 * pod does not exist yet) has no uid; job names its job ("ns/name") and name the task: it keeps
 * the room its upstream task freed from other jobs' pods until its pod comes. */
typedef struct ds_room_hold {
    const char *ns;
    const char *uid;
    const char *job; /* an upcoming task's job key; NULL for a preemptor's hold */
    const char *name;
    size_t node;
    ds_res request;
    double until;
    bool gang; /* a preemptor's kind of hold written for a gang member (lib/gang.h): for messages */
} ds_room_hold;

/* Parse an annotation value "<node> <until>" (a node name of at most 253 characters, one space, an
 * RFC 3339 time). 0, or -1 with err set. */
int ds_room_hold_parse(const char *value, char *node, size_t node_size, double *until, ds_err *err);

/* Format the annotation value for node and until (epoch seconds) into buf. */
void ds_room_hold_format(const char *node, double until, char *buf, size_t size);

/* Does hold h keep pod (pod_ns, pod_uid, of job pod_job: its key, NULL outside a job) off its
 * node's held room at time now? Not for the holder itself (an upcoming task's hold: not for the
 * pods of its job); not once `until` has passed or when it lies further ahead than the policy's
 * cooldown; for another namespace only when h->ns is trusted for cross-namespace preemption. */
bool ds_room_hold_applies(const ds_policy *p, const ds_room_hold *h, const char *pod_ns,
                          const char *pod_uid, const char *pod_job, double now);

#endif
