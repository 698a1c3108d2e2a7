/* main.c: dagsched-sim, the command line of the simulator: builds or loads a workload, runs each
 * requested policy on it for each seed, prints one line per run and writes CSV / JSON metrics,
 * comparison tables and SVG plots. Run `dagsched-sim --help` for the options. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "engine.h"
#include "flags.h"
#include "readfile.h"
#include "metrics.h"
#include "policies.h"
#include "policy.h"
#include "quantity.h"
#include "svg.h"
#include "trace_alibaba.h"
#include "workload_file.h"
#include "workload_gen.h"
#include "clock.h"

#define DEFAULT_NODES "40x16:64Gi:1,10x32:128Gi:1.5"
#define ALIBABA_NODES "20x96:512Gi:1"
#define MAX_SEEDS     64

typedef struct opts {
    const char *policies;
    const char *policy_file;
    uint64_t seeds[MAX_SEEDS];
    size_t n_seeds;
    const char *workload_file;
    const char *alibaba_file;
    const char *nodes;
    sim_gen_params gen;
    sim_alibaba_params ali;
    double restart_delay_s, disorder_fail_s, extender_weight;
    double release_latency_s, round_interval_s, create_latency_s, start_latency_s;
    double release_cost_s;
    size_t release_concurrency;
    double pod_initial_backoff_s, pod_max_backoff_s, backoff_flush_s, max_unschedulable_s;
    double sched_cycle_s, sched_cycle_failed_s; /* failed < 0: as sched_cycle_s */
    int graph_observed;
    int room_holds; /* index into on_off: 0 on (shipped), 1 off */
    const char *csv, *json, *jobs_csv, *pods_csv, *bars_svg, *gantt_svg, *write_workload;
    size_t gantt_nodes;
    bool table, quiet;
} opts;

#define USAGE                                                                                      \
    "usage: dagsched-sim [options]\n"                                                              \
    "Simulates DAG jobs on a cluster under scheduling policies that call the dagsched core "       \
    "library.\n"

/* The flags' own conversions (runtime/flags.h): 0, or -1 with what was expected in why. */

/* A number in [lo, hi]; NULL why: no message. */
static int number_in(const char *s, double lo, double hi, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !(v >= lo && v <= hi))
        return -1;
    *out = v;
    return 0;
}

/* "LO:HI", both in [lo, hi], LO <= HI. */
static int pair_in(const char *s, double lo, double hi, double *a, double *b, char *why,
                   size_t size)
{
    char buf[128];
    const char *colon = strchr(s, ':');
    double x, y;
    if (colon == NULL || (size_t)(colon - s) >= sizeof buf)
        goto bad;
    memcpy(buf, s, (size_t)(colon - s));
    buf[colon - s] = '\0';
    if (number_in(buf, lo, hi, &x) != 0 || number_in(colon + 1, lo, hi, &y) != 0 || y < x)
        goto bad;
    *a = x;
    *b = y;
    return 0;
bad:
    snprintf(why, size, "expected LO:HI, numbers in %g..%g with LO <= HI", lo, hi);
    return -1;
}

static int flag_small(void *dest, const char *s, char *why, size_t size)
{
    sim_gen_params *g = dest;
    double a, b;
    if (pair_in(s, 1, DS_DAG_MAX_TASKS, &a, &b, why, size) != 0)
        return -1;
    g->small_min = (size_t)a;
    g->small_max = (size_t)b;
    return 0;
}

static int flag_rate(void *dest, const char *s, char *why, size_t size)
{
    sim_gen_params *g = dest;
    return pair_in(s, 1e-6, 1e6, &g->rate_min, &g->rate_max, why, size);
}

static int flag_deadline(void *dest, const char *s, char *why, size_t size)
{
    sim_gen_params *g = dest;
    return pair_in(s, 0, 1e6, &g->deadline_factor_min, &g->deadline_factor_max, why, size);
}

/* "S:M:L": job classes repeat as S small, M medium, L large jobs. */
static int flag_mix(void *dest, const char *s, char *why, size_t size)
{
    unsigned *mix = dest, m[3];
    const char *p = s;
    for (int k = 0; k < 3; k++) {
        char *end = NULL;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || errno != 0 || v > 1000 || *p == '-' || *end != (k < 2 ? ':' : '\0')) {
            snprintf(why, size, "expected S:M:L, integers <= 1000");
            return -1;
        }
        m[k] = (unsigned)v;
        p = end + 1;
    }
    if (m[0] + m[1] + m[2] == 0) {
        snprintf(why, size, "expected S:M:L with one count > 0");
        return -1;
    }
    memcpy(mix, m, sizeof m);
    return 0;
}

static int flag_seeds(void *dest, const char *s, char *why, size_t size)
{
    opts *o = dest;
    char buf[1024];
    if (strlen(s) >= sizeof buf) {
        snprintf(why, size, "expected a list shorter than %zu bytes", sizeof buf);
        return -1;
    }
    strcpy(buf, s);
    size_t n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(t, &end, 10);
        if (n == MAX_SEEDS || end == t || *end != '\0' || errno != 0 || t[0] == '-') {
            snprintf(why, size, "expected at most %d comma-separated integers >= 0", MAX_SEEDS);
            return -1;
        }
        o->seeds[n++] = v;
    }
    if (n == 0) {
        snprintf(why, size, "expected a non-empty list");
        return -1;
    }
    o->n_seeds = n;
    return 0;
}

static int dist(const char *s, bool quantities, sim_dist *d, char *why, size_t size)
{
    ds_err err = {{0}};
    if (sim_dist_parse(s, quantities, d, &err) != 0) {
        /* The flags layer quotes the value itself. */
        char *got = strstr(err.msg, " (got \"");
        snprintf(why, size, "%.*s", got != NULL ? (int)(got - err.msg) : (int)strlen(err.msg),
                 err.msg);
        return -1;
    }
    return 0;
}

static int flag_seconds_dist(void *dest, const char *s, char *why, size_t size)
{
    return dist(s, false, dest, why, size);
}

static int flag_bytes_dist(void *dest, const char *s, char *why, size_t size)
{
    return dist(s, true, dest, why, size);
}

static int flag_large_runtime(void *dest, const char *s, char *why, size_t size)
{
    sim_gen_params *g = dest;
    if (dist(s, false, &g->large_runtime_s, why, size) != 0)
        return -1;
    g->large_runtime_set = true;
    return 0;
}

static int flag_machine_memory(void *dest, const char *s, char *why, size_t size)
{
    int64_t v = 0;
    ds_err err = {{0}};
    if (ds_quantity_parse_value(s, &v, &err) != 0) {
        snprintf(why, size, "%s", err.msg);
        return -1;
    }
    if (v <= 0) {
        snprintf(why, size, "expected a quantity > 0");
        return -1;
    }
    *(double *)dest = (double)v;
    return 0;
}

static const char *const release_names[] = {"onUpstream", "upfront", NULL}; /* sim_release */
static const char *const graph_names[] = {"declared", "observed", NULL};
static const char *const on_off[] = {"on", "off", NULL};

/* RT_FLAGS_RUN, or the exit status (runtime/flags.h). */
static int parse_args(int argc, char **argv, opts *o)
{
    char release_latency_help[200];
    snprintf(release_latency_help, sizeof release_latency_help,
             "dagsched: a released pod enters kube-scheduler's queue S seconds\n"
             "after the controller's round (default %g; see docs/simulator.md)",
             SIM_DEFAULT_RELEASE_LATENCY_S);
    int release = (int)o->gen.release;
    sim_gen_params *g = &o->gen;
    const rt_flag table[] = {
        RT_FLAG_SECTION("Workload (default: the DSP-style generator)"),
        RT_FLAG_STRING("workload", "FILE", &o->workload_file,
                       "Workload YAML file (docs/simulator.md)"),
        RT_FLAG_STRING("alibaba", "FILE", &o->alibaba_file,
                       "Alibaba cluster-trace-v2018 batch_task.csv"),
        RT_FLAG_FUNC("alibaba-machine-memory", "Q", flag_machine_memory,
                     &o->ali.machine_memory_bytes,
                     "memory of a trace machine (plan_mem 100), default 512Gi"),
        RT_FLAG_SIZE("alibaba-instances", "N", &o->ali.max_instances, 1, 10000,
                     "pods per task: min(instance_num, N), default 1"),
        RT_FLAG_SIZE("alibaba-max-jobs", "N", &o->ali.max_jobs, 0, SIM_MAX_JOBS,
                     "load at most N jobs (0 = all)"),
        RT_FLAG_STRING("nodes", "SPEC", &o->nodes,
                       "COUNTxCPU:MEMORY[:SPEED],... (default " DEFAULT_NODES ";\n"
                       "Alibaba: " ALIBABA_NODES "; a workload file's own nodes otherwise)"),
        RT_FLAG_SECTION("Generator (DSP Table II)"),
        RT_FLAG_SIZE("jobs", "N", &g->n_jobs, 1, SIM_MAX_JOBS, "jobs (150)"),
        RT_FLAG_DOUBLE("task-scale", "F", &g->task_scale, 1e-6, 1000,
                       "tasks of every job times F (1)"),
        RT_FLAG_FUNC("small", "MIN:MAX", flag_small, g, "tasks of a small job (100:500)"),
        RT_FLAG_SIZE("medium", "N", &g->medium_tasks, 1, DS_DAG_MAX_TASKS,
                     "tasks of a medium job (1000)"),
        RT_FLAG_SIZE("large", "N", &g->large_tasks, 1, DS_DAG_MAX_TASKS,
                     "tasks of a large job (2000)"),
        RT_FLAG_FUNC("arrival-rate", "LO:HI", flag_rate, g, "jobs a minute (2:5)"),
        RT_FLAG_INT("levels", "N", &g->max_levels, 1, 64, "DAG depth (5)"),
        RT_FLAG_INT("fanout", "N", &g->max_fanout, 1, 10000, "dependents of a task (15)"),
        RT_FLAG_FUNC("runtime", "DIST", flag_seconds_dist, &g->runtime_s,
                     "run times, seconds (lognormal:30,1,1,3600)"),
        RT_FLAG_FUNC("cpu", "DIST", flag_seconds_dist, &g->cpu_cores,
                     "cores (lognormal:0.25,0.8,0.01,8)\n"
                     "DIST = const:V | uniform:A,B[,MIN,MAX] |\n"
                     "lognormal:MEDIAN,SIGMA[,MIN,MAX]"),
        RT_FLAG_FUNC("memory", "DIST", flag_bytes_dist, &g->memory_bytes,
                     "memory (lognormal:512Mi,1,16Mi,16Gi)"),
        RT_FLAG_FUNC("deadline-factor", "LO:HI", flag_deadline, g,
                     "deadline over the critical path (1.5:3)"),
        RT_FLAG_DOUBLE("high-priority", "F", &g->high_priority_fraction, 0, 1,
                       "fraction of high-priority jobs (0)"),
        RT_FLAG_DOUBLE("checkpoint", "F", &g->checkpoint_fraction, 0, 1,
                       "fraction of checkpointing tasks (0)"),
        RT_FLAG_CHOICE("release", "onUpstream|upfront", &release, release_names,
                       "when a job's pods are created (onUpstream)"),
        RT_FLAG_FUNC("mix", "S:M:L", flag_mix, g->mix,
                     "job classes repeat as S small, M medium, L large jobs\n(1:1:1)"),
        RT_FLAG_SET("batch-large", &g->large_no_deadline,
                    "large jobs have no deadline (batch beside deadline jobs)"),
        RT_FLAG_FUNC("large-runtime", "DIST", flag_large_runtime, g,
                     "run times of large jobs' tasks (default: --runtime)"),
        RT_FLAG_SECTION("Runs"),
        RT_FLAG_STRING("policy", "LIST", &o->policies,
                       "comma-separated or 'all': default,tetris,dsp-nopp,dsp,\n"
                       "sailfish,dagsched"),
        RT_FLAG_STRING("policy-file", "FILE", &o->policy_file,
                       "SchedulingPolicy YAML (default: built-in defaults)"),
        RT_FLAG_FUNC("seeds", "LIST", flag_seeds, o, "generator seeds (default 1)"),
        RT_FLAG_FUNC("seed", "N", flag_seeds, o, "one generator seed"),
        RT_FLAG_DOUBLE("restart-delay", "S", &o->restart_delay_s, 0, 86400, "(1)"),
        RT_FLAG_DOUBLE("disorder-fail", "S", &o->disorder_fail_s, 0.001, 86400, "(5)"),
        RT_FLAG_DOUBLE("extender-weight", "W", &o->extender_weight, 0, 1000, "(5)"),
        RT_FLAG_DOUBLE("release-latency", "S", &o->release_latency_s, 0, 3600,
                       release_latency_help),
        RT_FLAG_DOUBLE("round-interval", "S", &o->round_interval_s, 0, 3600,
                       "dagsched: shortest time between two controller rounds (1)"),
        RT_FLAG_DOUBLE("release-cost", "S", &o->release_cost_s, 0, 3600,
                       "dagsched: each release is an API request of S seconds;\n"
                       "a round's releases leave batch after batch and the next\n"
                       "round waits for them (0: free)"),
        RT_FLAG_SIZE("release-concurrency", "N", &o->release_concurrency, 1, 10000,
                     "dagsched: release requests made at once (1)"),
        RT_FLAG_DOUBLE("create-latency", "S", &o->create_latency_s, 0, 86400,
                       "onUpstream: a task's pod is created S seconds after its\n"
                       "upstream tasks succeeded (a workflow engine's reaction; 0)"),
        RT_FLAG_DOUBLE("start-latency", "S", &o->start_latency_s, 0, 86400,
                       "a bound pod starts running S seconds after binding and\n"
                       "holds its resources meanwhile (0)"),
        RT_FLAG_CHOICE("graph", "declared|observed", &o->graph_observed, graph_names,
                       "dagsched, onUpstream jobs: the controller knows each job's\n"
                       "whole DAG (a JobGraph, an Argo Workflow), or only the tasks\n"
                       "whose pods were created so far (declared)"),
        RT_FLAG_CHOICE("room-holds", "on|off", &o->room_holds, on_off,
                       "dagsched: the extender holds the room an upstream task\n"
                       "freed for its job's next task (deadline jobs, 15 s), and\n"
                       "the controller releases that task first (on, as shipped;\n"
                       "off: to measure what it does)"),
        RT_FLAG_SECTION("kube-scheduler's queue after a failed scheduling attempt (its defaults)"),
        RT_FLAG_DOUBLE("pod-initial-backoff", "S", &o->pod_initial_backoff_s, 0, 3600,
                       "back-off S * 2^(attempts-1) (1)"),
        RT_FLAG_DOUBLE("pod-max-backoff", "S", &o->pod_max_backoff_s, 0, 3600, "at most S (10)"),
        RT_FLAG_DOUBLE(
            "backoff-flush", "S", &o->backoff_flush_s, 0, 3600,
            "back-off queue flushed every S seconds (1; 0: at once;\nelse at least 1e-9)"),
        RT_FLAG_DOUBLE("max-unschedulable", "S", &o->max_unschedulable_s, 1, 86400,
                       "a pod leaves the unschedulable pool after S seconds\n"
                       "without a pod leaving a node (300)"),
        RT_FLAG_DOUBLE("sched-cycle", "S", &o->sched_cycle_s, 0, 60,
                       "a scheduling attempt that binds keeps kube-scheduler\n"
                       "busy S seconds before its next attempt (0: instantaneous)"),
        RT_FLAG_DOUBLE("sched-cycle-failed", "S", &o->sched_cycle_failed_s, 0, 60,
                       "one that fails, S seconds (default: --sched-cycle)"),
        RT_FLAG_SECTION("Output"),
        RT_FLAG_STRING("csv", "FILE", &o->csv, "one row per run"),
        RT_FLAG_STRING("json", "FILE", &o->json, "the runs' metrics"),
        RT_FLAG_STRING("jobs-csv", "FILE", &o->jobs_csv,
                       "one row per job and run (arrival, completion, deadline)"),
        RT_FLAG_STRING("pods-csv", "FILE", &o->pods_csv,
                       "one row per pod run and policy (created, queued, bound,\n"
                       "end; the first seed)"),
        RT_FLAG_SET("table", &o->table, "comparison tables"),
        RT_FLAG_STRING("bars-svg", "FILE", &o->bars_svg, "bar charts"),
        RT_FLAG_STRING("gantt-svg", "PATTERN", &o->gantt_svg,
                       "Gantt chart per policy ('%s' = policy name)"),
        RT_FLAG_SIZE("gantt-nodes", "N", &o->gantt_nodes, 1, SIM_MAX_NODES,
                     "lanes drawn (default 16)"),
        RT_FLAG_STRING("write-workload", "FILE", &o->write_workload,
                       "write the (first seed's) workload as YAML and exit"),
        RT_FLAG_SET("quiet", &o->quiet, "no line per run"),
    };
    const rt_flags spec = {.prog = "dagsched-sim", .usage = USAGE, RT_FLAGS_TABLE(table)};
    int rc = rt_flags_parse(&spec, argc, argv, NULL);
    if (rc != RT_FLAGS_RUN)
        return rc;
    o->gen.release = (sim_release)release;
    o->ali.deadline_factor_min = o->gen.deadline_factor_min;
    o->ali.deadline_factor_max = o->gen.deadline_factor_max;
    if (o->workload_file && o->alibaba_file)
        return rt_flags_error(&spec, "--workload and --alibaba are exclusive");
    if (o->gantt_svg != NULL) {
        const char *p = strstr(o->gantt_svg, "%s");
        if (p == NULL || strchr(p + 2, '%') != NULL || strchr(o->gantt_svg, '%') != p)
            return rt_flags_error(&spec,
                                  "--gantt-svg: expected a pattern with exactly one %%s (got "
                                  "\"%s\")",
                                  o->gantt_svg);
    }
    if (o->pod_max_backoff_s < o->pod_initial_backoff_s)
        return rt_flags_error(&spec, "--pod-max-backoff must be >= --pod-initial-backoff");
    return RT_FLAGS_RUN;
}

static int load_policy_file(const char *path, ds_policy *pol)
{
    char *buf = NULL;
    size_t n = 0;
    ds_err err = {{0}};
    int rc = rt_read_file(path, DS_POLICY_MAX_BYTES, &buf, &n, &err);
    if (rc == 0 && ds_policy_parse(buf, n, pol, &err) != 0) {
        ds_err_prefix(&err, "%s", path);
        rc = -1;
    }
    if (rc != 0)
        fprintf(stderr, "dagsched-sim: %s\n", err.msg);
    free(buf);
    return rc;
}

/* Build the workload for one seed. */
static int make_workload(const opts *o, uint64_t seed, sim_workload *w, ds_err *err)
{
    memset(w, 0, sizeof *w);
    if (o->workload_file != NULL) {
        if (sim_workload_load(o->workload_file, w, err) != 0)
            return -1;
    } else if (o->alibaba_file != NULL) {
        sim_alibaba_params p = o->ali;
        p.seed = seed;
        sim_alibaba_stats st;
        if (sim_alibaba_load(o->alibaba_file, &p, w, &st, err) != 0)
            return -1;
        if (!o->quiet)
            fprintf(stderr,
                    "alibaba: %zu lines, %zu jobs (%zu tasks, %zu pods) loaded, %zu jobs skipped, "
                    "%zu dependencies on absent tasks dropped\n",
                    st.lines, st.jobs, st.tasks, st.pods, st.skipped_jobs, st.dropped_edges);
    }
    const char *nodes = o->nodes;
    if (nodes == NULL && w->n_nodes == 0)
        nodes = o->alibaba_file ? ALIBABA_NODES : DEFAULT_NODES;
    if (nodes != NULL) {
        free(w->nodes);
        w->nodes = NULL;
        if (sim_nodes_parse(nodes, &w->nodes, &w->n_nodes, err) != 0)
            return -1;
    }
    if (o->workload_file == NULL && o->alibaba_file == NULL) {
        sim_gen_params g = o->gen;
        g.seed = seed;
        if (sim_gen_workload(&g, w, err) != 0)
            return -1;
    }
    return sim_workload_validate(w, err);
}

static long peak_rss_kb(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return ru.ru_maxrss; /* kilobytes on Linux */
}

static int write_outputs(const opts *o, const sim_metrics *runs, size_t n, const char *const *names,
                         size_t n_names, const char *title)
{
    ds_err err = {{0}};
    if (o->csv != NULL) {
        FILE *f = fopen(o->csv, "w");
        if (f == NULL) {
            fprintf(stderr, "dagsched-sim: %s: %s\n", o->csv, strerror(errno));
            return -1;
        }
        sim_metrics_csv_header(f);
        for (size_t i = 0; i < n; i++)
            sim_metrics_csv_row(f, &runs[i]);
        if (fclose(f) != 0) {
            fprintf(stderr, "dagsched-sim: %s: write failed\n", o->csv);
            return -1;
        }
    }
    if (o->json != NULL) {
        FILE *f = fopen(o->json, "w");
        if (f == NULL) {
            fprintf(stderr, "dagsched-sim: %s: %s\n", o->json, strerror(errno));
            return -1;
        }
        sim_metrics_json(f, runs, n);
        if (fclose(f) != 0) {
            fprintf(stderr, "dagsched-sim: %s: write failed\n", o->json);
            return -1;
        }
    }
    if (o->table)
        sim_metrics_print_tables(stdout, runs, n, names, n_names);
    if (o->bars_svg != NULL) {
        if (sim_svg_bars(o->bars_svg, runs, n, names, n_names, title, &err) != 0) {
            fprintf(stderr, "dagsched-sim: %s\n", err.msg);
            return -1;
        }
    }
    return 0;
}

/* One row per job of a run: what the per-run means are made of. */
static void write_job_rows(FILE *f, const sim_result *r, const char *policy,
                           unsigned long long seed)
{
    for (size_t i = 0; i < r->n_jobs; i++) {
        const sim_job_result *j = &r->jobs[i];
        bool has_deadline = isfinite(j->deadline);
        fprintf(f, "%s,%llu,%zu,%u,%.3f,%.3f,%.3f,", policy, seed, i, j->n_tasks, j->arrival,
                j->completion, j->completion - j->arrival);
        if (has_deadline)
            fprintf(f, "%.3f,%d,", j->deadline, j->completion <= j->deadline);
        else
            fprintf(f, ",,");
        fprintf(f, "%llu,%s\n", (unsigned long long)j->evictions_for,
                j->tenant < r->n_tenants ? r->tenants[j->tenant] : "");
    }
}

/* One row per recorded pod run: the times of the pod's life in the simulation (seconds): created
 * (its pod created, or its task runnable again after an eviction), queued (entered kube-scheduler's
 * queue: a gated pod when its release arrives), bound, end; names from an explicit workload, else
 * the job's and task's indexes. 0, or -1 when the runs were not all recorded. */
static int write_pod_rows(FILE *f, const sim_workload *w, const sim_result *r, const char *policy,
                          unsigned long long seed)
{
    static const char *const outcome[] = {"done", "evicted", "failed"};
    if (r->segs_truncated) {
        fprintf(stderr, "dagsched-sim: --pods-csv: more than %zu pod runs, not all recorded\n",
                r->n_segs);
        return -1;
    }
    for (size_t i = 0; i < r->n_segs; i++) {
        const sim_segment *g = &r->segs[i];
        const sim_job_def *j = w->jobs != NULL && g->job < w->n_jobs ? &w->jobs[g->job] : NULL;
        if (j != NULL && g->task < j->n_tasks)
            fprintf(f, "%s,%llu,%s,%s,", policy, seed, j->name, j->tasks[g->task].name);
        else
            fprintf(f, "%s,%llu,%u,%u,", policy, seed, g->job, g->task);
        fprintf(f, "%s,%.6f,%.6f,%.6f,%.6f,%s\n", w->nodes[g->node].name, g->ready, g->queued,
                g->start, g->end, g->outcome <= SIM_SEG_FAILED ? outcome[g->outcome] : "?");
    }
    return 0;
}

int main(int argc, char **argv)
{
    opts o = {0};
    sim_gen_defaults(&o.gen);
    sim_alibaba_defaults(&o.ali);
    o.policies = "all";
    o.seeds[0] = 1;
    o.n_seeds = 1;
    o.restart_delay_s = 1.0;
    o.disorder_fail_s = 5.0;
    o.extender_weight = 5.0;
    o.release_latency_s = SIM_DEFAULT_RELEASE_LATENCY_S;
    o.round_interval_s = 1.0;
    o.release_concurrency = 1;
    o.pod_initial_backoff_s = 1.0;
    o.pod_max_backoff_s = 10.0;
    o.backoff_flush_s = 1.0;
    o.max_unschedulable_s = 300.0;
    o.sched_cycle_failed_s = -1;
    o.gantt_nodes = 16;
    int rc = parse_args(argc, argv, &o);
    if (rc != RT_FLAGS_RUN)
        return rc;

    ds_policy pol;
    ds_policy_defaults(&pol);
    if (o.policy_file != NULL && load_policy_file(o.policy_file, &pol) != 0)
        return 2;

    /* policies to run */
    const sim_policy_desc *run[16];
    const char *names[16];
    size_t n_run = 0;
    if (strcmp(o.policies, "all") == 0) {
        size_t n;
        const sim_policy_desc *all = sim_policy_all(&n);
        for (size_t i = 0; i < n && n_run < 16; i++) {
            run[n_run] = &all[i];
            names[n_run++] = all[i].name;
        }
    } else {
        char buf[512];
        if (strlen(o.policies) >= sizeof buf) {
            fprintf(stderr, "dagsched-sim: --policy: list too long\n");
            return 2;
        }
        strcpy(buf, o.policies);
        char *save = NULL;
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            const sim_policy_desc *d = sim_policy_find(t);
            if (d == NULL) {
                fprintf(stderr,
                        "dagsched-sim: --policy: unknown policy \"%s\" (default, tetris, "
                        "dsp-nopp, dsp, sailfish, dagsched, all)\n",
                        t);
                return 2;
            }
            if (n_run == 16) {
                fprintf(stderr, "dagsched-sim: --policy: too many policies\n");
                return 2;
            }
            run[n_run] = d;
            names[n_run++] = d->name;
        }
    }

    sim_metrics *runs = calloc(o.n_seeds * n_run, sizeof *runs);
    if (runs == NULL) {
        fprintf(stderr, "dagsched-sim: out of memory\n");
        return 1;
    }
    size_t n_runs = 0;
    int status = 0;
    FILE *jobs_f = NULL;
    if (o.jobs_csv != NULL) {
        jobs_f = fopen(o.jobs_csv, "w");
        if (jobs_f == NULL) {
            fprintf(stderr, "dagsched-sim: %s: %s\n", o.jobs_csv, strerror(errno));
            free(runs);
            return 1;
        }
        fprintf(jobs_f,
                "policy,seed,job,tasks,arrival_s,completion_s,jct_s,deadline_s,met,evictions_for,"
                "namespace\n");
    }
    FILE *pods_f = NULL;
    if (o.pods_csv != NULL) {
        pods_f = fopen(o.pods_csv, "w");
        if (pods_f == NULL) {
            fprintf(stderr, "dagsched-sim: %s: %s\n", o.pods_csv, strerror(errno));
            if (jobs_f != NULL)
                fclose(jobs_f);
            free(runs);
            return 1;
        }
        fprintf(pods_f, "policy,seed,job,task,node,created_s,queued_s,bound_s,end_s,outcome\n");
    }
    char title[SIM_NAME_MAX + 64] = "";
    for (size_t s = 0; s < o.n_seeds && status == 0; s++) {
        sim_workload w;
        ds_err err = {{0}};
        if (make_workload(&o, o.seeds[s], &w, &err) != 0) {
            fprintf(stderr, "dagsched-sim: %s\n", err.msg);
            sim_workload_free(&w);
            status = 2;
            break;
        }
        if (o.write_workload != NULL) {
            if (sim_workload_write(o.write_workload, &w, &err) != 0) {
                fprintf(stderr, "dagsched-sim: %s\n", err.msg);
                status = 1;
            } else if (!o.quiet) {
                fprintf(stderr, "wrote %s (%zu jobs, %zu nodes)\n", o.write_workload, w.n_jobs,
                        w.n_nodes);
            }
            sim_workload_free(&w);
            free(runs);
            if (jobs_f != NULL)
                fclose(jobs_f);
            if (pods_f != NULL)
                fclose(pods_f);
            return status;
        }
        snprintf(title, sizeof title, "%s, %zu seed(s)", w.name, o.n_seeds);
        for (size_t p = 0; p < n_run && status == 0; p++) {
            sim_config cfg;
            sim_config_defaults(&cfg, run[p]);
            cfg.pol = pol;
            cfg.restart_delay_s = o.restart_delay_s;
            cfg.disorder_fail_s = o.disorder_fail_s;
            cfg.extender_weight = o.extender_weight;
            cfg.create_latency_s = o.create_latency_s;
            cfg.start_latency_s = o.start_latency_s;
            cfg.release_latency_s = o.release_latency_s;
            cfg.round_interval_s = o.round_interval_s;
            cfg.release_cost_s = o.release_cost_s;
            cfg.release_concurrency = (unsigned)o.release_concurrency;
            cfg.graph_observed = o.graph_observed != 0;
            cfg.room_holds = o.room_holds == 0;
            cfg.pod_initial_backoff_s = o.pod_initial_backoff_s;
            cfg.pod_max_backoff_s = o.pod_max_backoff_s;
            cfg.backoff_flush_s = o.backoff_flush_s;
            cfg.max_unschedulable_s = o.max_unschedulable_s;
            cfg.sched_cycle_s = o.sched_cycle_s;
            cfg.sched_cycle_failed_s =
                o.sched_cycle_failed_s < 0 ? o.sched_cycle_s : o.sched_cycle_failed_s;
            cfg.record_segments = o.gantt_svg != NULL || o.pods_csv != NULL;
            sim_result r;
            double t0 = rt_mono_now();
            if (sim_run(&w, &cfg, &r, &err) != 0) {
                fprintf(stderr, "dagsched-sim: policy %s: %s\n", run[p]->name, err.msg);
                status = 1;
                break;
            }
            sim_metrics *m = &runs[n_runs++];
            if (sim_metrics_compute(&r, m) != 0) {
                fprintf(stderr, "dagsched-sim: out of memory\n");
                sim_result_free(&r);
                status = 1;
                break;
            }
            m->wall_s = rt_mono_now() - t0;
            m->peak_rss_kb = peak_rss_kb();
            snprintf(m->policy, sizeof m->policy, "%s", run[p]->name);
            snprintf(m->workload, sizeof m->workload, "%s", w.name);
            m->seed = o.seeds[s];
            if (!o.quiet)
                printf("%-9s seed %-4llu jobs %zu tasks %zu: makespan %.0f s, jct mean %.0f s, "
                       "p95 %.0f s, deadlines met %.3f, preemptions %llu (urgent %llu, priority "
                       "%llu, starvation %llu, kube %llu), eviction yield %.3f (%llu of %llu; "
                       "%llu for jobs without a deadline), lost %.0f node s, disorders %llu, "
                       "util cpu %.3f mem %.3f | run %.2f s, peak rss %ld KiB, peak events %zu\n",
                       sim_policy_label(m->policy), (unsigned long long)m->seed, m->jobs, m->tasks,
                       m->makespan_s, m->jct_mean_s, m->jct_p95_s, m->deadline_met_ratio,
                       (unsigned long long)m->preemptions, (unsigned long long)m->preempt_urgent,
                       (unsigned long long)m->preempt_priority,
                       (unsigned long long)m->preempt_starvation,
                       (unsigned long long)m->preempt_kube, m->eviction_yield,
                       (unsigned long long)m->evict_met, (unsigned long long)m->evict_deadline,
                       (unsigned long long)m->evict_no_deadline, m->lost_run_s,
                       (unsigned long long)m->disorders, m->util_cpu, m->util_memory, m->wall_s,
                       m->peak_rss_kb, m->peak_events);
            if (!o.quiet)
                sim_metrics_print_tenants(stdout, &r);
            fflush(stdout);
            if (o.gantt_svg != NULL && s == 0) {
                char path[4096], gt[SIM_NAME_MAX + 64];
                snprintf(path, sizeof path, o.gantt_svg, run[p]->name);
                snprintf(gt, sizeof gt, "%s: %s", run[p]->name, w.name);
                if (sim_svg_gantt(path, &r, gt, o.gantt_nodes, &err) != 0) {
                    fprintf(stderr, "dagsched-sim: %s\n", err.msg);
                    status = 1;
                }
            }
            if (jobs_f != NULL)
                write_job_rows(jobs_f, &r, run[p]->name, (unsigned long long)o.seeds[s]);
            if (pods_f != NULL && s == 0 &&
                write_pod_rows(pods_f, &w, &r, run[p]->name, (unsigned long long)o.seeds[s]) != 0)
                status = 1;
            sim_result_free(&r);
        }
        sim_workload_free(&w);
    }
    if (jobs_f != NULL && fclose(jobs_f) != 0) {
        fprintf(stderr, "dagsched-sim: %s: write failed\n", o.jobs_csv);
        status = 1;
    }
    if (pods_f != NULL && fclose(pods_f) != 0) {
        fprintf(stderr, "dagsched-sim: %s: write failed\n", o.pods_csv);
        status = 1;
    }
    if (status == 0 && write_outputs(&o, runs, n_runs, names, n_run, title) != 0)
        status = 1;
    free(runs);
    return status;
}
