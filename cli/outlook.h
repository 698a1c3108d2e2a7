/* outlook.h: what kubectl-dagsched says about when a job ends: a finished job's finish, makespan
 * and deadline met or missed by how much; a running job's estimated finish (ETA), now plus its
 * remaining critical path with the run times the job model uses (the wait for room is not
 * counted, so the ETA is the earliest the job can end), and whether that meets its deadline. */
#ifndef DAGSCHED_CLI_OUTLOOK_H
#define DAGSCHED_CLI_OUTLOOK_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cli_outlook {
    bool ended;        /* every task has finished (finished is its last end) */
    double finished;   /* ended: epoch seconds, NAN when unknown */
    double makespan_s; /* ended: finished - created, NAN when unknown */
    double eta;        /* not ended: now + remaining critical path, NAN when unknown */
    double margin_s;   /* deadline - (finished or eta): > 0 met with time to spare, < 0 missed;
                        * NAN without a deadline or an end */
} cli_outlook;

/* created, finished (NAN while some task has not ended), deadline (NAN or INFINITY: none), now,
 * remaining_path_s (the job's remaining critical path in seconds, NAN when unknown). */
void cli_outlook_of(double created, double finished, double deadline, double now,
                    double remaining_path_s, cli_outlook *out);

/* One line: "finished 3m02s ago, makespan 1m12s; deadline met with 48s to spare" or
 * "in 3m20s (now + remaining critical path); deadline missed by 20s at that pace", "-" when
 * nothing is known. */
void cli_outlook_text(const cli_outlook *o, double now, char *buf, size_t size);

#endif
