/* reserve.h: the room an eviction freed, held for its preemptor, as a pure function over the
 * eviction ledger and the controller's view.
 *
 * After an eviction made for a preemptor on a node, the preemptor's request on that node is
 * reserved until the preemptor binds or the preemptor cooldown (spec.preemption.cooldown) since
 * the eviction runs out. A reservation is data for the decisions that hand out room: the
 * preemption round does not count reserved room as free (no second preemptor is planned into
 * it), and a release rule that admits tasks against the nodes' free room subtracts it
 * (ctl_reserved_room). kube-scheduler is told through the preemptor's status.nominatedNodeName
 * (docs/controller.md, "Carrying out an eviction").
 *
 * The same scan tells what became of each eviction's room: the preemptor bound on that node
 * (reached), on another node (elsewhere), or it neither bound within the hold nor exists any more
 * (lost); while it waits within the hold, the room is reserved. */
#ifndef DAGSCHED_CONTROLLER_RESERVE_H
#define DAGSCHED_CONTROLLER_RESERVE_H

#include <stddef.h>

#include "ds_error.h"
#include "ledger.h"
#include "resources.h"
#include "view.h"

typedef enum ctl_room_fate {
    CTL_ROOM_RESERVED = 0, /* the preemptor waits, within the hold: the room is held for it */
    CTL_ROOM_REACHED,      /* it bound on the node the eviction freed */
    CTL_ROOM_ELSEWHERE,    /* it bound on another node */
    CTL_ROOM_LOST,         /* it did not bind within the hold, or it is gone */
    CTL_ROOM_FATES
} ctl_room_fate;

/* "reserved", "reached", "elsewhere", "lost". */
const char *ctl_room_fate_name(ctl_room_fate f);

typedef struct ctl_reservation {
    size_t node;      /* index into the view's nodes */
    size_t preemptor; /* index into the view's pods */
    ds_res request;   /* the preemptor's request */
    double until;     /* the eviction's time plus the hold */
} ctl_reservation;

typedef struct ctl_room_report {
    size_t entry; /* index into the ledger's entries */
    ctl_room_fate fate;
} ctl_room_report;

typedef struct ctl_reserve_out {
    ctl_reservation *res; /* one per waiting preemptor (its latest eviction) */
    size_t n_res;
    ctl_room_report *fate; /* one per eviction of the ledger that was carried out */
    size_t n_fate;
} ctl_reserve_out;

/* Scan the ledger's evictions (result "evicted") against the view at `now` with a hold of hold_s
 * seconds. -1 with err set on allocation failure. */
int ctl_reserve_plan(const ctl_ledger *l, const ctl_pod *pods, size_t n_pods, const ctl_node *nodes,
                     size_t n_nodes, double now, double hold_s, ctl_reserve_out *out, ds_err *err);
void ctl_reserve_out_free(ctl_reserve_out *out);

/* The room reserved on each node (out has n_nodes entries, zeroed first). */
void ctl_reserved_room(const ctl_reserve_out *r, size_t n_nodes, ds_res *out);

#endif
