/* main.c: dagsched-sim, the command line of the simulator: builds or loads a workload, runs each
 * requested policy on it for each seed, prints one line per run and writes CSV / JSON metrics,
 * comparison tables and SVG plots. Run `dagsched-sim --help` for the options. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "engine.h"
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
    double pod_initial_backoff_s, pod_max_backoff_s, backoff_flush_s, max_unschedulable_s;
    int graph_observed;
    const char *csv, *json, *jobs_csv, *bars_svg, *gantt_svg, *write_workload;
    size_t gantt_nodes;
    int table, quiet;
} opts;

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: dagsched-sim [options]\n"
        "Simulates DAG jobs on a cluster under scheduling policies that call the dagsched core "
        "library.\n\n"
        "Workload (default: the DSP-style generator):\n"
        "  --workload FILE          Workload YAML file (docs/simulator.md)\n"
        "  --alibaba FILE           Alibaba cluster-trace-v2018 batch_task.csv\n"
        "  --alibaba-machine-memory Q  memory of a trace machine (plan_mem 100), default 512Gi\n"
        "  --alibaba-instances N    pods per task: min(instance_num, N), default 1\n"
        "  --alibaba-max-jobs N     load at most N jobs (0 = all)\n"
        "  --nodes SPEC             COUNTxCPU:MEMORY[:SPEED],... (default " DEFAULT_NODES ";\n"
        "                           Alibaba: " ALIBABA_NODES "; a workload file's own nodes "
        "otherwise)\n"
        "Generator (DSP Table II):\n"
        "  --jobs N (150)  --task-scale F (1)  --small MIN:MAX (100:500)  --medium N (1000)\n"
        "  --large N (2000)  --arrival-rate LO:HI jobs/min (2:5)  --levels N (5)  --fanout N "
        "(15)\n"
        "  --runtime DIST (lognormal:30,1,1,3600 s)  --cpu DIST (lognormal:0.25,0.8,0.01,8 "
        "cores)\n"
        "  --memory DIST (lognormal:512Mi,1,16Mi,16Gi)  DIST = const:V | uniform:A,B[,MIN,MAX] "
        "|\n"
        "                           lognormal:MEDIAN,SIGMA[,MIN,MAX]\n"
        "  --deadline-factor LO:HI (1.5:3)  --high-priority F (0)  --checkpoint F (0)\n"
        "  --release onUpstream|upfront (onUpstream)\n"
        "  --mix S:M:L (1:1:1)      job classes repeat as S small, M medium, L large jobs\n"
        "  --batch-large            large jobs have no deadline (batch beside deadline jobs)\n"
        "  --large-runtime DIST     run times of large jobs' tasks (default: --runtime)\n"
        "Runs:\n"
        "  --policy LIST            comma-separated or 'all': default,tetris,dsp-nopp,dsp,"
        "sailfish,dagsched\n"
        "  --policy-file FILE       SchedulingPolicy YAML (default: built-in defaults)\n"
        "  --seeds LIST | --seed N  generator seeds (default 1)\n"
        "  --restart-delay S (1)  --disorder-fail S (5)  --extender-weight W (5)\n"
        "  --release-latency S      dagsched: a released pod enters kube-scheduler's queue S "
        "seconds\n"
        "                           after the controller's round (default %g; see\n"
        "                           docs/simulator.md)\n"
        "  --round-interval S (1)   dagsched: shortest time between two controller rounds\n"
        "  --create-latency S (0)   onUpstream: a task's pod is created S seconds after its\n"
        "                           upstream tasks succeeded (a workflow engine's reaction)\n"
        "  --start-latency S (0)    a bound pod starts running S seconds after binding and\n"
        "                           holds its resources meanwhile\n"
        "  --graph declared|observed (declared)\n"
        "                           dagsched, onUpstream jobs: the controller knows each job's\n"
        "                           whole DAG (a JobGraph, an Argo Workflow), or only the tasks\n"
        "                           whose pods were created so far\n"
        "kube-scheduler's queue after a failed scheduling attempt (its defaults):\n"
        "  --pod-initial-backoff S (1)  --pod-max-backoff S (10)\n"
        "                           back-off S * 2^(attempts-1), at most the max\n"
        "  --backoff-flush S (1)    back-off queue flushed every S seconds (0: at once;\n"
        "                           else at least 1e-9)\n"
        "  --max-unschedulable S (300)  a pod leaves the unschedulable pool after S seconds\n"
        "                           without a pod leaving a node\n"
        "Output:\n"
        "  --csv FILE  --json FILE  --table  --bars-svg FILE\n"
        "  --jobs-csv FILE          one row per job and run (arrival, completion, deadline)\n"
        "  --gantt-svg PATTERN      Gantt chart per policy ('%%s' = policy name)\n"
        "  --gantt-nodes N          lanes drawn (default 16)\n"
        "  --write-workload FILE    write the (first seed's) workload as YAML and exit\n"
        "  --quiet  --help\n",
        SIM_DEFAULT_RELEASE_LATENCY_S);
}

static int parse_size(const char *s, const char *opt, size_t lo, size_t hi, size_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end != '\0' || errno != 0 || v < lo || v > hi || s[0] == '-') {
        fprintf(stderr, "dagsched-sim: %s: must be an integer in [%zu, %zu] (got \"%s\")\n", opt,
                lo, hi, s);
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

static int parse_double(const char *s, const char *opt, double lo, double hi, double *out)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || !(v >= lo && v <= hi)) {
        fprintf(stderr, "dagsched-sim: %s: must be a number in [%g, %g] (got \"%s\")\n", opt, lo,
                hi, s);
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_pair(const char *s, const char *opt, double lo, double hi, double *a, double *b)
{
    char buf[128];
    const char *colon = strchr(s, ':');
    if (colon == NULL || (size_t)(colon - s) >= sizeof buf) {
        fprintf(stderr, "dagsched-sim: %s: expected LO:HI (got \"%s\")\n", opt, s);
        return -1;
    }
    memcpy(buf, s, (size_t)(colon - s));
    buf[colon - s] = '\0';
    if (parse_double(buf, opt, lo, hi, a) != 0 || parse_double(colon + 1, opt, lo, hi, b) != 0)
        return -1;
    if (*b < *a) {
        fprintf(stderr, "dagsched-sim: %s: LO must be <= HI (got \"%s\")\n", opt, s);
        return -1;
    }
    return 0;
}

/* "S:M:L": job classes repeat as S small, M medium, L large jobs. */
static int parse_mix(const char *s, unsigned mix[3])
{
    const char *p = s;
    for (int k = 0; k < 3; k++) {
        char *end = NULL;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || errno != 0 || v > 1000 || *p == '-' || *end != (k < 2 ? ':' : '\0')) {
            fprintf(stderr, "dagsched-sim: --mix: expected S:M:L, integers <= 1000 (got \"%s\")\n",
                    s);
            return -1;
        }
        mix[k] = (unsigned)v;
        p = end + 1;
    }
    if (mix[0] + mix[1] + mix[2] == 0) {
        fprintf(stderr, "dagsched-sim: --mix: one count must be > 0 (got \"%s\")\n", s);
        return -1;
    }
    return 0;
}

static int parse_seeds(const char *s, opts *o)
{
    char buf[1024];
    if (strlen(s) >= sizeof buf) {
        fprintf(stderr, "dagsched-sim: --seeds: list too long\n");
        return -1;
    }
    strcpy(buf, s);
    o->n_seeds = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        size_t v;
        if (o->n_seeds == MAX_SEEDS) {
            fprintf(stderr, "dagsched-sim: --seeds: at most %d seeds\n", MAX_SEEDS);
            return -1;
        }
        if (parse_size(t, "--seeds", 0, SIZE_MAX, &v) != 0)
            return -1;
        o->seeds[o->n_seeds++] = v;
    }
    if (o->n_seeds == 0) {
        fprintf(stderr, "dagsched-sim: --seeds: empty list\n");
        return -1;
    }
    return 0;
}

static int parse_dist(const char *s, const char *opt, bool quantities, sim_dist *d)
{
    ds_err err = {{0}};
    if (sim_dist_parse(s, quantities, d, &err) != 0) {
        fprintf(stderr, "dagsched-sim: %s: %s\n", opt, err.msg);
        return -1;
    }
    return 0;
}

enum {
    O_POLICY = 256,
    O_POLICY_FILE,
    O_SEEDS,
    O_SEED,
    O_WORKLOAD,
    O_ALIBABA,
    O_ALI_MEM,
    O_ALI_INST,
    O_ALI_MAX,
    O_NODES,
    O_JOBS,
    O_TASK_SCALE,
    O_SMALL,
    O_MEDIUM,
    O_LARGE,
    O_RATE,
    O_LEVELS,
    O_FANOUT,
    O_RUNTIME,
    O_CPU,
    O_MEMORY,
    O_DEADLINE,
    O_HIGH,
    O_CHECKPOINT,
    O_MIX,
    O_BATCH_LARGE,
    O_LARGE_RUNTIME,
    O_RELEASE,
    O_RESTART,
    O_DISORDER,
    O_EXT_WEIGHT,
    O_CREATE_LATENCY,
    O_START_LATENCY,
    O_RELEASE_LATENCY,
    O_ROUND_INTERVAL,
    O_GRAPH,
    O_POD_INITIAL_BACKOFF,
    O_POD_MAX_BACKOFF,
    O_BACKOFF_FLUSH,
    O_MAX_UNSCHED,
    O_CSV,
    O_JSON,
    O_JOBS_CSV,
    O_TABLE,
    O_BARS,
    O_GANTT,
    O_GANTT_NODES,
    O_WRITE,
    O_QUIET,
    O_HELP,
};

static int parse_args(int argc, char **argv, opts *o)
{
    static const struct option longopts[] = {
        {"policy", required_argument, NULL, O_POLICY},
        {"policy-file", required_argument, NULL, O_POLICY_FILE},
        {"seeds", required_argument, NULL, O_SEEDS},
        {"seed", required_argument, NULL, O_SEED},
        {"workload", required_argument, NULL, O_WORKLOAD},
        {"alibaba", required_argument, NULL, O_ALIBABA},
        {"alibaba-machine-memory", required_argument, NULL, O_ALI_MEM},
        {"alibaba-instances", required_argument, NULL, O_ALI_INST},
        {"alibaba-max-jobs", required_argument, NULL, O_ALI_MAX},
        {"nodes", required_argument, NULL, O_NODES},
        {"jobs", required_argument, NULL, O_JOBS},
        {"task-scale", required_argument, NULL, O_TASK_SCALE},
        {"small", required_argument, NULL, O_SMALL},
        {"medium", required_argument, NULL, O_MEDIUM},
        {"large", required_argument, NULL, O_LARGE},
        {"arrival-rate", required_argument, NULL, O_RATE},
        {"levels", required_argument, NULL, O_LEVELS},
        {"fanout", required_argument, NULL, O_FANOUT},
        {"runtime", required_argument, NULL, O_RUNTIME},
        {"cpu", required_argument, NULL, O_CPU},
        {"memory", required_argument, NULL, O_MEMORY},
        {"deadline-factor", required_argument, NULL, O_DEADLINE},
        {"high-priority", required_argument, NULL, O_HIGH},
        {"checkpoint", required_argument, NULL, O_CHECKPOINT},
        {"mix", required_argument, NULL, O_MIX},
        {"batch-large", no_argument, NULL, O_BATCH_LARGE},
        {"large-runtime", required_argument, NULL, O_LARGE_RUNTIME},
        {"release", required_argument, NULL, O_RELEASE},
        {"restart-delay", required_argument, NULL, O_RESTART},
        {"disorder-fail", required_argument, NULL, O_DISORDER},
        {"extender-weight", required_argument, NULL, O_EXT_WEIGHT},
        {"create-latency", required_argument, NULL, O_CREATE_LATENCY},
        {"start-latency", required_argument, NULL, O_START_LATENCY},
        {"release-latency", required_argument, NULL, O_RELEASE_LATENCY},
        {"round-interval", required_argument, NULL, O_ROUND_INTERVAL},
        {"graph", required_argument, NULL, O_GRAPH},
        {"pod-initial-backoff", required_argument, NULL, O_POD_INITIAL_BACKOFF},
        {"pod-max-backoff", required_argument, NULL, O_POD_MAX_BACKOFF},
        {"backoff-flush", required_argument, NULL, O_BACKOFF_FLUSH},
        {"max-unschedulable", required_argument, NULL, O_MAX_UNSCHED},
        {"csv", required_argument, NULL, O_CSV},
        {"json", required_argument, NULL, O_JSON},
        {"jobs-csv", required_argument, NULL, O_JOBS_CSV},
        {"table", no_argument, NULL, O_TABLE},
        {"bars-svg", required_argument, NULL, O_BARS},
        {"gantt-svg", required_argument, NULL, O_GANTT},
        {"gantt-nodes", required_argument, NULL, O_GANTT_NODES},
        {"write-workload", required_argument, NULL, O_WRITE},
        {"quiet", no_argument, NULL, O_QUIET},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    int c;
    size_t z;
    double a, b;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc = 0;
        switch (c) {
        case O_POLICY:
            o->policies = optarg;
            break;
        case O_POLICY_FILE:
            o->policy_file = optarg;
            break;
        case O_SEEDS:
        case O_SEED:
            rc = parse_seeds(optarg, o);
            break;
        case O_WORKLOAD:
            o->workload_file = optarg;
            break;
        case O_ALIBABA:
            o->alibaba_file = optarg;
            break;
        case O_ALI_MEM: {
            int64_t v;
            ds_err err = {{0}};
            if (ds_quantity_parse_value(optarg, &v, &err) != 0 || v <= 0) {
                fprintf(stderr, "dagsched-sim: --alibaba-machine-memory: %s\n",
                        v <= 0 ? "must be > 0" : err.msg);
                rc = -1;
            }
            o->ali.machine_memory_bytes = (double)v;
            break;
        }
        case O_ALI_INST:
            rc = parse_size(optarg, "--alibaba-instances", 1, 10000, &o->ali.max_instances);
            break;
        case O_ALI_MAX:
            rc = parse_size(optarg, "--alibaba-max-jobs", 0, SIM_MAX_JOBS, &o->ali.max_jobs);
            break;
        case O_NODES:
            o->nodes = optarg;
            break;
        case O_JOBS:
            rc = parse_size(optarg, "--jobs", 1, SIM_MAX_JOBS, &o->gen.n_jobs);
            break;
        case O_TASK_SCALE:
            rc = parse_double(optarg, "--task-scale", 1e-6, 1000, &o->gen.task_scale);
            break;
        case O_SMALL:
            rc = parse_pair(optarg, "--small", 1, DS_DAG_MAX_TASKS, &a, &b);
            o->gen.small_min = (size_t)a;
            o->gen.small_max = (size_t)b;
            break;
        case O_MEDIUM:
            rc = parse_size(optarg, "--medium", 1, DS_DAG_MAX_TASKS, &o->gen.medium_tasks);
            break;
        case O_LARGE:
            rc = parse_size(optarg, "--large", 1, DS_DAG_MAX_TASKS, &o->gen.large_tasks);
            break;
        case O_RATE:
            rc =
                parse_pair(optarg, "--arrival-rate", 1e-6, 1e6, &o->gen.rate_min, &o->gen.rate_max);
            break;
        case O_LEVELS:
            rc = parse_size(optarg, "--levels", 1, 64, &z);
            o->gen.max_levels = (int)z;
            break;
        case O_FANOUT:
            rc = parse_size(optarg, "--fanout", 1, 10000, &z);
            o->gen.max_fanout = (int)z;
            break;
        case O_RUNTIME:
            rc = parse_dist(optarg, "--runtime", false, &o->gen.runtime_s);
            break;
        case O_CPU:
            rc = parse_dist(optarg, "--cpu", false, &o->gen.cpu_cores);
            break;
        case O_MEMORY:
            rc = parse_dist(optarg, "--memory", true, &o->gen.memory_bytes);
            break;
        case O_DEADLINE:
            rc = parse_pair(optarg, "--deadline-factor", 0, 1e6, &o->gen.deadline_factor_min,
                            &o->gen.deadline_factor_max);
            o->ali.deadline_factor_min = o->gen.deadline_factor_min;
            o->ali.deadline_factor_max = o->gen.deadline_factor_max;
            break;
        case O_HIGH:
            rc = parse_double(optarg, "--high-priority", 0, 1, &o->gen.high_priority_fraction);
            break;
        case O_CHECKPOINT:
            rc = parse_double(optarg, "--checkpoint", 0, 1, &o->gen.checkpoint_fraction);
            break;
        case O_MIX:
            rc = parse_mix(optarg, o->gen.mix);
            break;
        case O_BATCH_LARGE:
            o->gen.large_no_deadline = true;
            break;
        case O_LARGE_RUNTIME:
            rc = parse_dist(optarg, "--large-runtime", false, &o->gen.large_runtime_s);
            o->gen.large_runtime_set = true;
            break;
        case O_RELEASE:
            if (strcmp(optarg, "onUpstream") == 0) {
                o->gen.release = SIM_RELEASE_ON_UPSTREAM;
            } else if (strcmp(optarg, "upfront") == 0) {
                o->gen.release = SIM_RELEASE_UPFRONT;
            } else {
                fprintf(stderr,
                        "dagsched-sim: --release: must be onUpstream or upfront (got \"%s\")\n",
                        optarg);
                rc = -1;
            }
            break;
        case O_RESTART:
            rc = parse_double(optarg, "--restart-delay", 0, 86400, &o->restart_delay_s);
            break;
        case O_DISORDER:
            rc = parse_double(optarg, "--disorder-fail", 0.001, 86400, &o->disorder_fail_s);
            break;
        case O_EXT_WEIGHT:
            rc = parse_double(optarg, "--extender-weight", 0, 1000, &o->extender_weight);
            break;
        case O_CREATE_LATENCY:
            rc = parse_double(optarg, "--create-latency", 0, 86400, &o->create_latency_s);
            break;
        case O_START_LATENCY:
            rc = parse_double(optarg, "--start-latency", 0, 86400, &o->start_latency_s);
            break;
        case O_RELEASE_LATENCY:
            rc = parse_double(optarg, "--release-latency", 0, 3600, &o->release_latency_s);
            break;
        case O_ROUND_INTERVAL:
            rc = parse_double(optarg, "--round-interval", 0, 3600, &o->round_interval_s);
            break;
        case O_GRAPH:
            if (strcmp(optarg, "declared") == 0 || strcmp(optarg, "observed") == 0) {
                o->graph_observed = strcmp(optarg, "observed") == 0;
            } else {
                fprintf(stderr,
                        "dagsched-sim: --graph: expected declared or observed (got \"%s\")\n",
                        optarg);
                rc = -1;
            }
            break;
        case O_POD_INITIAL_BACKOFF:
            rc = parse_double(optarg, "--pod-initial-backoff", 0, 3600, &o->pod_initial_backoff_s);
            break;
        case O_POD_MAX_BACKOFF:
            rc = parse_double(optarg, "--pod-max-backoff", 0, 3600, &o->pod_max_backoff_s);
            break;
        case O_BACKOFF_FLUSH:
            rc = parse_double(optarg, "--backoff-flush", 0, 3600, &o->backoff_flush_s);
            break;
        case O_MAX_UNSCHED:
            rc = parse_double(optarg, "--max-unschedulable", 1, 86400, &o->max_unschedulable_s);
            break;
        case O_CSV:
            o->csv = optarg;
            break;
        case O_JSON:
            o->json = optarg;
            break;
        case O_JOBS_CSV:
            o->jobs_csv = optarg;
            break;
        case O_TABLE:
            o->table = 1;
            break;
        case O_BARS:
            o->bars_svg = optarg;
            break;
        case O_GANTT:
            o->gantt_svg = optarg;
            break;
        case O_GANTT_NODES:
            rc = parse_size(optarg, "--gantt-nodes", 1, SIM_MAX_NODES, &o->gantt_nodes);
            break;
        case O_WRITE:
            o->write_workload = optarg;
            break;
        case O_QUIET:
            o->quiet = 1;
            break;
        case O_HELP:
            usage(stdout);
            exit(0);
        default:
            usage(stderr);
            return -1;
        }
        if (rc != 0)
            return -1;
    }
    if (optind < argc) {
        fprintf(stderr, "dagsched-sim: unexpected argument \"%s\"\n", argv[optind]);
        return -1;
    }
    if (o->workload_file && o->alibaba_file) {
        fprintf(stderr, "dagsched-sim: --workload and --alibaba are exclusive\n");
        return -1;
    }
    if (o->gantt_svg != NULL) {
        const char *p = strstr(o->gantt_svg, "%s");
        if (p == NULL || strchr(p + 2, '%') != NULL || strchr(o->gantt_svg, '%') != p) {
            fprintf(stderr,
                    "dagsched-sim: --gantt-svg: the pattern needs exactly one %%s (got "
                    "\"%s\")\n",
                    o->gantt_svg);
            return -1;
        }
    }
    return 0;
}

static int load_policy_file(const char *path, ds_policy *pol)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "dagsched-sim: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char *buf = malloc(DS_POLICY_MAX_BYTES + 1);
    if (buf == NULL) {
        fclose(f);
        fprintf(stderr, "dagsched-sim: out of memory\n");
        return -1;
    }
    size_t n = fread(buf, 1, DS_POLICY_MAX_BYTES + 1, f);
    int bad = ferror(f);
    fclose(f);
    int rc = 0;
    ds_err err = {{0}};
    if (bad) {
        fprintf(stderr, "dagsched-sim: %s: read error\n", path);
        rc = -1;
    } else if (n > DS_POLICY_MAX_BYTES) {
        fprintf(stderr, "dagsched-sim: %s: larger than %d bytes\n", path, DS_POLICY_MAX_BYTES);
        rc = -1;
    } else if (ds_policy_parse(buf, n, pol, &err) != 0) {
        fprintf(stderr, "dagsched-sim: %s: %s\n", path, err.msg);
        rc = -1;
    }
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
        fprintf(f, "%llu\n", (unsigned long long)j->evictions_for);
    }
}

int main(int argc, char **argv)
{
    opts o = {0};
    sim_gen_defaults(&o.gen);
    sim_alibaba_defaults(&o.ali);
    o.ali.deadline_factor_min = o.gen.deadline_factor_min;
    o.ali.deadline_factor_max = o.gen.deadline_factor_max;
    o.policies = "all";
    o.seeds[0] = 1;
    o.n_seeds = 1;
    o.restart_delay_s = 1.0;
    o.disorder_fail_s = 5.0;
    o.extender_weight = 5.0;
    o.release_latency_s = SIM_DEFAULT_RELEASE_LATENCY_S;
    o.round_interval_s = 1.0;
    o.pod_initial_backoff_s = 1.0;
    o.pod_max_backoff_s = 10.0;
    o.backoff_flush_s = 1.0;
    o.max_unschedulable_s = 300.0;
    o.gantt_nodes = 16;
    if (parse_args(argc, argv, &o) != 0)
        return 2;
    if (o.pod_max_backoff_s < o.pod_initial_backoff_s) {
        fprintf(stderr, "dagsched-sim: --pod-max-backoff must be >= --pod-initial-backoff\n");
        return 2;
    }

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
        fprintf(
            jobs_f,
            "policy,seed,job,tasks,arrival_s,completion_s,jct_s,deadline_s,met,evictions_for\n");
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
            cfg.graph_observed = o.graph_observed != 0;
            cfg.pod_initial_backoff_s = o.pod_initial_backoff_s;
            cfg.pod_max_backoff_s = o.pod_max_backoff_s;
            cfg.backoff_flush_s = o.backoff_flush_s;
            cfg.max_unschedulable_s = o.max_unschedulable_s;
            cfg.record_segments = o.gantt_svg != NULL;
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
            sim_result_free(&r);
        }
        sim_workload_free(&w);
    }
    if (jobs_f != NULL && fclose(jobs_f) != 0) {
        fprintf(stderr, "dagsched-sim: %s: write failed\n", o.jobs_csv);
        status = 1;
    }
    if (status == 0 && write_outputs(&o, runs, n_runs, names, n_run, title) != 0)
        status = 1;
    free(runs);
    return status;
}
