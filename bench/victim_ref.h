/* victim_ref.h: the previous implementation of ds_select_victims (see victim_ref.c), with the same
 * contract as lib/victim.h. Used only by bench/bench_victim.c. */
#ifndef DAGSCHED_BENCH_VICTIM_REF_H
#define DAGSCHED_BENCH_VICTIM_REF_H

#include "victim.h"

long ref_select_victims(const ds_waiting_task *waiting, size_t n_waiting,
                        const ds_running_task *running, size_t n_running, const ds_node_free *nodes,
                        size_t n_nodes, const ds_dag *const *jobs, size_t n_jobs,
                        const ds_preempt_params *p, ds_decision *out, size_t out_cap, ds_err *err);

#endif
