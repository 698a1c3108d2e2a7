/* workload_file.h: the simulator's own workload file format (YAML, kind Workload), read strictly
 * and written back, so that a generated or converted workload can be saved, edited and reused (by
 * the simulator and by the demo). The format is documented in docs/simulator.md:
 *
 *   apiVersion: dagsched.io/v1alpha1
 *   kind: Workload
 *   metadata: {name: sample}
 *   spec:
 *     nodes:    [{name, count, cpu, memory, ephemeralStorage, gpu, speed}]
 *     jobs:
 *     - {name, namespace, arrival, priority, deadline | deadlineFactor, release, checkpoint,
 *        tasks: [{name, runtime, cpu, memory, ephemeralStorage, gpu, dependsOn, checkpoint}]}
 *
 * Unknown fields, wrong types, bad quantities or durations, unknown dependencies and cycles are
 * errors naming the field path ("spec.jobs[2].tasks[0].runtime: ..."). */
#ifndef DAGSCHED_SIM_WORKLOAD_FILE_H
#define DAGSCHED_SIM_WORKLOAD_FILE_H

#include <stddef.h>

#include "ds_error.h"
#include "workload.h"

#define SIM_WORKLOAD_API_VERSION "dagsched.io/v1alpha1"
#define SIM_WORKLOAD_KIND        "Workload"
#define SIM_WORKLOAD_MAX_BYTES   ((size_t)256 * 1024 * 1024)

/* Parse a document of len bytes into w (which must be zeroed). Nodes are optional in the file;
 * jobs are required. On error w is left empty. */
int sim_workload_parse(const char *buf, size_t len, sim_workload *w, ds_err *err);

/* Read and parse a file (errors are prefixed with the path). */
int sim_workload_load(const char *path, sim_workload *w, ds_err *err);

/* Write w (all of its jobs, generated ones materialised one at a time) in the same format. */
int sim_workload_write(const char *path, const sim_workload *w, ds_err *err);

#endif
