/* procmetrics.h: the process's own metrics on /metrics, read when the registry is rendered:
 *
 *   process_resident_memory_bytes, process_virtual_memory_bytes   /proc/self/statm
 *   process_cpu_seconds_total                                      /proc/self/stat (user + system)
 *   process_start_time_seconds                                     /proc/self/stat and /proc/stat
 *   process_open_fds, process_max_fds                              /proc/self/fd, RLIMIT_NOFILE
 *   process_threads                                                /proc/self/stat
 *   dagsched_process_heap_bytes{state="in_use"|"free"}             malloc's own figures (glibc)
 *
 * The process_* names are those of the Prometheus client libraries, so dashboards and alerts
 * written for other exporters work unchanged. The heap figures say what the resident set holds:
 * `in_use` is memory the program allocated and still holds (decoded objects, caches, snapshots),
 * `free` is memory malloc holds for reuse (the rest of the resident set is code, libraries and
 * thread stacks). Figures a platform cannot give are left out rather than reported as 0 (the
 * heap figures under AddressSanitizer, whose allocator replaces malloc's).
 *
 * The parsers are separate from the reading so that they can be tested on fixed input. */
#ifndef DAGSCHED_RUNTIME_PROCMETRICS_H
#define DAGSCHED_RUNTIME_PROCMETRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "metrics.h"

/* Fields of /proc/PID/stat used here. */
typedef struct rt_proc_stat {
    double cpu_s;       /* utime + stime, seconds */
    double start_ticks; /* starttime: clock ticks after boot */
    long threads;       /* num_threads */
} rt_proc_stat;

/* Parse the text of /proc/PID/stat (the command name may hold spaces and parentheses: fields are
 * counted after its last ')'). ticks_per_s: sysconf(_SC_CLK_TCK). 0, or -1 when malformed. */
int rt_proc_stat_parse(const char *text, double ticks_per_s, rt_proc_stat *out);

/* The `btime` line of /proc/stat (boot time, Unix seconds). 0, or -1 when absent or malformed. */
int rt_proc_boot_time_parse(const char *text, double *out);

/* Register the families above in r and have r refresh them each time it is rendered
 * (metrics_registry_on_render). 0, or -1 on allocation failure. The families live as long as r. */
int rt_procmetrics_register(metrics_registry *r);

#endif
