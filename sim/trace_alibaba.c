/* trace_alibaba.c: Alibaba cluster-trace-v2018 batch_task.csv loader (see trace_alibaba.h). */
#include "trace_alibaba.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "strmap.h"
#include "grow.h"

#define N_COLS 9

void sim_alibaba_defaults(sim_alibaba_params *p)
{
    memset(p, 0, sizeof *p);
    p->machine_memory_bytes = 512.0 * 1073741824.0;
    p->max_instances = 1;
    p->deadline_factor_min = 1.5;
    p->deadline_factor_max = 3.0;
    p->seed = 1;
    p->max_jobs = 0;
    p->max_lines = 50000000;
}

/* Parse a run of digits into *v; returns the end or NULL when there is none / it overflows. */
static const char *parse_uint(const char *s, long *v)
{
    if (!isdigit((unsigned char)*s))
        return NULL;
    long x = 0;
    for (; isdigit((unsigned char)*s); s++) {
        if (x > (LONG_MAX - 9) / 10)
            return NULL;
        x = x * 10 + (*s - '0');
    }
    *v = x;
    return s;
}

int sim_alibaba_parse_name(const char *name, long *id, long *deps, size_t max_deps, size_t *n_deps)
{
    *n_deps = 0;
    if (!isupper((unsigned char)name[0]))
        return 0;
    const char *s = parse_uint(name + 1, id);
    if (s == NULL)
        return 0;
    size_t n = 0;
    while (*s == '_') {
        long d;
        const char *e = parse_uint(s + 1, &d);
        if (e == NULL)
            return 0; /* "M1_Stg2" and the like: not the DAG encoding */
        if (n == max_deps)
            return -1;
        deps[n++] = d;
        s = e;
    }
    if (*s != '\0')
        return 0;
    *n_deps = n;
    return 1;
}

typedef struct row {
    char *task;
    long instances;
    double start, end, cpu, mem;
} row;

typedef struct tjob {
    char *name;
    row *rows;
    size_t n, cap;
    bool bad;
    double first_start;
    size_t order;
} tjob;

typedef struct loader {
    tjob *jobs;
    size_t n_jobs, cap_jobs;
    ds_strmap index; /* job name (the job's own copy) -> index into jobs */
} loader;

/* Index of the named job, created when new; SIZE_MAX on allocation failure. */
static size_t job_index(loader *L, const char *name)
{
    size_t len = strlen(name), found = 0;
    if (ds_strmap_get(&L->index, name, len, &found) == 0)
        return found;
    if (L->index.n == L->index.max && ds_strmap_reserve(&L->index, 2 * L->index.max) != 0)
        return SIZE_MAX;
    if (L->n_jobs == L->cap_jobs) {
        tjob *g = ds_grow(L->jobs, &L->cap_jobs, sizeof *g, 256);
        if (g == NULL)
            return SIZE_MAX;
        L->jobs = g;
    }
    tjob *j = &L->jobs[L->n_jobs];
    memset(j, 0, sizeof *j);
    j->name = strdup(name);
    if (j->name == NULL)
        return SIZE_MAX;
    j->first_start = INFINITY;
    j->order = L->n_jobs;
    if (ds_strmap_put(&L->index, j->name, len, L->n_jobs, NULL) != 0) {
        free(j->name);
        return SIZE_MAX;
    }
    return L->n_jobs++;
}

static void loader_free(loader *L)
{
    for (size_t j = 0; j < L->n_jobs; j++) {
        for (size_t r = 0; r < L->jobs[j].n; r++)
            free(L->jobs[j].rows[r].task);
        free(L->jobs[j].rows);
        free(L->jobs[j].name);
    }
    free(L->jobs);
    ds_strmap_free(&L->index);
}

/* A number column; false when empty or malformed. */
static bool num_field(const char *s, double *v)
{
    if (*s == '\0')
        return false;
    char *end = NULL;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(x))
        return false;
    *v = x;
    return true;
}

static int add_row(loader *L, char **col, sim_alibaba_stats *st)
{
    if (col[2][0] == '\0')
        return 0; /* no job: nothing to attach it to */
    size_t ji = job_index(L, col[2]);
    if (ji == SIZE_MAX)
        return -1;
    tjob *j = &L->jobs[ji];
    row r = {0};
    double inst = 1;
    bool ok = col[0][0] != '\0' && strlen(col[0]) < DS_TASK_NAME_MAX &&
              strcmp(col[4], "Terminated") == 0 && num_field(col[5], &r.start) &&
              num_field(col[6], &r.end) && num_field(col[7], &r.cpu) && num_field(col[8], &r.mem) &&
              r.start > 0 && r.end >= r.start && r.cpu > 0 && r.mem >= 0 && r.mem <= 100;
    if (col[1][0] != '\0' && (!num_field(col[1], &inst) || inst < 1 || inst > 1e7))
        ok = false;
    if (!ok) {
        j->bad = true;
        return 0;
    }
    (void)st;
    r.instances = (long)inst;
    r.task = strdup(col[0]);
    if (r.task == NULL)
        return -1;
    if (j->n == j->cap) {
        row *g = ds_grow(j->rows, &j->cap, sizeof *g, 8);
        if (g == NULL) {
            free(r.task);
            return -1;
        }
        j->rows = g;
    }
    j->rows[j->n++] = r;
    if (r.start < j->first_start)
        j->first_start = r.start;
    return 0;
}

static int read_rows(FILE *f, const char *path, const sim_alibaba_params *p, loader *L,
                     sim_alibaba_stats *st, ds_err *err)
{
    char line[SIM_ALIBABA_MAX_LINE + 2];
    while (fgets(line, sizeof line, f) != NULL) {
        st->lines++;
        size_t len = strlen(line);
        if (len > 0 && line[len - 1] != '\n' && !feof(f))
            return ds_err_set(err, "%s: line %zu: longer than %d bytes", path, st->lines,
                              SIM_ALIBABA_MAX_LINE);
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (st->lines > p->max_lines)
            return ds_err_set(err, "%s: more than %zu lines", path, p->max_lines);
        if (len == 0)
            continue;
        char *col[N_COLS];
        size_t nc = 0;
        char *s = line;
        for (;;) {
            if (nc == N_COLS)
                return ds_err_set(err, "%s: line %zu: more than %d columns", path, st->lines,
                                  N_COLS);
            col[nc++] = s;
            char *comma = strchr(s, ',');
            if (comma == NULL)
                break;
            *comma = '\0';
            s = comma + 1;
        }
        if (nc != N_COLS)
            return ds_err_set(err,
                              "%s: line %zu: expected %d columns (task_name, instance_num, "
                              "job_name, task_type, status, start_time, end_time, plan_cpu, "
                              "plan_mem), got %zu",
                              path, st->lines, N_COLS, nc);
        if (st->lines == 1 && strcmp(col[0], "task_name") == 0)
            continue; /* header */
        if (add_row(L, col, st) != 0)
            return ds_err_set(err, "%s: out of memory at line %zu", path, st->lines);
    }
    if (ferror(f))
        return ds_err_set(err, "%s: read error: %s", path, strerror(errno));
    return 0;
}

static int cmp_job_start(const void *a, const void *b)
{
    const tjob *x = *(const tjob *const *)a, *y = *(const tjob *const *)b;
    if (x->first_start != y->first_start)
        return x->first_start < y->first_start ? -1 : 1;
    return x->order < y->order ? -1 : (x->order > y->order);
}

/* Build one job's definition; 1 = built, 0 = skipped (unusable), -1 = out of memory. */
static int build_job(const tjob *tj, const sim_alibaba_params *p, sim_job_def *out,
                     sim_alibaba_stats *st)
{
    memset(out, 0, sizeof *out);
    size_t n_rows = tj->n;
    long *ids = malloc(n_rows * sizeof *ids);
    size_t *first_pod = malloc((n_rows + 1) * sizeof *first_pod);
    long *deps = malloc(n_rows * SIM_ALIBABA_MAX_DEPS * sizeof *deps);
    size_t *n_deps = calloc(n_rows, sizeof *n_deps);
    int rc = 1;
    if (ids == NULL || first_pod == NULL || deps == NULL || n_deps == NULL) {
        rc = -1;
        goto out;
    }
    size_t pods = 0;
    for (size_t r = 0; r < n_rows; r++) {
        int kind =
            sim_alibaba_parse_name(tj->rows[r].task, &ids[r], deps + r * SIM_ALIBABA_MAX_DEPS,
                                   SIM_ALIBABA_MAX_DEPS, &n_deps[r]);
        if (kind < 0) {
            rc = 0;
            goto out;
        }
        if (kind == 0)
            ids[r] = -1 - (long)r; /* independent: a private id nobody refers to */
        for (size_t q = 0; q < r; q++)
            if (ids[q] == ids[r]) {
                rc = 0; /* duplicate task number */
                goto out;
            }
        first_pod[r] = pods;
        size_t k = (size_t)tj->rows[r].instances;
        if (k > p->max_instances)
            k = p->max_instances;
        if (k < 1)
            k = 1;
        pods += k;
        if (pods > DS_DAG_MAX_TASKS) {
            rc = 0;
            goto out;
        }
    }
    first_pod[n_rows] = pods;
    out->name = strdup(tj->name);
    out->tasks = calloc(pods, sizeof *out->tasks);
    if (out->name == NULL || out->tasks == NULL) {
        rc = -1;
        goto out;
    }
    out->n_tasks = pods;
    for (size_t r = 0; r < n_rows; r++) {
        const row *rw = &tj->rows[r];
        /* upstream pods */
        size_t n_up = 0;
        size_t up_rows[SIM_ALIBABA_MAX_DEPS];
        for (size_t d = 0; d < n_deps[r]; d++) {
            long want = deps[r * SIM_ALIBABA_MAX_DEPS + d];
            size_t found = SIZE_MAX;
            for (size_t q = 0; q < n_rows; q++)
                if (ids[q] == want)
                    found = q;
            if (found == SIZE_MAX || found == r) {
                st->dropped_edges++;
                continue;
            }
            bool dup = false;
            for (size_t u = 0; u < n_up; u++)
                dup = dup || up_rows[u] == found;
            if (!dup)
                up_rows[n_up++] = found;
        }
        size_t total_up = 0;
        for (size_t u = 0; u < n_up; u++)
            total_up += first_pod[up_rows[u] + 1] - first_pod[up_rows[u]];
        for (size_t k = first_pod[r]; k < first_pod[r + 1]; k++) {
            sim_task_def *t = &out->tasks[k];
            size_t nlen = strlen(rw->task) + 24;
            t->name = malloc(nlen);
            if (t->name == NULL) {
                rc = -1;
                goto out;
            }
            if (first_pod[r + 1] - first_pod[r] == 1)
                snprintf(t->name, nlen, "%s", rw->task);
            else
                snprintf(t->name, nlen, "%s.%zu", rw->task, k - first_pod[r]);
            t->runtime_s = rw->end - rw->start;
            if (t->runtime_s < 1)
                t->runtime_s = 1;
            t->request.v[DS_RES_CPU] = (int64_t)ceil(rw->cpu * 10.0);
            t->request.v[DS_RES_MEMORY] = (int64_t)ceil(rw->mem / 100.0 * p->machine_memory_bytes);
            if (total_up > 0) {
                t->up = malloc(total_up * sizeof *t->up);
                if (t->up == NULL) {
                    rc = -1;
                    goto out;
                }
                for (size_t u = 0; u < n_up; u++)
                    for (size_t q = first_pod[up_rows[u]]; q < first_pod[up_rows[u] + 1]; q++)
                        t->up[t->n_up++] = q;
            }
        }
    }
    out->arrival_s = tj->first_start;
    out->deadline_s = INFINITY;
    out->release = SIM_RELEASE_ON_UPSTREAM;
    {
        /* cycles ("R1_2" with "R2_1") make the job unusable */
        ds_dag d;
        ds_err e;
        if (sim_job_build_dag(out, &d, &e) != 0)
            rc = 0;
        else
            ds_dag_free(&d);
    }
out:
    if (rc != 1)
        sim_job_def_free(out);
    free(ids);
    free(first_pod);
    free(deps);
    free(n_deps);
    return rc;
}

int sim_alibaba_load(const char *path, const sim_alibaba_params *p, sim_workload *w,
                     sim_alibaba_stats *st, ds_err *err)
{
    memset(st, 0, sizeof *st);
    if (!(p->machine_memory_bytes > 0) || p->max_instances < 1 || p->max_instances > 10000 ||
        !(p->deadline_factor_min >= 0) || !(p->deadline_factor_max >= p->deadline_factor_min))
        return ds_err_set(err, "alibaba: machine memory must be > 0, instances 1..10000, deadline "
                               "factor min <= max");
    loader L = {0};
    /* Doubled as jobs appear: the trace does not say how many there are. */
    if (ds_strmap_init(&L.index, 512) != 0)
        return ds_err_set(err, "%s: out of memory", path);
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        ds_strmap_free(&L.index);
        return ds_err_set(err, "%s: cannot open: %s", path, strerror(errno));
    }
    int rc = read_rows(f, path, p, &L, st, err);
    fclose(f);
    tjob **order = NULL;
    sim_job_def *jobs = NULL;
    if (rc == 0) {
        order = malloc((L.n_jobs ? L.n_jobs : 1) * sizeof *order);
        jobs = calloc(L.n_jobs ? L.n_jobs : 1, sizeof *jobs);
        if (order == NULL || jobs == NULL)
            rc = ds_err_set(err, "%s: out of memory", path);
    }
    size_t nj = 0;
    if (rc == 0) {
        size_t n = 0;
        for (size_t j = 0; j < L.n_jobs; j++) {
            if (L.jobs[j].bad || L.jobs[j].n == 0)
                st->skipped_jobs++;
            else
                order[n++] = &L.jobs[j];
        }
        qsort(order, n, sizeof *order, cmp_job_start);
        for (size_t j = 0; j < n && rc == 0; j++) {
            if (p->max_jobs > 0 && nj == p->max_jobs)
                break;
            int b = build_job(order[j], p, &jobs[nj], st);
            if (b < 0)
                rc = ds_err_set(err, "%s: out of memory building job %s", path, order[j]->name);
            else if (b == 0)
                st->skipped_jobs++;
            else {
                st->tasks += order[j]->n;
                nj++;
            }
        }
    }
    if (rc == 0 && nj == 0)
        rc = ds_err_set(err, "%s: no usable job (%zu lines, %zu jobs skipped)", path, st->lines,
                        st->skipped_jobs);
    if (rc == 0) {
        double t0 = jobs[0].arrival_s;
        sim_rng r;
        sim_rng_seed(&r, p->seed, 0xa11baba);
        for (size_t j = 0; j < nj; j++) {
            jobs[j].arrival_s -= t0;
            jobs[j].deadline_factor =
                sim_rng_range(&r, p->deadline_factor_min, p->deadline_factor_max);
            st->pods += jobs[j].n_tasks;
        }
        st->jobs = nj;
        if (w->jobs != NULL)
            for (size_t j = 0; j < w->n_jobs; j++)
                sim_job_def_free(&w->jobs[j]);
        free(w->jobs);
        w->jobs = jobs;
        w->n_jobs = nj;
        w->generated = false;
        if (w->name[0] == '\0') {
            const char *base = strrchr(path, '/');
            snprintf(w->name, sizeof w->name, "alibaba:%s", base ? base + 1 : path);
        }
        jobs = NULL;
    } else if (jobs != NULL) {
        for (size_t j = 0; j < nj; j++)
            sim_job_def_free(&jobs[j]);
    }
    free(jobs);
    free(order);
    loader_free(&L);
    return rc;
}
