/* bench_jobmodel.c: how long ds_jobs_build takes on synthetic clusters, to check that it stays
 * roughly linear in pods and tasks. Each scenario has one large layered job declared by pod
 * annotations (each task depends on three tasks of the level above; the first quarter of levels
 * succeeded), the same shape declared by a JobGraph without pods, and many 10-task chain jobs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "jobmodel.h"

#define T0    1795000000.0
#define WIDTH 100

typedef struct scenario {
    size_t big_tasks;   /* tasks of the large job (a multiple of WIDTH) */
    size_t graph_tasks; /* tasks of the JobGraph (a multiple of WIDTH; 1 MiB holds ~14,000) */
    size_t small_jobs;  /* 10-task jobs */
} scenario;

static void die(const char *what)
{
    fprintf(stderr, "bench_jobmodel: %s\n", what);
    exit(1);
}

static void run(const scenario *sc)
{
    size_t levels = sc->big_tasks / WIDTH;
    size_t n = sc->big_tasks + sc->small_jobs * 10;
    ds_pod_obs *p = calloc(n, sizeof *p);
    char(*names)[48] = calloc(n, sizeof *names);
    char(*jobs)[32] = calloc(sc->small_jobs + 1, sizeof *jobs);
    char(*deps)[160] = calloc(n, sizeof *deps);
    size_t cap = 128 * sc->graph_tasks + 256;
    char *yaml = malloc(cap);
    if (p == NULL || names == NULL || jobs == NULL || deps == NULL || yaml == NULL)
        die("out of memory");
    for (size_t k = 0; k < n; k++) {
        ds_pod_obs *q = &p[k];
        q->ns = "default";
        q->name = q->uid = q->task = names[k];
        q->phase = DS_PHASE_PENDING;
        q->created_at = T0;
        q->started_at = q->finished_at = NAN;
        q->node_speed = 1;
        q->runtime = "30s";
        if (k < sc->big_tasks) {
            size_t l = k / WIDTH, i = k % WIDTH;
            snprintf(names[k], sizeof names[k], "t-%zu-%zu", l + 1, i);
            if (l > 0) {
                snprintf(deps[k], sizeof deps[k], "t-%zu-%zu,t-%zu-%zu,t-%zu-%zu", l, i, l,
                         (i + 1) % WIDTH, l, (i + 7) % WIDTH);
                q->depends_on = deps[k];
            }
            q->job_label = "big";
            if (l < levels / 4) {
                q->phase = DS_PHASE_SUCCEEDED;
                q->bound = true;
                q->finished_at = T0 + (double)l;
            }
        } else {
            size_t j = (k - sc->big_tasks) / 10, t = (k - sc->big_tasks) % 10;
            snprintf(jobs[j], sizeof jobs[j], "small-%zu", j);
            snprintf(names[k], sizeof names[k], "s-%zu-%zu", j, t);
            if (t > 0) {
                snprintf(deps[k], sizeof deps[k], "s-%zu-%zu", j, t - 1);
                q->depends_on = deps[k];
            }
            q->job_label = jobs[j];
        }
    }
    size_t pos =
        (size_t)snprintf(yaml, cap,
                         "apiVersion: dagsched.io/v1alpha1\nkind: JobGraph\n"
                         "metadata: {name: graph}\nspec:\n  deadlineAfter: 2h\n  tasks:\n");
    for (size_t k = 0; k < sc->graph_tasks && pos < cap; k++) {
        size_t l = k / WIDTH, i = k % WIDTH;
        if (l == 0)
            pos += (size_t)snprintf(yaml + pos, cap - pos, "  - {name: g-1-%zu, runtime: 1m}\n", i);
        else
            pos += (size_t)snprintf(yaml + pos, cap - pos,
                                    "  - {name: g-%zu-%zu, runtime: 1m, dependsOn: [g-%zu-%zu, "
                                    "g-%zu-%zu, g-%zu-%zu]}\n",
                                    l + 1, i, l, i, l, (i + 1) % WIDTH, l, (i + 7) % WIDTH);
    }
    if (pos >= cap)
        die("graph buffer too small");
    ds_graph_obs g = {"default", "graph", yaml, pos, T0};
    ds_priority_params pp;
    ds_priority_defaults(&pp);

    int reps = sc->big_tasks >= 20000 ? 5 : 20;
    double best = INFINITY;
    size_t waiting = 0;
    for (int r = 0; r < reps; r++) {
        ds_jobset s;
        ds_err e = {{0}};
        double t0 = rt_mono_now();
        if (ds_jobs_build(p, n, &g, 1, T0 + 60, &pp, &s, &e) != 0)
            die(e.msg);
        double dt = rt_mono_now() - t0;
        if (dt < best)
            best = dt;
        waiting = s.n_waiting;
        for (size_t j = 0; j < s.n_jobs; j++)
            if (!s.jobs[j].valid)
                die(s.jobs[j].error);
        if (s.graphs[0].error != NULL)
            die(s.graphs[0].error);
        ds_jobset_free(&s);
    }
    printf("%7zu-task job + %7zu-task JobGraph + %6zu small jobs: %7zu pods, %7zu waiting: "
           "%8.2f ms (best of %d)\n",
           sc->big_tasks, sc->graph_tasks, sc->small_jobs, n, waiting, best * 1e3, reps);
    free(yaml);
    free(deps);
    free(jobs);
    free(names);
    free(p);
}

int main(void)
{
    const scenario scenarios[] = {
        {2000, 2000, 500},
        {2000, 2000, 5000},
        {20000, 10000, 500},
        {20000, 10000, 5000},
    };
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        run(&scenarios[i]);
    return 0;
}
