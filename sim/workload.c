/* workload.c: the workload model's helpers: job access, node lists, validation, DAG building. */
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quantity.h"

int sim_workload_job(const sim_workload *w, size_t j, sim_job_def *out, bool *owned, ds_err *err)
{
    if (j >= w->n_jobs)
        return ds_err_set(err, "workload: job index %zu out of range (%zu jobs)", j, w->n_jobs);
    if (w->generated) {
        if (w->source == NULL)
            return ds_err_set(err, "workload: generated without a job source");
        *owned = true;
        return w->source(w, j, out, err);
    }
    *owned = false;
    *out = w->jobs[j];
    return 0;
}

double sim_workload_arrival(const sim_workload *w, size_t j)
{
    return w->generated ? w->arrivals[j] : w->jobs[j].arrival_s;
}

void sim_job_def_free(sim_job_def *j)
{
    if (j == NULL)
        return;
    for (size_t i = 0; i < j->n_tasks; i++) {
        free(j->tasks[i].name);
        free(j->tasks[i].up);
        free(j->tasks[i].gang);
    }
    free(j->tasks);
    free(j->name);
    free(j->ns);
    memset(j, 0, sizeof *j);
}

void sim_workload_free(sim_workload *w)
{
    if (w == NULL)
        return;
    if (w->jobs != NULL)
        for (size_t i = 0; i < w->n_jobs; i++)
            sim_job_def_free(&w->jobs[i]);
    free(w->jobs);
    free(w->nodes);
    free(w->arrivals);
    memset(w, 0, sizeof *w);
}

/* Parse one "COUNTxCPU:MEMORY[:SPEED]" group. */
static int parse_group(const char *g, size_t *count, ds_res *alloc, double *speed, ds_err *err)
{
    char buf[256];
    if (strlen(g) >= sizeof buf)
        return ds_err_set(err, "nodes: group too long (got \"%.40s...\")", g);
    strcpy(buf, g);
    char *x = strchr(buf, 'x');
    if (x == NULL)
        return ds_err_set(err, "nodes: expected COUNTxCPU:MEMORY[:SPEED] (got \"%s\")", g);
    *x = '\0';
    char *end = NULL;
    unsigned long long c = strtoull(buf, &end, 10);
    if (end == buf || *end != '\0' || c == 0 || c > SIM_MAX_NODES)
        return ds_err_set(err, "nodes: count must be 1..%d (got \"%s\")", SIM_MAX_NODES, buf);
    char *parts[3] = {x + 1, NULL, NULL};
    int np = 1;
    for (char *p = x + 1; *p != '\0'; p++)
        if (*p == ':') {
            if (np == 3)
                return ds_err_set(err, "nodes: too many ':' fields (got \"%s\")", g);
            *p = '\0';
            parts[np++] = p + 1;
        }
    if (np < 2)
        return ds_err_set(err, "nodes: expected COUNTxCPU:MEMORY[:SPEED] (got \"%s\")", g);
    memset(alloc, 0, sizeof *alloc);
    int64_t v = 0;
    if (ds_quantity_parse_milli(parts[0], &v, err) != 0) {
        ds_err_prefix(err, "nodes \"%s\": cpu", g);
        return -1;
    }
    if (v <= 0)
        return ds_err_set(err, "nodes \"%s\": cpu must be > 0 (got \"%s\")", g, parts[0]);
    alloc->v[DS_RES_CPU] = v;
    if (ds_quantity_parse_value(parts[1], &v, err) != 0) {
        ds_err_prefix(err, "nodes \"%s\": memory", g);
        return -1;
    }
    if (v <= 0)
        return ds_err_set(err, "nodes \"%s\": memory must be > 0 (got \"%s\")", g, parts[1]);
    alloc->v[DS_RES_MEMORY] = v;
    *speed = 0;
    if (np == 3) {
        double s = strtod(parts[2], &end);
        if (end == parts[2] || *end != '\0' || !(s > 0) || s > 1000)
            return ds_err_set(err, "nodes \"%s\": speed must be in (0, 1000] (got \"%s\")", g,
                              parts[2]);
        *speed = s;
    }
    *count = (size_t)c;
    return 0;
}

int sim_nodes_parse(const char *spec, sim_node_def **out, size_t *n, ds_err *err)
{
    *out = NULL;
    *n = 0;
    if (spec == NULL || *spec == '\0')
        return ds_err_set(err, "nodes: empty list");
    size_t len = strlen(spec);
    if (len > 4096)
        return ds_err_set(err, "nodes: list too long (%zu bytes, at most 4096)", len);
    char *copy = strdup(spec);
    if (copy == NULL)
        return ds_err_set(err, "nodes: out of memory");
    sim_node_def *nodes = NULL;
    size_t total = 0;
    char *save = NULL;
    for (char *g = strtok_r(copy, ",", &save); g != NULL; g = strtok_r(NULL, ",", &save)) {
        size_t count = 0;
        ds_res alloc;
        double speed = 0;
        if (parse_group(g, &count, &alloc, &speed, err) != 0)
            goto fail;
        if (total + count > SIM_MAX_NODES) {
            ds_err_set(err, "nodes: more than %d nodes", SIM_MAX_NODES);
            goto fail;
        }
        sim_node_def *grown = realloc(nodes, (total + count) * sizeof *nodes);
        if (grown == NULL) {
            ds_err_set(err, "nodes: out of memory");
            goto fail;
        }
        nodes = grown;
        for (size_t i = 0; i < count; i++) {
            sim_node_def *nd = &nodes[total + i];
            memset(nd, 0, sizeof *nd);
            snprintf(nd->name, sizeof nd->name, SIM_NODE_PREFIX "%zu", total + i);
            nd->allocatable = alloc;
            nd->speed = speed;
        }
        total += count;
    }
    free(copy);
    *out = nodes;
    *n = total;
    return 0;
fail:
    free(copy);
    free(nodes);
    return -1;
}

int sim_job_build_dag(const sim_job_def *j, ds_dag *out, ds_err *err)
{
    ds_task_spec *specs = calloc(j->n_tasks ? j->n_tasks : 1, sizeof *specs);
    size_t total_up = 0;
    for (size_t i = 0; i < j->n_tasks; i++)
        total_up += j->tasks[i].n_up;
    const char **names = malloc((total_up ? total_up : 1) * sizeof *names);
    if (specs == NULL || names == NULL) {
        free(specs);
        free(names);
        return ds_err_set(err, "job \"%s\": out of memory (%zu tasks)", j->name, j->n_tasks);
    }
    size_t pos = 0;
    for (size_t i = 0; i < j->n_tasks; i++) {
        const sim_task_def *t = &j->tasks[i];
        specs[i].name = t->name;
        specs[i].runtime_s = t->runtime_s;
        specs[i].upstream = names + pos;
        specs[i].n_upstream = t->n_up;
        for (size_t k = 0; k < t->n_up; k++) {
            if (t->up[k] >= j->n_tasks) {
                free(specs);
                free(names);
                return ds_err_set(err, "job \"%s\": task \"%s\": upstream index %zu out of range",
                                  j->name, t->name, t->up[k]);
            }
            names[pos++] = j->tasks[t->up[k]].name;
        }
    }
    int rc = ds_dag_build(out, specs, j->n_tasks, err);
    if (rc != 0)
        ds_err_prefix(err, "job \"%s\"", j->name);
    free(specs);
    free(names);
    return rc;
}

int sim_workload_validate(const sim_workload *w, ds_err *err)
{
    if (w->n_nodes == 0)
        return ds_err_set(err, "workload \"%s\": no nodes", w->name);
    if (w->n_jobs == 0)
        return ds_err_set(err, "workload \"%s\": no jobs", w->name);
    if (w->generated)
        return 0;
    for (size_t j = 0; j < w->n_jobs; j++) {
        const sim_job_def *jd = &w->jobs[j];
        if (j > 0 && jd->arrival_s < w->jobs[j - 1].arrival_s)
            return ds_err_set(err, "workload \"%s\": jobs not sorted by arrival (job \"%s\")",
                              w->name, jd->name);
        if (!(jd->arrival_s >= 0) || !isfinite(jd->arrival_s))
            return ds_err_set(err, "job \"%s\": arrival must be >= 0 (got %g)", jd->name,
                              jd->arrival_s);
        if (jd->n_tasks == 0)
            return ds_err_set(err, "job \"%s\": no tasks", jd->name);
        for (size_t t = 0; t < jd->n_tasks; t++) {
            const sim_task_def *td = &jd->tasks[t];
            bool fits = false;
            for (size_t n = 0; n < w->n_nodes && !fits; n++)
                fits = ds_res_fits(&td->request, &w->nodes[n].allocatable);
            if (!fits)
                return ds_err_set(err,
                                  "job \"%s\": task \"%s\": request (cpu %lldm, memory %lld) fits "
                                  "on no node",
                                  jd->name, td->name, (long long)td->request.v[DS_RES_CPU],
                                  (long long)td->request.v[DS_RES_MEMORY]);
        }
        ds_dag d;
        if (sim_job_build_dag(jd, &d, err) != 0)
            return -1;
        ds_dag_free(&d);
    }
    return 0;
}
