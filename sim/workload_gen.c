/* workload_gen.c: the DSP-style workload generator (see workload_gen.h). */
#include "workload_gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quantity.h"

#define GEN_PRIORITY_HIGH 1000
#define GEN_MAX_EXTRA_UP  2 /* extra upstream tasks beyond the one on the previous level */

void sim_gen_defaults(sim_gen_params *p)
{
    memset(p, 0, sizeof *p);
    p->seed = 1;
    p->n_jobs = 150;
    p->small_min = 100;
    p->small_max = 500;
    p->medium_tasks = 1000;
    p->large_tasks = 2000;
    p->task_scale = 1.0;
    p->rate_min = 2.0;
    p->rate_max = 5.0;
    p->max_levels = 5;
    p->max_fanout = 15;
    p->runtime_s = (sim_dist){SIM_DIST_LOGNORMAL, 30.0, 1.0, 1.0, 3600.0};
    p->cpu_cores = (sim_dist){SIM_DIST_LOGNORMAL, 0.25, 0.8, 0.01, 8.0};
    p->memory_bytes =
        (sim_dist){SIM_DIST_LOGNORMAL, 512.0 * 1048576, 1.0, 16.0 * 1048576, 16.0 * 1073741824};
    p->deadline_factor_min = 1.5;
    p->deadline_factor_max = 3.0;
    p->high_priority_fraction = 0.0;
    p->checkpoint_fraction = 0.0;
    p->release = SIM_RELEASE_ON_UPSTREAM;
    p->mix[0] = p->mix[1] = p->mix[2] = 1;
}

double sim_dist_draw(const sim_dist *d, sim_rng *r)
{
    double x;
    switch (d->kind) {
    case SIM_DIST_UNIFORM:
        x = sim_rng_range(r, d->a, d->b);
        break;
    case SIM_DIST_LOGNORMAL:
        x = sim_rng_lognormal(r, d->a, d->b);
        break;
    default:
        x = d->a;
        break;
    }
    if (x < d->min)
        x = d->min;
    if (x > d->max)
        x = d->max;
    return x;
}

static int parse_number(const char *s, bool quantities, double *out, ds_err *err)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end != s && *end == '\0' && isfinite(v)) {
        *out = v;
        return 0;
    }
    if (quantities) {
        int64_t q;
        if (ds_quantity_parse_value(s, &q, err) == 0) {
            *out = (double)q;
            return 0;
        }
        return -1;
    }
    return ds_err_set(err, "not a number (got \"%s\")", s);
}

int sim_dist_parse(const char *s, bool quantities, sim_dist *d, ds_err *err)
{
    char buf[256];
    if (s == NULL || strlen(s) >= sizeof buf)
        return ds_err_set(err, "distribution: missing or too long");
    strcpy(buf, s);
    char *colon = strchr(buf, ':');
    if (colon == NULL)
        return ds_err_set(err, "distribution: expected KIND:VALUES (got \"%s\")", s);
    *colon = '\0';
    double v[4];
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(colon + 1, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        if (n == 4)
            return ds_err_set(err, "distribution: too many values (got \"%s\")", s);
        if (parse_number(tok, quantities, &v[n], err) != 0) {
            ds_err_prefix(err, "distribution \"%s\"", s);
            return -1;
        }
        n++;
    }
    sim_dist out = {.min = 0, .max = INFINITY};
    if (strcmp(buf, "const") == 0) {
        if (n != 1)
            return ds_err_set(err, "distribution \"%s\": const takes one value", s);
        out.kind = SIM_DIST_CONST;
        out.a = v[0];
    } else if (strcmp(buf, "uniform") == 0 || strcmp(buf, "lognormal") == 0) {
        if (n != 2 && n != 4)
            return ds_err_set(err, "distribution \"%s\": %s takes 2 or 4 values", s, buf);
        out.kind = buf[0] == 'u' ? SIM_DIST_UNIFORM : SIM_DIST_LOGNORMAL;
        out.a = v[0];
        out.b = v[1];
        if (n == 4) {
            out.min = v[2];
            out.max = v[3];
        }
        if (out.kind == SIM_DIST_UNIFORM && !(out.b >= out.a))
            return ds_err_set(err, "distribution \"%s\": uniform needs A <= B", s);
        if (out.kind == SIM_DIST_LOGNORMAL && !(out.a > 0 && out.b >= 0))
            return ds_err_set(err, "distribution \"%s\": lognormal needs MEDIAN > 0, SIGMA >= 0",
                              s);
    } else {
        return ds_err_set(err, "distribution: unknown kind \"%s\" (const, uniform, lognormal)",
                          buf);
    }
    if (!(out.a >= 0) || !(out.min >= 0) || !(out.max >= out.min))
        return ds_err_set(err, "distribution \"%s\": values must be >= 0 and MIN <= MAX", s);
    *d = out;
    return 0;
}

static int check_params(const sim_gen_params *p, ds_err *err)
{
    if (p->n_jobs == 0 || p->n_jobs > SIM_MAX_JOBS)
        return ds_err_set(err, "generator: jobs must be 1..%d (got %zu)", SIM_MAX_JOBS, p->n_jobs);
    if (p->small_min == 0 || p->small_max < p->small_min || p->medium_tasks == 0 ||
        p->large_tasks == 0)
        return ds_err_set(err, "generator: job sizes must be >= 1 and small min <= max");
    if (!(p->task_scale > 0) || p->task_scale * (double)p->large_tasks > DS_DAG_MAX_TASKS ||
        p->task_scale * (double)p->medium_tasks > DS_DAG_MAX_TASKS ||
        p->task_scale * (double)p->small_max > DS_DAG_MAX_TASKS)
        return ds_err_set(err,
                          "generator: task scale must be > 0 and keep jobs under %d tasks "
                          "(got %g)",
                          DS_DAG_MAX_TASKS, p->task_scale);
    if (!(p->rate_min > 0) || !(p->rate_max >= p->rate_min))
        return ds_err_set(err, "generator: arrival rate must be > 0 and min <= max (got %g:%g)",
                          p->rate_min, p->rate_max);
    if (p->max_levels < 1 || p->max_levels > 64)
        return ds_err_set(err, "generator: levels must be 1..64 (got %d)", p->max_levels);
    if (p->max_fanout < 1 || p->max_fanout > 10000)
        return ds_err_set(err, "generator: fanout must be 1..10000 (got %d)", p->max_fanout);
    if (p->mix[0] > 1000 || p->mix[1] > 1000 || p->mix[2] > 1000 ||
        p->mix[0] + p->mix[1] + p->mix[2] == 0)
        return ds_err_set(err, "generator: mix: each count must be <= 1000 and one > 0");
    if (!(p->deadline_factor_min >= 0) || !(p->deadline_factor_max >= p->deadline_factor_min))
        return ds_err_set(err, "generator: deadline factor must be >= 0 and min <= max");
    if (!(p->high_priority_fraction >= 0 && p->high_priority_fraction <= 1) ||
        !(p->checkpoint_fraction >= 0 && p->checkpoint_fraction <= 1))
        return ds_err_set(err, "generator: fractions must be in [0, 1]");
    if (!(p->runtime_s.min >= 0) || !(p->cpu_cores.max > 0) || !(p->memory_bytes.max > 0) ||
        (p->large_runtime_set && !(p->large_runtime_s.min >= 0)))
        return ds_err_set(err, "generator: distributions must allow positive values");
    return 0;
}

static int gen_source(const sim_workload *w, size_t j, sim_job_def *out, ds_err *err)
{
    return sim_gen_job(&w->gen, w, j, out, err);
}

int sim_gen_workload(const sim_gen_params *p, sim_workload *w, ds_err *err)
{
    if (check_params(p, err) != 0)
        return -1;
    if (w->n_nodes == 0)
        return ds_err_set(err, "generator: no nodes");
    double *arr = malloc(p->n_jobs * sizeof *arr);
    if (arr == NULL)
        return ds_err_set(err, "generator: out of memory (%zu jobs)", p->n_jobs);
    sim_rng r;
    sim_rng_seed(&r, p->seed, 0);
    double per_min = sim_rng_range(&r, p->rate_min, p->rate_max);
    double t = 0;
    for (size_t j = 0; j < p->n_jobs; j++) {
        if (j > 0)
            t += sim_rng_exponential(&r, per_min / 60.0);
        arr[j] = t;
    }
    free(w->arrivals);
    w->arrivals = arr;
    w->gen = *p;
    w->generated = true;
    w->source = gen_source;
    w->n_jobs = p->n_jobs;
    w->jobs = NULL;
    if (w->name[0] == '\0')
        snprintf(w->name, sizeof w->name, "dsp-gen-%zu-jobs-seed-%llu", p->n_jobs,
                 (unsigned long long)p->seed);
    return 0;
}

/* 0 small, 1 medium, 2 large: job j's place in the repeating pattern of p->mix. */
static int job_class(const sim_gen_params *p, size_t j)
{
    size_t k = j % ((size_t)p->mix[0] + p->mix[1] + p->mix[2]);
    if (k < p->mix[0])
        return 0;
    return k < (size_t)p->mix[0] + p->mix[1] ? 1 : 2;
}

static size_t job_size(const sim_gen_params *p, size_t j, sim_rng *r)
{
    double base;
    switch (job_class(p, j)) {
    case 0:
        base = (double)(p->small_min + sim_rng_below(r, p->small_max - p->small_min + 1));
        break;
    case 1:
        base = (double)p->medium_tasks;
        break;
    default:
        base = (double)p->large_tasks;
        break;
    }
    double n = floor(base * p->task_scale + 0.5);
    if (n < 1)
        n = 1;
    return (size_t)n;
}

/* Level sizes: random weights, each level at least one task, and no level more than fanout times
 * the previous one (so that every task can get an upstream task on the level above). */
static void level_sizes(size_t n, int levels, int fanout, sim_rng *r, size_t *sizes)
{
    double w[64], sum = 0;
    for (int l = 0; l < levels; l++) {
        w[l] = sim_rng_range(r, 0.5, 1.5);
        sum += w[l];
    }
    size_t used = 0;
    for (int l = 0; l < levels; l++) {
        sizes[l] = 1 + (size_t)floor((double)(n - (size_t)levels) * w[l] / sum);
        used += sizes[l];
    }
    sizes[0] += n - used; /* rounding remainder */
    bool changed = true;
    while (changed) {
        changed = false;
        for (int l = 1; l < levels; l++) {
            size_t cap = (size_t)fanout * sizes[l - 1];
            if (sizes[l] > cap) {
                size_t d = sizes[l] - cap;
                sizes[l] -= d;
                sizes[l - 1] += d;
                changed = true;
            }
        }
    }
}

/* A task of [lo, hi) with fewer than fanout dependents, starting at a random one; SIZE_MAX when
 * all are full. */
static size_t pick_parent(size_t lo, size_t hi, const unsigned *outdeg, int fanout, sim_rng *r)
{
    size_t span = hi - lo;
    size_t start = (size_t)sim_rng_below(r, span);
    for (size_t k = 0; k < span; k++) {
        size_t c = lo + (start + k) % span;
        if (outdeg[c] < (unsigned)fanout)
            return c;
    }
    return SIZE_MAX;
}

static void largest_node(const sim_workload *w, ds_res *out)
{
    *out = w->nodes[0].allocatable;
    for (size_t i = 1; i < w->n_nodes; i++) {
        const ds_res *a = &w->nodes[i].allocatable;
        if (a->v[DS_RES_CPU] > out->v[DS_RES_CPU] ||
            (a->v[DS_RES_CPU] == out->v[DS_RES_CPU] && a->v[DS_RES_MEMORY] > out->v[DS_RES_MEMORY]))
            *out = *a;
    }
}

int sim_gen_job(const sim_gen_params *p, const sim_workload *w, size_t j, sim_job_def *out,
                ds_err *err)
{
    memset(out, 0, sizeof *out);
    sim_rng r;
    sim_rng_seed(&r, p->seed, 1 + (uint64_t)j);
    size_t n = job_size(p, j, &r);
    int levels = 1;
    if (p->max_levels >= 2 && n >= 2) {
        levels = 2 + (int)sim_rng_below(&r, (uint64_t)p->max_levels - 1);
        if ((size_t)levels > n)
            levels = (int)n;
    }
    size_t sizes[64];
    level_sizes(n, levels, p->max_fanout, &r, sizes);

    char name[64];
    snprintf(name, sizeof name, "job-%zu", j);
    out->name = strdup(name);
    out->tasks = calloc(n, sizeof *out->tasks);
    unsigned *outdeg = calloc(n, sizeof *outdeg);
    if (out->name == NULL || out->tasks == NULL || outdeg == NULL) {
        free(outdeg);
        sim_job_def_free(out);
        return ds_err_set(err, "generator: job %zu: out of memory (%zu tasks)", j, n);
    }
    out->n_tasks = n;
    out->arrival_s = w->arrivals[j];
    out->deadline_s = INFINITY;
    out->deadline_factor = sim_rng_range(&r, p->deadline_factor_min, p->deadline_factor_max);
    if (p->deadline_factor_max == p->deadline_factor_min)
        out->deadline_factor = p->deadline_factor_min;
    if (p->large_no_deadline && job_class(p, j) == 2)
        out->deadline_factor = 0; /* no deadline (drawn anyway: the stream stays the same) */
    out->priority = sim_rng_uniform(&r) < p->high_priority_fraction ? GEN_PRIORITY_HIGH : 0;
    bool checkpoint = sim_rng_uniform(&r) < p->checkpoint_fraction;
    out->release = p->release;
    const sim_dist *runtime =
        p->large_runtime_set && job_class(p, j) == 2 ? &p->large_runtime_s : &p->runtime_s;

    ds_res cap;
    largest_node(w, &cap);
    size_t lo[65];
    lo[0] = 0;
    for (int l = 0; l < levels; l++)
        lo[l + 1] = lo[l] + sizes[l];

    for (size_t i = 0; i < n; i++) {
        sim_task_def *t = &out->tasks[i];
        snprintf(name, sizeof name, "t%zu", i);
        t->name = strdup(name);
        if (t->name == NULL)
            goto oom;
        t->runtime_s = sim_dist_draw(runtime, &r);
        double cpu_m = ceil(sim_dist_draw(&p->cpu_cores, &r) * 1000.0);
        double mem = ceil(sim_dist_draw(&p->memory_bytes, &r));
        if (cpu_m < 1)
            cpu_m = 1;
        if (cpu_m > (double)cap.v[DS_RES_CPU])
            cpu_m = (double)cap.v[DS_RES_CPU];
        if (mem > (double)cap.v[DS_RES_MEMORY])
            mem = (double)cap.v[DS_RES_MEMORY];
        t->request.v[DS_RES_CPU] = (int64_t)cpu_m;
        t->request.v[DS_RES_MEMORY] = (int64_t)mem;
        t->checkpoint = checkpoint;
    }
    /* Edges: every task below level 1 gets one upstream task on the level above (so its level is
     * exact), then up to GEN_MAX_EXTRA_UP more from any level above, all within the fanout. */
    for (int l = 1; l < levels; l++)
        for (size_t i = lo[l]; i < lo[l + 1]; i++) {
            sim_task_def *t = &out->tasks[i];
            t->up = malloc((1 + GEN_MAX_EXTRA_UP) * sizeof *t->up);
            if (t->up == NULL)
                goto oom;
            size_t parent = pick_parent(lo[l - 1], lo[l], outdeg, p->max_fanout, &r);
            /* level_sizes guarantees room on the level above */
            t->up[t->n_up++] = parent;
            outdeg[parent]++;
        }
    for (int l = 1; l < levels; l++)
        for (size_t i = lo[l]; i < lo[l + 1]; i++) {
            sim_task_def *t = &out->tasks[i];
            int extra = (int)sim_rng_below(&r, GEN_MAX_EXTRA_UP + 1);
            for (int e = 0; e < extra; e++) {
                int from = (int)sim_rng_below(&r, (uint64_t)l);
                size_t parent = pick_parent(lo[from], lo[from + 1], outdeg, p->max_fanout, &r);
                if (parent == SIZE_MAX)
                    continue;
                bool dup = false;
                for (size_t k = 0; k < t->n_up; k++)
                    dup = dup || t->up[k] == parent;
                if (dup)
                    continue;
                t->up[t->n_up++] = parent;
                outdeg[parent]++;
            }
        }
    free(outdeg);
    return 0;
oom:
    free(outdeg);
    sim_job_def_free(out);
    return ds_err_set(err, "generator: job %zu: out of memory", j);
}
