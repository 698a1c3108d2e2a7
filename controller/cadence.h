/* cadence.h: when the controller's decision loop runs its next round, as a pure rule: no clock,
 * no lock, no I/O (every time is passed in, seconds on a monotonic clock).
 *
 *  - A round runs every epoch (spec.preemption.epoch), and soon after a relevant change (a kick),
 *    but never sooner than min_interval after the previous round: a burst of changes costs one
 *    round, not one per change.
 *  - An urgent kick (a DAG task's pod that kube-scheduler has just found Unschedulable: it may
 *    need an eviction) runs a round at once, without waiting for min_interval, unless the
 *    previous urgent round started less than its gap ago: four times the duration of the last
 *    round, at least 0.1 s and at most min_interval. Urgent rounds thus take at most a quarter
 *    of the loop's time (a burst of Unschedulable pods cannot make it spin), and at most one
 *    round per min_interval is added when rounds are long; an urgent pod waits for the round in
 *    progress and its own, not for the cadence. */
#ifndef DAGSCHED_CONTROLLER_CADENCE_H
#define DAGSCHED_CONTROLLER_CADENCE_H

#include <stdbool.h>

typedef struct ctl_cadence {
    double last_round;        /* start of the previous round; -1e9 before the first */
    double last_urgent_round; /* start of the previous round run for an urgent kick */
    double next_epoch;        /* when the next epoch's round is due */
    double last_duration;     /* of the previous round, from ctl_cadence_done; 0 before */
} ctl_cadence;

#define CTL_CADENCE_URGENT_MIN_GAP 0.1 /* seconds between two urgent rounds, at least */
#define CTL_CADENCE_URGENT_FACTOR  4   /* urgent gap = this x the last round's duration */

/* The state before the first round: the first epoch's round is due at once. */
void ctl_cadence_init(ctl_cadence *cd);

typedef enum {
    CTL_CADENCE_WAIT,   /* no round now; *wait says for how long at most (kicks wake earlier) */
    CTL_CADENCE_ROUND,  /* run a round now (epoch due, or a kick after min_interval) */
    CTL_CADENCE_URGENT, /* run a round now for an urgent kick, ahead of min_interval */
} ctl_cadence_step;

/* What to do at `now`, given whether a kick and an urgent kick are pending. A round decided here
 * is recorded in *cd (its start, and the next epoch when the epoch was due), so the caller only
 * clears its kick flags and runs it. epoch <= 0 or not finite counts as 10 s; *wait is set for
 * CTL_CADENCE_WAIT, between 0.01 s and 1 s (the loop wakes regularly to notice a stop). */
ctl_cadence_step ctl_cadence_next(ctl_cadence *cd, double now, double epoch, double min_interval,
                                  bool kicked, bool urgent, double *wait);

/* The round decided by ctl_cadence_next ended at `end`: its duration sets the urgent gap. */
void ctl_cadence_done(ctl_cadence *cd, double end);

/* The least time between two urgent rounds now (see above). */
double ctl_cadence_urgent_gap(const ctl_cadence *cd, double min_interval);

#endif
