/* workload_gen.h: the workload generator following the DSP paper's evaluation (Table II, section
 * V): equal numbers of small (a few hundred tasks), medium (1,000) and large (2,000) jobs, Poisson
 * arrivals at x jobs per minute with x drawn in [2, 5], DAGs of at most five levels where a task
 * has at most fifteen dependents, run times and cpu/memory requests from configurable distributions
 * shaped like the 2011 Google cluster trace (heavy-tailed, mostly small), deadlines as a factor of
 * the critical path. Jobs are materialised on demand from their own random stream, so a run with
 * millions of tasks only holds the jobs that are in the system. */
#ifndef DAGSCHED_SIM_WORKLOAD_GEN_H
#define DAGSCHED_SIM_WORKLOAD_GEN_H

#include "rng.h"
#include "workload.h"

void sim_gen_defaults(sim_gen_params *p);

/* Check parameters and set up a generated workload on w, whose nodes must already be set (task
 * requests are clipped to the largest node so that every task fits somewhere). */
int sim_gen_workload(const sim_gen_params *p, sim_workload *w, ds_err *err);

/* Materialise job j of a generated workload (free with sim_job_def_free). */
int sim_gen_job(const sim_gen_params *p, const sim_workload *w, size_t j, sim_job_def *out,
                ds_err *err);

/* "const:V", "uniform:A,B[,MIN,MAX]", "lognormal:MEDIAN,SIGMA[,MIN,MAX]"; values are plain numbers
 * in the unit of the option (seconds, cores, bytes; memory also takes quantities such as 512Mi). */
int sim_dist_parse(const char *s, bool quantities, sim_dist *d, ds_err *err);
double sim_dist_draw(const sim_dist *d, sim_rng *r);

#endif
