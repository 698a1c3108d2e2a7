/* bench_snapshot.c: the cost of keeping the extender's snapshot current, for `make
 * bench-snapshot` (no cluster).
 *
 * Builds NODES nodes and PODS pods in process (decoded from API JSON, as the informers cache
 * them): a share of them (DAG_SHARE) tasks of ten-task DAG jobs in every state, the rest running
 * pods outside any job. Then, ROUNDS times, changes BATCH random pods (a new version of each: a
 * waiting task bound, a running one finished, a plain pod moved to another node), and measures
 * in the same run the baseline, a snapshot built from scratch (ext_snapshot_build, what the
 * extender did after every change), and the incremental update (the changes given to an
 * ext_snapcache, then ext_snapcache_build), both in CPU time of the building thread. Prints the
 * median and p90 of both, their ratio, the units evaluated again per round, the share of a core
 * either would take at one build per 100 ms, the cost of the periodic reload (the cache loaded
 * from all objects and every unit evaluated), and the heap held by the cache and one snapshot
 * (mallinfo2).
 *
 * Usage: bench_snapshot [NODES PODS BATCH ROUNDS] (defaults 1000 20000 50 40) */
#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fixtures.h"
#include "log.h"
#include "malloc_setup.h"
#include "snapcache.h"

#define TASKS_PER_JOB 10
#define DAG_SHARE     0.4

typedef struct bench {
    size_t n_nodes, n_pods;
    const kube_node **nodes;
    const kube_pod **pods;
    unsigned *version;
    uint64_t rng;
    ds_policy policy;
    double now;
} bench;

static unsigned rnd(bench *b, unsigned n)
{
    b->rng ^= b->rng << 13;
    b->rng ^= b->rng >> 7;
    b->rng ^= b->rng << 17;
    return (unsigned)(b->rng % n);
}

/* Pod i in version v: DAG tasks advance with v (waiting -> running -> succeeded); plain pods move
 * between nodes. */
static const kube_pod *make_pod(bench *b, size_t i, unsigned v)
{
    static const char *const deps[TASKS_PER_JOB] = {NULL, "t0", "t0", "t1", "t2",
                                                    "t0", "t3", "t4", "t3", "t4"};
    static const char *const phases[] = {"Pending", "Running", "Succeeded"};
    char name[48], uid[64], rv[16], job[32], task[8], node[32];
    size_t n_dag = (size_t)((double)b->n_pods * DAG_SHARE) / TASKS_PER_JOB * TASKS_PER_JOB;
    snprintf(rv, sizeof rv, "%u", v + 1);
    if (i < n_dag) {
        size_t j = i / TASKS_PER_JOB, k = i % TASKS_PER_JOB;
        unsigned stage = (unsigned)((k < 3 ? 2 : k < 5 ? 1 : 0) + v) % 3;
        snprintf(job, sizeof job, "job-%05zu", j);
        snprintf(task, sizeof task, "t%zu", k);
        snprintf(name, sizeof name, "%s-%s", job, task);
        snprintf(uid, sizeof uid, "uid-%s", name);
        snprintf(node, sizeof node, "node-%05zu", (j * 7 + k + v) % b->n_nodes);
        return fx_pod(&(fx_pod_spec){.ns = "batch",
                                     .name = name,
                                     .uid = uid,
                                     .rv = rv,
                                     .job = job,
                                     .task = task,
                                     .depends_on = deps[k],
                                     .runtime = "90s",
                                     .deadline = j % 2 == 0 ? "2026-11-27T12:00:00Z" : NULL,
                                     .node = stage > 0 ? node : NULL,
                                     .phase = phases[stage],
                                     .cpu = "500m",
                                     .mem = "1Gi",
                                     .created = "2026-11-26T04:00:00Z",
                                     .started = stage > 0 ? "2026-11-26T04:05:00Z" : NULL});
    }
    snprintf(name, sizeof name, "web-%06zu", i);
    snprintf(uid, sizeof uid, "uid-%s", name);
    snprintf(node, sizeof node, "node-%05zu", (i * 13 + v) % b->n_nodes);
    return fx_pod(&(fx_pod_spec){.ns = "web",
                                 .name = name,
                                 .uid = uid,
                                 .rv = rv,
                                 .node = node,
                                 .phase = "Running",
                                 .cpu = "250m",
                                 .mem = "512Mi",
                                 .created = "2026-11-26T04:00:00Z",
                                 .started = "2026-11-26T04:00:01Z"});
}

static ext_build_input input(const bench *b)
{
    return (ext_build_input){.nodes = b->nodes,
                             .n_nodes = b->n_nodes,
                             .pods = b->pods,
                             .n_pods = b->n_pods,
                             .policy = &b->policy,
                             .policy_generation = 1,
                             .now = b->now};
}

/* CPU time of this thread: what a build costs, whatever else runs on the machine. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, c = *(const double *)y;
    return (a > c) - (a < c);
}

static double pct(double *v, size_t n, double p)
{
    qsort(v, n, sizeof *v, cmp_double);
    return v[(size_t)(p * (double)(n - 1))];
}

static size_t heap_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

int main(int argc, char **argv)
{
    bench b = {.n_nodes = 1000, .n_pods = 20000, .rng = 0x9e3779b97f4a7c15ull};
    size_t batch = 50, rounds = 40;
    if (argc == 5) {
        b.n_nodes = strtoul(argv[1], NULL, 10);
        b.n_pods = strtoul(argv[2], NULL, 10);
        batch = strtoul(argv[3], NULL, 10);
        rounds = strtoul(argv[4], NULL, 10);
    }
    if (b.n_nodes == 0 || b.n_nodes > 100000 || b.n_pods == 0 || b.n_pods > 1000000 || batch == 0 ||
        batch > b.n_pods || rounds == 0 || rounds > 10000) {
        fprintf(stderr, "usage: bench_snapshot [NODES PODS BATCH ROUNDS]\n");
        return 2;
    }
    (void)rt_malloc_setup(RT_MALLOC_EXTENDER); /* as the extender does (main.c) */
    kube_log_setup(KUBE_LOG_WARN, KUBE_LOG_TEXT, NULL);
    ds_policy_defaults(&b.policy);
    b.now = (double)time(NULL);
    b.nodes = calloc(b.n_nodes, sizeof *b.nodes);
    b.pods = calloc(b.n_pods, sizeof *b.pods);
    b.version = calloc(b.n_pods, sizeof *b.version);
    double *full = calloc(rounds, sizeof *full), *inc = calloc(rounds, sizeof *inc);
    if (b.nodes == NULL || b.pods == NULL || b.version == NULL || full == NULL || inc == NULL)
        return 1;
    static const char *const cpus[] = {"16", "32", "64", "8"};
    static const char *const speeds[] = {"1", "2", "0.5", NULL};
    for (size_t i = 0; i < b.n_nodes; i++) {
        char name[32];
        snprintf(name, sizeof name, "node-%05zu", i);
        b.nodes[i] = fx_node(name, cpus[i % 4], "128Gi", speeds[(i / 16) % 4]);
    }
    for (size_t i = 0; i < b.n_pods; i++)
        b.pods[i] = make_pod(&b, i, 0);

    ds_err err;
    size_t heap0 = heap_bytes();
    ext_snapcache *c = ext_snapcache_new();
    ext_build_input in = input(&b);
    ext_snapshot *cur = NULL;
    if (c == NULL || ext_snapcache_reset(c, &in, &err) != 0 ||
        ext_snapcache_build(c, &in, &cur, &err) != 0) {
        fprintf(stderr, "bench_snapshot: %s\n", c == NULL ? "out of memory" : err.msg);
        return 1;
    }
    size_t heap_cache = heap_bytes() - heap0;
    uint64_t built0 = ext_snapcache_units_built(c);
    printf("cluster: %zu nodes, %zu pods (%zu DAG jobs, %zu units), batches of %zu changes, "
           "%zu rounds\n",
           b.n_nodes, b.n_pods, cur->jobs.n_jobs, ext_snapcache_units(c), batch, rounds);
    for (size_t r = 0; r < rounds; r++) {
        for (size_t k = 0; k < batch; k++) {
            size_t i = rnd(&b, (unsigned)b.n_pods);
            const kube_pod *old = b.pods[i];
            b.pods[i] = make_pod(&b, i, ++b.version[i]);
            double t0 = cpu_now();
            ext_snapcache_pod(c, old, b.pods[i]);
            inc[r] += cpu_now() - t0;
            kube_obj_unref(&old->meta);
        }
        in = input(&b);
        ext_snapshot *s = NULL;
        double t0 = cpu_now();
        if (ext_snapshot_build(&in, &s, &err) != 0) {
            fprintf(stderr, "bench_snapshot: %s\n", err.msg);
            return 1;
        }
        full[r] = cpu_now() - t0;
        ext_snapshot_unref(s);
        t0 = cpu_now();
        if (ext_snapcache_build(c, &in, &s, &err) != 0) {
            fprintf(stderr, "bench_snapshot: %s\n", err.msg);
            return 1;
        }
        inc[r] += cpu_now() - t0;
        ext_snapshot_unref(cur);
        cur = s;
    }
    double evaluated = (double)(ext_snapcache_units_built(c) - built0) / (double)rounds;
    /* The periodic refresh: the cache loaded from the lists, every unit evaluated. */
    size_t n_reload = rounds < 5 ? rounds : 5;
    double *reload = calloc(n_reload, sizeof *reload);
    if (reload == NULL)
        return 1;
    for (size_t r = 0; r < n_reload; r++) {
        ext_snapshot *s = NULL;
        double t0 = cpu_now();
        if (ext_snapcache_reset(c, &in, &err) != 0 || ext_snapcache_build(c, &in, &s, &err) != 0) {
            fprintf(stderr, "bench_snapshot: %s\n", err.msg);
            return 1;
        }
        reload[r] = cpu_now() - t0;
        ext_snapshot_unref(cur);
        cur = s;
    }
    double r50 = pct(reload, n_reload, 0.5);
    free(reload);
    double f50 = pct(full, rounds, 0.5), f90 = pct(full, rounds, 0.9);
    double i50 = pct(inc, rounds, 0.5), i90 = pct(inc, rounds, 0.9);
    printf("full rebuild (baseline)  median %7.2f ms  p90 %7.2f ms CPU\n", f50 * 1e3, f90 * 1e3);
    printf("incremental update       median %7.2f ms  p90 %7.2f ms CPU (%.1f units evaluated)\n",
           i50 * 1e3, i90 * 1e3, evaluated);
    printf("reload (periodic refresh) median %7.2f ms CPU, every 5 s: %.1f%% of a core\n",
           r50 * 1e3, r50 / 5 * 100);
    printf("ratio full/incremental   %.1fx (median)\n", f50 / i50);
    printf("one build per 100 ms (50 changes/s): %.1f%% of a core incremental, %.1f%% full\n",
           i50 * 10 * 100, f50 * 10 * 100);
    size_t heap_all = heap_bytes() - heap0;
    printf("heap: cache and current snapshot %.1f MB (%.1f MB after the first build)\n",
           (double)heap_all / 1048576.0, (double)heap_cache / 1048576.0);
    ext_snapshot_unref(cur);
    ext_snapcache_free(c);
    for (size_t i = 0; i < b.n_pods; i++)
        kube_obj_unref(&b.pods[i]->meta);
    for (size_t i = 0; i < b.n_nodes; i++)
        kube_obj_unref(&b.nodes[i]->meta);
    free(b.nodes);
    free(b.pods);
    free(b.version);
    free(full);
    free(inc);
    return 0;
}
