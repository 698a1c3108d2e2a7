/* bench_victim.c: benchmark of victim selection (ds_select_victims, DSP Algorithm 1) on large
 * generated instances shaped like the simulator's overloaded clusters: thousands of urgent waiting
 * pods, thousands of running pods on 50 nodes, DAG jobs of up to 2,000 tasks. Every instance is
 * also given to the previous implementation (bench/victim_ref.c); the decisions must be identical
 * (preemptor, victim, node, reason, gaps), otherwise the benchmark fails. Times are CPU time per
 * call, best of a few runs.
 *
 * Tasks with a deadline may be victims in these instances (spec.preemption.deadlineVictims: true),
 * as they could before that rule existed; the fuzzed instances draw every rule on or off.
 *
 *   make bench-victim                       every scenario
 *   build/rel/bench/bench_victim --quick    smaller instances (a few seconds) */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dag.h"
#include "victim.h"
#include "victim_ref.h"

#define GI ((int64_t)1 << 30)
#define MI ((int64_t)1 << 20)

typedef struct scenario {
    const char *name;
    const char *what;
    size_t nodes, jobs, min_tasks, max_tasks, running, waiting;
    double urgent;    /* fraction of waiting pods that are urgent */
    double late;      /* fraction of running pods whose own slack is gone (not preemptable) */
    double evictable; /* fraction of running pods that may be evicted (cooldown, protection) */
    double min_run_s, rho, tau_s;
    size_t victims, per_node, max_evictions; /* per preemptor, per node, per call */
} scenario;

static const scenario scenarios[] = {
    {"dsp", "DSP as published: no limits, rho 1.5", 50, 150, 100, 2000, 2500, 20000, 0.7, 0.8, 1.0,
     0, 1.5, 0, 1, SIZE_MAX, SIZE_MAX},
    {"dsp-nopp", "DSP without normalised priorities (rho 0)", 50, 150, 100, 2000, 2500, 20000, 0.7,
     0.8, 1.0, 0, 0, 0, 1, SIZE_MAX, SIZE_MAX},
    {"dagsched", "anti-thrash limits: 5 evictions, 1 per node, 60 s minimum run", 50, 300, 100,
     2000, 4000, 200000, 0.3, 0.3, 0.7, 60, 1.5, 0, 1, 1, 5},
    {"dagsched-starving", "as dagsched with a starvation guard (tau 600 s)", 50, 300, 100, 2000,
     4000, 200000, 0.3, 0.3, 0.7, 60, 1.5, 600, 1, 1, 5},
    {"multi-victim", "up to 4 victims per preemptor, 4 per node, 200 per call", 50, 150, 100, 2000,
     2500, 20000, 0.4, 0.3, 1.0, 0, 1.5, 0, 4, 4, 200},
    {"nothing-to-evict", "every running pod is late or protected", 50, 150, 100, 2000, 2500, 200000,
     0.4, 1.0, 1.0, 60, 1.5, 0, 1, 1, 5},
};

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) / 9007199254740992.0;
}

static size_t rng_below(uint64_t *s, size_t n)
{
    return (size_t)(rng_next(s) % n);
}

/* Log-normal with the given median and sigma (Box-Muller). */
static double rng_lognormal(uint64_t *s, double median, double sigma)
{
    double u1 = rng_unit(s), u2 = rng_unit(s);
    if (u1 < 1e-300)
        u1 = 1e-300;
    double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    return median * exp(sigma * z);
}

static int64_t clip(double v, int64_t lo, int64_t hi)
{
    if (v < (double)lo)
        return lo;
    if (v > (double)hi)
        return hi;
    return (int64_t)v;
}

typedef struct instance {
    ds_dag *dags;
    const ds_dag **jobs;
    size_t n_jobs;
    ds_waiting_task *w;
    ds_running_task *r;
    ds_node_free *n;
    ds_preempt_params p;
    size_t n_w, n_r, n_n;
} instance;

static void instance_free(instance *in)
{
    for (size_t j = 0; j < in->n_jobs; j++)
        ds_dag_free(&in->dags[j]);
    free(in->dags);
    free(in->jobs);
    free(in->w);
    free(in->r);
    free(in->n);
    memset(in, 0, sizeof *in);
}

/* A job of n tasks on 5 levels; a task below level 1 depends on one task of the level above and
 * on up to two more of any level above, like the simulator's generator. */
static int build_job(ds_dag *d, size_t n, uint64_t *s)
{
    ds_task_spec *specs = calloc(n, sizeof *specs);
    char(*names)[16] = calloc(n, sizeof *names);
    const char *(*ups)[3] = calloc(n, sizeof *ups);
    size_t *level_start = calloc(6, sizeof *level_start);
    if (specs == NULL || names == NULL || ups == NULL || level_start == NULL) {
        free(specs);
        free(names);
        free(ups);
        free(level_start);
        return -1;
    }
    for (size_t l = 0; l <= 5; l++)
        level_start[l] = n * l / 5;
    for (size_t l = 0; l < 5; l++)
        for (size_t i = level_start[l]; i < level_start[l + 1]; i++) {
            snprintf(names[i], sizeof names[i], "t%zu", i);
            size_t nu = 0;
            if (l > 0) {
                size_t prev = level_start[l - 1], span = level_start[l] - level_start[l - 1];
                ups[i][nu++] = names[prev + rng_below(s, span)];
                size_t more = rng_below(s, 3);
                for (size_t m = 0; m < more; m++)
                    ups[i][nu++] = names[rng_below(s, level_start[l])];
            }
            specs[i] = (ds_task_spec){names[i], rng_lognormal(s, 30, 1), ups[i], nu};
        }
    ds_err err = {{0}};
    int rc = ds_dag_build(d, specs, n, &err);
    if (rc != 0)
        fprintf(stderr, "bench-victim: job: %s\n", err.msg);
    free(specs);
    free(names);
    free(ups);
    free(level_start);
    return rc;
}

/* DSP-like priorities: a heavy right tail (Eq. 12 multiplies by 1.5 per level). */
static double priority(uint64_t *s, int level)
{
    return rng_lognormal(s, 1.0, 1.0) * pow(1.5, 5 - level) * (1.0 + 0.1 * rng_unit(s));
}

static int instance_make(instance *in, const scenario *sc, uint64_t seed, double scale)
{
    memset(in, 0, sizeof *in);
    uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 1;
    in->n_jobs = (size_t)((double)sc->jobs * scale) + 1;
    in->n_w = (size_t)((double)sc->waiting * scale) + 1;
    in->n_r = sc->running;
    in->n_n = sc->nodes;
    in->dags = calloc(in->n_jobs, sizeof *in->dags);
    in->jobs = calloc(in->n_jobs, sizeof *in->jobs);
    in->w = calloc(in->n_w, sizeof *in->w);
    in->r = calloc(in->n_r, sizeof *in->r);
    in->n = calloc(in->n_n, sizeof *in->n);
    if (in->dags == NULL || in->jobs == NULL || in->w == NULL || in->r == NULL || in->n == NULL)
        return -1;
    size_t built = 0;
    for (; built < in->n_jobs; built++) {
        size_t n = sc->min_tasks + rng_below(&s, sc->max_tasks - sc->min_tasks + 1);
        if (build_job(&in->dags[built], n, &s) != 0) {
            in->n_jobs = built;
            return -1;
        }
        in->jobs[built] = &in->dags[built];
    }
    for (size_t i = 0; i < in->n_n; i++)
        in->n[i] = (ds_node_free){
            .free_ = {{(int64_t)rng_below(&s, 400), (int64_t)rng_below(&s, 3) * GI / 2, 0, 0}},
            .evictions_left = sc->per_node};
    for (size_t i = 0; i < in->n_r; i++) {
        size_t j = rng_below(&s, in->n_jobs);
        const ds_dag *d = in->jobs[j];
        size_t t = rng_below(&s, d->n);
        in->r[i] = (ds_running_task){
            .job = j,
            .task = t,
            .priority = priority(&s, d->tasks[t].level),
            .t_allow_s = rng_unit(&s) < sc->late ? rng_unit(&s) * 10.0 : 60 + rng_unit(&s) * 3600,
            .ran_s = rng_unit(&s) * 300,
            .request = {{clip(rng_lognormal(&s, 250, 0.8), 10, 8000),
                         clip(rng_lognormal(&s, 512.0 * MI, 1), 16 * MI, 16 * GI), 0, 0}},
            .node = rng_below(&s, in->n_n),
            .evictable = rng_unit(&s) < sc->evictable,
        };
    }
    for (size_t i = 0; i < in->n_w; i++) {
        size_t j = rng_below(&s, in->n_jobs);
        const ds_dag *d = in->jobs[j];
        size_t t = rng_below(&s, d->n);
        in->w[i] = (ds_waiting_task){
            .job = j,
            .task = t,
            .priority = priority(&s, d->tasks[t].level),
            .t_allow_s = rng_unit(&s) < sc->urgent ? rng_unit(&s) * 30 - 600 * rng_unit(&s)
                                                   : 60 + rng_unit(&s) * 3600,
            .t_wait_s = rng_unit(&s) * 1200,
            .request = {{clip(rng_lognormal(&s, 250, 0.8), 10, 8000),
                         clip(rng_lognormal(&s, 512.0 * MI, 1), 16 * MI, 16 * GI), 0, 0}},
        };
    }
    in->p = (ds_preempt_params){.epsilon_s = 30,
                                .epoch_s = 10,
                                .delta = 0.35,
                                .rho = sc->rho,
                                .tau_s = sc->tau_s,
                                .min_run_s = sc->min_run_s,
                                .max_victims_per_preemptor = sc->victims,
                                .max_evictions = sc->max_evictions,
                                .deadline_victims = true};
    return 0;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef long (*select_fn)(const ds_waiting_task *, size_t, const ds_running_task *, size_t,
                          const ds_node_free *, size_t, const ds_dag *const *, size_t,
                          const ds_preempt_params *, ds_decision *, size_t, ds_err *);

/* Best CPU time of `runs` calls; the decisions of the last one stay in out. */
static double time_calls(select_fn fn, const instance *in, ds_decision *out, long *got, int runs)
{
    double best = INFINITY;
    for (int k = 0; k < runs; k++) {
        ds_err err = {{0}};
        double t0 = cpu_seconds();
        *got = fn(in->w, in->n_w, in->r, in->n_r, in->n, in->n_n, in->jobs, in->n_jobs, &in->p, out,
                  in->n_r, &err);
        double dt = cpu_seconds() - t0;
        if (*got < 0) {
            fprintf(stderr, "bench-victim: %s\n", err.msg);
            return -1;
        }
        if (dt < best)
            best = dt;
    }
    return best;
}

static bool same_decisions(const ds_decision *a, const ds_decision *b, long n)
{
    for (long i = 0; i < n; i++) {
        bool gaps = (a[i].gap == b[i].gap || (isnan(a[i].gap) && isnan(b[i].gap))) &&
                    (a[i].normalised_gap == b[i].normalised_gap ||
                     (isnan(a[i].normalised_gap) && isnan(b[i].normalised_gap)));
        if (a[i].waiting != b[i].waiting || a[i].running != b[i].running ||
            a[i].node != b[i].node || a[i].reason != b[i].reason || !gaps) {
            fprintf(stderr,
                    "bench-victim: decision %ld differs: new (w %zu, r %zu, node %zu, %s) vs "
                    "previous (w %zu, r %zu, node %zu, %s)\n",
                    i, a[i].waiting, a[i].running, a[i].node, ds_reason_name(a[i].reason),
                    b[i].waiting, b[i].running, b[i].node, ds_reason_name(b[i].reason));
            return false;
        }
    }
    return true;
}

/* Many small random instances with coarse priorities (ties) and requests, every parameter drawn:
 * the edge cases of the pruning (ties, multi-victim plans, budgets, C2, the failure memory). */
static int fuzz(size_t rounds)
{
    enum { F_TASKS = 10, F_NODES = 4, F_RUN = 20, F_WAIT = 16, F_OUT = 32 };
    uint64_t s = 0x2545f4914f6cdd1dULL;
    ds_dag dags[2];
    char names[F_TASKS][8];
    const char *ups[F_TASKS][2];
    ds_task_spec specs[F_TASKS];
    for (int j = 0; j < 2; j++) {
        for (size_t i = 0; i < F_TASKS; i++) {
            snprintf(names[i], sizeof names[i], "t%zu", i);
            size_t nu = i == 0 ? 0 : rng_below(&s, 3);
            for (size_t u = 0; u < nu; u++)
                ups[i][u] = names[rng_below(&s, i)];
            specs[i] = (ds_task_spec){names[i], 10, ups[i], nu};
        }
        ds_err err = {{0}};
        if (ds_dag_build(&dags[j], specs, F_TASKS, &err) != 0) {
            fprintf(stderr, "bench-victim: fuzz job: %s\n", err.msg);
            return -1;
        }
    }
    const ds_dag *jobs[] = {&dags[0], &dags[1]};
    size_t mismatches = 0, decisions = 0;
    for (size_t round = 0; round < rounds; round++) {
        ds_preempt_params p = {.epsilon_s = 30,
                               .epoch_s = 10,
                               .delta = (double)rng_below(&s, 5) / 4.0,
                               .rho = rng_below(&s, 2) ? 0 : 1.5,
                               .tau_s = rng_below(&s, 2) ? 0 : 50,
                               .min_run_s = 60,
                               .max_victims_per_preemptor = 1 + rng_below(&s, 4),
                               .max_evictions = rng_below(&s, 12),
                               .payoff = rng_below(&s, 2),
                               .queue_order = rng_below(&s, 2),
                               .deadline_victims = rng_below(&s, 2),
                               .same_resource_first = rng_below(&s, 2),
                               .long_task_s = rng_below(&s, 2) ? 0 : 150,
                               .start_latency_s = (double)rng_below(&s, 3) * 5};
        ds_node_free n[F_NODES];
        for (size_t k = 0; k < F_NODES; k++)
            n[k] = (ds_node_free){
                .free_ = {{(int64_t)rng_below(&s, 3) * 250, (int64_t)rng_below(&s, 3) * GI, 0, 0}},
                .evictions_left = rng_below(&s, 4),
                .capacity = {{4000, 8 * GI, 0, 2}},
                .long_evicted = rng_below(&s, 4) == 0};
        ds_running_task r[F_RUN];
        bool all_known = rng_below(&s, 2) == 0; /* every end known: the forecast may say never */
        for (size_t i = 0; i < F_RUN; i++)
            r[i] = (ds_running_task){
                .job = rng_below(&s, 3) == 2 ? DS_NO_TASK : rng_below(&s, 2),
                .task = rng_below(&s, F_TASKS),
                .priority = (double)rng_below(&s, 12) / 4.0,
                .t_allow_s = rng_below(&s, 4) == 0 ? 5 + (double)rng_below(&s, 3) * 100 : INFINITY,
                .ran_s = (double)rng_below(&s, 200),
                .t_rem_s = (double)rng_below(&s, 4) * 40 + (all_known ? 5.0 : 0.0),
                .order = {(double)rng_below(&s, 3), (double)rng_below(&s, 2)},
                .request = {{(int64_t)rng_below(&s, 5) * 250, (int64_t)rng_below(&s, 3) * GI, 0,
                             (int64_t)(rng_below(&s, 8) == 0)}},
                .node = rng_below(&s, F_NODES),
                .evictable = rng_below(&s, 5) != 0,
            };
        ds_waiting_task w[F_WAIT];
        for (size_t i = 0; i < F_WAIT; i++)
            w[i] = (ds_waiting_task){
                .job = rng_below(&s, 3) == 2 ? DS_NO_TASK : rng_below(&s, 2),
                .task = rng_below(&s, F_TASKS),
                .priority = (double)rng_below(&s, 12) / 4.0,
                .t_allow_s = rng_below(&s, 3) != 0 ? (double)rng_below(&s, 60) : INFINITY,
                .t_wait_s = (double)rng_below(&s, 100),
                .t_rem_s = (double)rng_below(&s, 50),
                .order = {(double)rng_below(&s, 3), (double)rng_below(&s, 2)},
                .ahead = {{(int64_t)rng_below(&s, 4) * 250, (int64_t)rng_below(&s, 2) * GI, 0, 0}},
                .request = {{250 + (int64_t)rng_below(&s, 6) * 250, (int64_t)rng_below(&s, 3) * GI,
                             0, (int64_t)(rng_below(&s, 8) == 0)}},
            };
        for (size_t i = 0; i < F_WAIT; i++) {
            /* Now and then a queue ahead longer than the known ends ever free ("never"); none,
             * half or all of it waiting at a gate (ds_room_saved_wait). */
            if (rng_below(&s, 3) == 0)
                w[i].ahead.v[DS_RES_CPU] += 100000;
            for (int k = 0; k < DS_RES_N; k++)
                w[i].ahead_gated.v[k] = w[i].ahead.v[k] * (int64_t)rng_below(&s, 3) / 2;
        }
        ds_decision a[F_OUT], b[F_OUT];
        ds_err err = {{0}};
        long ga = ds_select_victims(w, F_WAIT, r, F_RUN, n, F_NODES, jobs, 2, &p, a, F_OUT, &err);
        long gb = ref_select_victims(w, F_WAIT, r, F_RUN, n, F_NODES, jobs, 2, &p, b, F_OUT, &err);
        if (ga < 0 || ga != gb || !same_decisions(a, b, ga)) {
            fprintf(stderr, "bench-victim: fuzz round %zu: %ld decisions vs %ld previously\n",
                    round, ga, gb);
            mismatches++;
        }
        decisions += ga > 0 ? (size_t)ga : 0;
    }
    ds_dag_free(&dags[0]);
    ds_dag_free(&dags[1]);
    printf("fuzz: %zu small random instances, %zu decisions, %zu differences\n", rounds, decisions,
           mismatches);
    return mismatches == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (argc > 1 && !quick) {
        fprintf(stderr, "usage: bench_victim [--quick]\n");
        return 2;
    }
    double scale = quick ? 0.2 : 1.0;
    int seeds = quick ? 2 : 3;
    int failed = fuzz(quick ? 20000 : 100000) != 0;
    printf("victim selection: CPU time per ds_select_victims call (best of 3), previous "
           "implementation vs current; decisions compared on every instance\n");
    printf("%-18s %5s %8s %6s %6s %9s %11s %11s %8s\n", "scenario", "seed", "waiting", "urgent",
           "run", "decisions", "previous ms", "current ms", "speedup");
    for (size_t si = 0; si < sizeof scenarios / sizeof scenarios[0]; si++) {
        const scenario *sc = &scenarios[si];
        for (int seed = 1; seed <= seeds; seed++) {
            instance in;
            if (instance_make(&in, sc, (uint64_t)seed + 17 * si, scale) != 0) {
                fprintf(stderr, "bench-victim: %s: out of memory\n", sc->name);
                instance_free(&in);
                return 1;
            }
            size_t urgent = 0;
            for (size_t i = 0; i < in.n_w; i++)
                urgent += in.w[i].t_allow_s <= in.p.epsilon_s;
            ds_decision *a = calloc(in.n_r, sizeof *a), *b = calloc(in.n_r, sizeof *b);
            if (a == NULL || b == NULL) {
                free(a);
                free(b);
                instance_free(&in);
                fprintf(stderr, "bench-victim: out of memory\n");
                return 1;
            }
            long got_new = 0, got_ref = 0;
            double t_new = time_calls(ds_select_victims, &in, a, &got_new, 3);
            double t_ref = time_calls(ref_select_victims, &in, b, &got_ref, quick ? 1 : 2);
            bool ok =
                t_new >= 0 && t_ref >= 0 && got_new == got_ref && same_decisions(a, b, got_new);
            if (!ok) {
                fprintf(stderr, "bench-victim: %s seed %d: %ld decisions vs %ld previously\n",
                        sc->name, seed, got_new, got_ref);
                failed++;
            }
            printf("%-18s %5d %8zu %6zu %6zu %9ld %11.2f %11.2f %7.0fx%s\n", sc->name, seed, in.n_w,
                   urgent, in.n_r, got_new, t_ref * 1e3, t_new * 1e3,
                   t_new > 0 ? t_ref / t_new : INFINITY, ok ? "" : "  MISMATCH");
            free(a);
            free(b);
            instance_free(&in);
        }
    }
    for (size_t si = 0; si < sizeof scenarios / sizeof scenarios[0]; si++)
        printf("  %-18s %s\n", scenarios[si].name, scenarios[si].what);
    if (failed) {
        fprintf(stderr, "bench-victim: %d instances with different decisions\n", failed);
        return 1;
    }
    printf("bench-victim: identical decisions on every instance\n");
    return 0;
}
