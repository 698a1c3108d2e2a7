/* bench_graph_work.c: the CPU time of the controller's snapshot (controller/workset.h, then the
 * snapshot and its job model, controller/tracker.h) for GRAPHS JobGraphs of 41,000 tasks each (the
 * most a 1 MiB ConfigMap holds in compact YAML), over ROUNDS rounds, with no bound on graph work
 * and with --max-graph-tasks-per-round's default: the first round (under the bound it also reads
 * every graph once for the job it declares) and the mean of the others.
 *
 * Usage: bench_graph_work [GRAPHS [ROUNDS]]   (defaults 4 and 10; make bench-graph-work) */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracker.h"
#include "workset.h"

#define TASKS      41000
#define MAX_GRAPHS 64

static void die(const char *what)
{
    fprintf(stderr, "bench_graph_work: %s\n", what);
    exit(1);
}

static double cpu_now(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0)
        die("no process clock");
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* JobGraph ConfigMap g<k> of namespace bench declaring job big<k> of TASKS independent tasks. */
static const kube_meta *graph(int k)
{
    size_t cap = 32 * TASKS + 512, pos = 0;
    char *y = malloc(cap);
    if (y == NULL)
        die("out of memory");
    pos += (size_t)snprintf(y, cap,
                            "apiVersion: dagsched.io/v1alpha1\nkind: JobGraph\nmetadata: {name: "
                            "big%d}\nspec:\n  tasks: [",
                            k);
    for (size_t i = 0; i < TASKS && pos < cap; i++)
        pos += (size_t)snprintf(y + pos, cap - pos, "%s{name: %04zx,runtime: 1s}", i ? "," : "", i);
    if (pos + 3 >= cap)
        die("graph buffer too small");
    memcpy(y + pos, "]\n", 3);
    char name[32], uid[32];
    snprintf(name, sizeof name, "g%d", k);
    snprintf(uid, sizeof uid, "uid-g%d", k);
    json_t *cm = json_pack("{s:{s:s,s:s,s:s,s:s,s:{s:s}},s:{s:s}}", "metadata", "name", name,
                           "namespace", "bench", "uid", uid, "resourceVersion", "1", "labels",
                           "dagsched.io/kind", "JobGraph", "data", "graph.yaml", y);
    free(y);
    if (cm == NULL)
        die("out of memory");
    kube_meta *m = NULL;
    ds_err err = {{0}};
    if (kube_obj_decode(KUBE_KIND_CONFIGMAP, cm, NULL, &m, &err) != 0)
        die(err.msg);
    json_decref(cm);
    return m;
}

/* ROUNDS rounds under `bound`; prints the first round's CPU time and the others' mean. */
static void run(const kube_meta *const *g, int n, int rounds, size_t bound)
{
    ctl_workset w;
    ctl_workset_init(&w);
    ds_policy pol;
    ds_policy_defaults(&pol);
    double first = 0, rest = 0;
    size_t evaluated = 0, deferred = 0;
    for (int r = 0; r < rounds; r++) {
        kube_obj_list pods = {0}, nodes = {0}, pdbs = {0}, jobs = {0}, graphs = {0};
        graphs.items = malloc((size_t)n * sizeof *graphs.items);
        if (graphs.items == NULL)
            die("out of memory");
        for (int k = 0; k < n; k++)
            graphs.items[k] = kube_obj_ref(g[k]);
        graphs.n = (size_t)n;
        double t0 = cpu_now();
        ctl_work_round wr;
        ctl_snapshot s;
        ds_err err = {{0}};
        if (ctl_workset_plan(&w, &pods, &jobs, &graphs, bound, &wr, &err) != 0)
            die(err.msg);
        if (ctl_snapshot_build_work(&pods, &nodes, &pdbs, &jobs, &graphs, NULL, &pol, NULL, &wr,
                                    1.8e9, &s, &err) != 0)
            die(err.msg);
        double dt = cpu_now() - t0;
        if (r == 0)
            first = dt;
        else
            rest += dt;
        evaluated = s.js.n_jobs; /* the jobs in the model */
        deferred = wr.plan.n_deferred;
        ctl_snapshot_free(&s);
        ctl_work_round_free(&wr);
    }
    printf("  bound %-6zu  first round %7.1f ms, then %7.1f ms a round (%zu evaluated, %zu "
           "deferred)\n",
           bound, first * 1e3, rounds > 1 ? rest / (rounds - 1) * 1e3 : 0.0, evaluated, deferred);
    ctl_workset_free(&w);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4, rounds = argc > 2 ? atoi(argv[2]) : 10;
    if (n < 1 || n > MAX_GRAPHS || rounds < 1 || rounds > 1000)
        die("usage: bench_graph_work [GRAPHS (1..64) [ROUNDS (1..1000)]]");
    const kube_meta *g[MAX_GRAPHS];
    for (int k = 0; k < n; k++)
        g[k] = graph(k);
    printf("snapshot of %d JobGraphs of %d tasks, %d rounds (CPU time):\n", n, TASKS, rounds);
    run(g, n, rounds, 0);
    run(g, n, rounds, CTL_MAX_GRAPH_TASKS_DEFAULT);
    for (int k = 0; k < n; k++)
        kube_obj_unref(g[k]);
    return 0;
}
