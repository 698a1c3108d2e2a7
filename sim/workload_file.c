/* workload_file.c: strict reader and writer of the Workload YAML format (see workload_file.h). */
#include "workload_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "gang.h"
#include "k8s_names.h"
#include "quantity.h"
#include "readfile.h"
#include "strmap.h"
#include "strquote.h"
#include "timefmt.h"
#include "yaml_tree.h"

#define PATH_LEN 160

static const ds_yaml_limits file_limits = {
    .max_bytes = SIM_WORKLOAD_MAX_BYTES,
    .max_depth = 16,
    .max_nodes = 40000000,
    .max_scalar = 4096,
};

typedef struct ctx {
    ds_err *err;
    char path[PATH_LEN];
} ctx;

static int fail(ctx *c, const char *fmt, const char *a, const char *b)
{
    char msg[DS_ERR_MAX];
    snprintf(msg, sizeof msg, fmt, a, b);
    return ds_err_set(c->err, "%s: %s", c->path, msg);
}

static const char *kind_name(const ds_yaml_node *v)
{
    return v->kind == DS_YAML_MAPPING ? "a mapping" : v->kind == DS_YAML_SEQUENCE ? "a list" : "";
}

static int want_scalar(ctx *c, const ds_yaml_node *v, const char *what)
{
    if (v->kind == DS_YAML_SCALAR && !ds_yaml_is_null(v))
        return 0;
    return fail(c, "must be %s (got %s)", what, v->kind == DS_YAML_SCALAR ? "null" : kind_name(v));
}

/* Reject fields not in `allowed` (NULL-terminated). */
static int check_fields(ctx *c, const ds_yaml_node *m, const char *const *allowed)
{
    if (m->kind != DS_YAML_MAPPING)
        return fail(c, "must be a mapping (got %s)",
                    m->kind == DS_YAML_SEQUENCE ? "a list" : "a scalar", "");
    for (size_t i = 0; i < m->n; i++) {
        const char *k = m->child[2 * i]->text;
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(*a, k) == 0;
        char q[DS_QUOTE_BUF];
        if (!ok)
            return fail(c, "unknown field %s", ds_quote(k, 64, q, sizeof q), "");
        for (size_t j = 0; j < i; j++)
            if (strcmp(m->child[2 * j]->text, k) == 0)
                return fail(c, "duplicate field %s", ds_quote(k, 64, q, sizeof q), "");
    }
    return 0;
}

/* Descend into a field for messages: path = parent + "." + name (or "[i]"). */
static void push(ctx *c, char *saved, const char *fmt, const char *s, size_t i)
{
    memcpy(saved, c->path, PATH_LEN);
    size_t len = strlen(c->path);
    if (s != NULL)
        snprintf(c->path + len, PATH_LEN - len, fmt, s);
    else
        snprintf(c->path + len, PATH_LEN - len, fmt, i);
}

static void pop(ctx *c, const char *saved)
{
    memcpy(c->path, saved, PATH_LEN);
}

/* Field f of mapping m: its key, its value in *v, and the path descended into it (pop(c, saved)
 * when done with it). */
static const char *enter_field(ctx *c, const ds_yaml_node *m, size_t f, char *saved,
                               const ds_yaml_node **v)
{
    const char *key = m->child[2 * f]->text;
    *v = m->child[2 * f + 1];
    push(c, saved, ".%s", key, 0);
    return key;
}

static int get_string(ctx *c, const ds_yaml_node *v, size_t max, char **out)
{
    if (want_scalar(c, v, "a string") != 0)
        return -1;
    if (v->len == 0 || v->len > max)
        return fail(c, "must be 1..%s characters", max == DS_TASK_NAME_MAX ? "253" : "253", "");
    *out = strdup(v->text);
    if (*out == NULL)
        return ds_err_set(c->err, "%s: out of memory", c->path);
    return 0;
}

static int get_number(ctx *c, const ds_yaml_node *v, double lo, double hi, double *out)
{
    if (want_scalar(c, v, "a number") != 0)
        return -1;
    char q[DS_QUOTE_BUF];
    char *end = NULL;
    errno = 0;
    double x = strtod(v->text, &end);
    if (!v->plain || end == v->text || *end != '\0' || errno == ERANGE || !isfinite(x))
        return fail(c, "must be a number (got %s)", ds_quote(v->text, 64, q, sizeof q), "");
    if (x < lo || x > hi) {
        char range[96];
        snprintf(range, sizeof range, "[%g, %g]", lo, hi);
        return fail(c, "must be in %s (got %s)", range, ds_quote(v->text, 64, q, sizeof q));
    }
    *out = x;
    return 0;
}

static int get_bool(ctx *c, const ds_yaml_node *v, bool *out)
{
    if (want_scalar(c, v, "true or false") != 0)
        return -1;
    char q[DS_QUOTE_BUF];
    if (v->plain && strcmp(v->text, "true") == 0)
        *out = true;
    else if (v->plain && strcmp(v->text, "false") == 0)
        *out = false;
    else
        return fail(c, "must be true or false (got %s)", ds_quote(v->text, 64, q, sizeof q), "");
    return 0;
}

static int get_duration(ctx *c, const ds_yaml_node *v, double *out)
{
    if (want_scalar(c, v, "a duration such as \"90s\"") != 0)
        return -1;
    if (ds_duration_parse(v->text, out, c->err) != 0) {
        ds_err_prefix(c->err, "%s", c->path);
        return -1;
    }
    return 0;
}

static int get_quantity(ctx *c, const ds_yaml_node *v, bool milli, int64_t *out)
{
    if (want_scalar(c, v, "a quantity such as \"500m\" or \"2Gi\"") != 0)
        return -1;
    int rc = milli ? ds_quantity_parse_milli(v->text, out, c->err)
                   : ds_quantity_parse_value(v->text, out, c->err);
    if (rc != 0) {
        ds_err_prefix(c->err, "%s", c->path);
        return -1;
    }
    if (*out < 0) {
        char q[DS_QUOTE_BUF];
        return fail(c, "must not be negative (got %s)", ds_quote(v->text, 64, q, sizeof q), "");
    }
    return 0;
}

/* cpu, memory, ephemeralStorage, gpu fields of a node or a task. */
static int get_resource(ctx *c, const char *key, const ds_yaml_node *v, ds_res *r, bool *handled)
{
    *handled = true;
    if (strcmp(key, "cpu") == 0)
        return get_quantity(c, v, true, &r->v[DS_RES_CPU]);
    if (strcmp(key, "memory") == 0)
        return get_quantity(c, v, false, &r->v[DS_RES_MEMORY]);
    if (strcmp(key, "ephemeralStorage") == 0)
        return get_quantity(c, v, false, &r->v[DS_RES_EPHEMERAL]);
    if (strcmp(key, "gpu") == 0)
        return get_quantity(c, v, false, &r->v[DS_RES_GPU]);
    *handled = false;
    return 0;
}

static int parse_nodes(ctx *c, const ds_yaml_node *seq, sim_workload *w)
{
    if (seq->kind != DS_YAML_SEQUENCE)
        return fail(c, "must be a list of node groups%s", "", "");
    static const char *const fields[] = {"name", "count", "cpu", "memory", "ephemeralStorage",
                                         "gpu",  "speed", NULL};
    size_t total = 0;
    for (size_t i = 0; i < seq->n; i++) {
        char saved[PATH_LEN];
        push(c, saved, "[%zu]", NULL, i);
        const ds_yaml_node *m = seq->child[i];
        if (check_fields(c, m, fields) != 0)
            return -1;
        const ds_yaml_node *cnt = ds_yaml_get(m, "count");
        double count = 1;
        if (cnt != NULL) {
            char s2[PATH_LEN];
            push(c, s2, ".%s", "count", 0);
            if (get_number(c, cnt, 1, SIM_MAX_NODES, &count) != 0 || count != floor(count))
                return count != floor(count) ? fail(c, "must be a whole number%s", "", "") : -1;
            pop(c, s2);
        }
        if (total + (size_t)count > SIM_MAX_NODES)
            return fail(c, "more than 10000 nodes in total%s", "", "");
        sim_node_def *g = realloc(w->nodes, (total + (size_t)count) * sizeof *g);
        if (g == NULL)
            return ds_err_set(c->err, "%s: out of memory", c->path);
        w->nodes = g;
        sim_node_def proto = {0};
        const char *base = NULL;
        for (size_t f = 0; f < m->n; f++) {
            char s2[PATH_LEN];
            const ds_yaml_node *v;
            const char *key = enter_field(c, m, f, s2, &v);
            bool handled;
            if (get_resource(c, key, v, &proto.allocatable, &handled) != 0)
                return -1;
            if (strcmp(key, "speed") == 0 && get_number(c, v, 1e-6, 1000, &proto.speed) != 0)
                return -1;
            if (strcmp(key, "name") == 0) {
                if (want_scalar(c, v, "a string") != 0)
                    return -1;
                if (v->len == 0 || v->len > 200)
                    return fail(c, "must be 1..200 characters%s", "", "");
                base = v->text;
            }
            pop(c, s2);
        }
        if (proto.allocatable.v[DS_RES_CPU] <= 0 || proto.allocatable.v[DS_RES_MEMORY] <= 0)
            return fail(c, "cpu and memory are required and must be > 0%s", "", "");
        for (size_t k = 0; k < (size_t)count; k++) {
            sim_node_def *nd = &w->nodes[total + k];
            *nd = proto;
            if (base == NULL)
                snprintf(nd->name, sizeof nd->name, SIM_NODE_PREFIX "%zu", total + k);
            else if (count == 1)
                snprintf(nd->name, sizeof nd->name, "%s", base);
            else
                snprintf(nd->name, sizeof nd->name, "%s-%zu", base, k);
        }
        total += (size_t)count;
        w->n_nodes = total;
        pop(c, saved);
    }
    return 0;
}

static int parse_task(ctx *c, const ds_yaml_node *m, bool job_checkpoint, sim_task_def *t)
{
    static const char *const fields[] = {
        "name",       "runtime", "cpu",      "memory", "ephemeralStorage", "gpu", "dependsOn",
        "checkpoint", "gang",    "gangSize", NULL};
    if (check_fields(c, m, fields) != 0)
        return -1;
    t->checkpoint = job_checkpoint;
    bool have_runtime = false;
    for (size_t f = 0; f < m->n; f++) {
        char s2[PATH_LEN];
        const ds_yaml_node *v;
        const char *key = enter_field(c, m, f, s2, &v);
        bool handled;
        if (get_resource(c, key, v, &t->request, &handled) != 0)
            return -1;
        if (strcmp(key, "name") == 0 && get_string(c, v, DS_TASK_NAME_MAX, &t->name) != 0)
            return -1;
        if (strcmp(key, "runtime") == 0) {
            if (get_duration(c, v, &t->runtime_s) != 0)
                return -1;
            have_runtime = true;
        }
        if (strcmp(key, "checkpoint") == 0 && get_bool(c, v, &t->checkpoint) != 0)
            return -1;
        if (strcmp(key, "gang") == 0) {
            if (get_string(c, v, DS_GANG_NAME_MAX - 1, &t->gang) != 0)
                return -1;
            char q[DS_QUOTE_BUF];
            if (!ds_name_valid(t->gang, strlen(t->gang)))
                return fail(c, DS_NAME_RULE " (got %s)", ds_quote(t->gang, 64, q, sizeof q), "");
        }
        if (strcmp(key, "gangSize") == 0) {
            double num;
            if (get_number(c, v, 1.0, DS_GANG_SIZE_MAX, &num) != 0)
                return -1;
            if (num != floor(num))
                return fail(c, "must be a whole number%s", "", "");
            t->gang_size = (size_t)num;
        }
        pop(c, s2);
    }
    if ((t->gang == NULL) != (t->gang_size == 0))
        return fail(c, "gang and gangSize go together%s", "", "");
    if (t->name == NULL)
        return fail(c, "name is required%s", "", "");
    if (!have_runtime)
        return fail(c, "runtime is required%s", "", "");
    return 0;
}

/* dependsOn lists, resolved once all task names of the job are known. */
static int resolve_deps(ctx *c, const ds_yaml_node *tasks, sim_job_def *j)
{
    /* task names -> indexes (the names live in j->tasks, which outlives the map) */
    size_t n = j->n_tasks;
    ds_strmap names;
    if (ds_strmap_init(&names, n) != 0)
        return ds_err_set(c->err, "%s: out of memory", c->path);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *name = j->tasks[i].name;
        int put = ds_strmap_put(&names, name, strlen(name), i, NULL);
        if (put == 1) {
            char saved[PATH_LEN], q[DS_QUOTE_BUF];
            push(c, saved, "[%zu].name", NULL, i);
            rc = fail(c, "duplicate task name %s", ds_quote(name, 64, q, sizeof q), "");
        } else if (put != 0) {
            rc = ds_err_set(c->err, "%s: task name index full", c->path);
        }
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        const ds_yaml_node *deps = ds_yaml_get(tasks->child[i], "dependsOn");
        if (deps == NULL || (deps->kind == DS_YAML_SCALAR && ds_yaml_is_null(deps)))
            continue;
        char saved[PATH_LEN];
        push(c, saved, "[%zu].dependsOn", NULL, i);
        if (deps->kind != DS_YAML_SEQUENCE) {
            rc = fail(c, "must be a list of task names%s", "", "");
            break;
        }
        sim_task_def *t = &j->tasks[i];
        t->up = malloc((deps->n ? deps->n : 1) * sizeof *t->up);
        if (t->up == NULL) {
            rc = ds_err_set(c->err, "%s: out of memory", c->path);
            break;
        }
        for (size_t d = 0; d < deps->n && rc == 0; d++) {
            const ds_yaml_node *v = deps->child[d];
            if (want_scalar(c, v, "a task name") != 0) {
                rc = -1;
                break;
            }
            size_t found = SIZE_MAX;
            if (ds_strmap_get(&names, v->text, strlen(v->text), &found) != 0)
                found = SIZE_MAX;
            char q[DS_QUOTE_BUF];
            if (found == SIZE_MAX)
                rc = fail(c, "unknown task %s", ds_quote(v->text, 64, q, sizeof q), "");
            else
                t->up[t->n_up++] = found;
        }
        if (rc == 0)
            pop(c, saved);
    }
    ds_strmap_free(&names);
    return rc;
}

static int parse_job(ctx *c, const ds_yaml_node *m, sim_job_def *j)
{
    static const char *const fields[] = {
        "name",           "namespace", "arrival",    "priority", "deadline",
        "deadlineFactor", "release",   "checkpoint", "tasks",    NULL};
    if (check_fields(c, m, fields) != 0)
        return -1;
    j->deadline_s = INFINITY;
    bool checkpoint = false;
    const ds_yaml_node *cp = ds_yaml_get(m, "checkpoint");
    if (cp != NULL) {
        char s2[PATH_LEN];
        push(c, s2, ".%s", "checkpoint", 0);
        if (get_bool(c, cp, &checkpoint) != 0)
            return -1;
        pop(c, s2);
    }
    if (ds_yaml_get(m, "deadline") != NULL && ds_yaml_get(m, "deadlineFactor") != NULL)
        return fail(c, "deadline and deadlineFactor are mutually exclusive%s", "", "");
    const ds_yaml_node *tasks = NULL;
    for (size_t f = 0; f < m->n; f++) {
        char s2[PATH_LEN];
        const ds_yaml_node *v;
        const char *key = enter_field(c, m, f, s2, &v);
        double num;
        if (strcmp(key, "name") == 0 && get_string(c, v, DS_TASK_NAME_MAX, &j->name) != 0)
            return -1;
        if (strcmp(key, "namespace") == 0) {
            if (get_string(c, v, DS_TASK_NAME_MAX, &j->ns) != 0)
                return -1;
            const char *why = ds_check_dns_label(j->ns);
            char q[DS_QUOTE_BUF];
            if (why != NULL)
                return fail(c, "%s (got %s)", why, ds_quote(j->ns, 64, q, sizeof q));
        }
        if (strcmp(key, "arrival") == 0 && get_duration(c, v, &j->arrival_s) != 0)
            return -1;
        if (strcmp(key, "deadline") == 0 && get_duration(c, v, &j->deadline_s) != 0)
            return -1;
        if (strcmp(key, "deadlineFactor") == 0 &&
            get_number(c, v, 0.0, 1e6, &j->deadline_factor) != 0)
            return -1;
        if (strcmp(key, "priority") == 0) {
            if (get_number(c, v, -2147483648.0, 1000000000.0, &num) != 0)
                return -1;
            if (num != floor(num))
                return fail(c, "must be a whole number%s", "", "");
            j->priority = (int32_t)num;
        }
        if (strcmp(key, "release") == 0) {
            if (want_scalar(c, v, "onUpstream or upfront") != 0)
                return -1;
            char q[DS_QUOTE_BUF];
            if (strcmp(v->text, "onUpstream") == 0)
                j->release = SIM_RELEASE_ON_UPSTREAM;
            else if (strcmp(v->text, "upfront") == 0)
                j->release = SIM_RELEASE_UPFRONT;
            else
                return fail(c, "must be onUpstream or upfront (got %s)",
                            ds_quote(v->text, 64, q, sizeof q), "");
        }
        if (strcmp(key, "tasks") == 0)
            tasks = v;
        pop(c, s2);
    }
    if (j->name == NULL)
        return fail(c, "name is required%s", "", "");
    if (tasks == NULL || tasks->kind != DS_YAML_SEQUENCE || tasks->n == 0)
        return fail(c, "tasks must be a non-empty list%s", "", "");
    if (tasks->n > DS_DAG_MAX_TASKS)
        return fail(c, "more than 100000 tasks%s", "", "");
    j->tasks = calloc(tasks->n, sizeof *j->tasks);
    if (j->tasks == NULL)
        return ds_err_set(c->err, "%s: out of memory", c->path);
    j->n_tasks = tasks->n;
    char saved[PATH_LEN];
    push(c, saved, ".%s", "tasks", 0);
    for (size_t i = 0; i < tasks->n; i++) {
        char s2[PATH_LEN];
        push(c, s2, "[%zu]", NULL, i);
        if (parse_task(c, tasks->child[i], checkpoint, &j->tasks[i]) != 0)
            return -1;
        pop(c, s2);
    }
    if (resolve_deps(c, tasks, j) != 0)
        return -1;
    /* A gang's members are the tasks naming it: as many as its size, which they all declare. */
    for (size_t i = 0; i < j->n_tasks; i++) {
        const sim_task_def *t = &j->tasks[i];
        if (t->gang == NULL)
            continue;
        size_t members = 0, first = SIZE_MAX;
        for (size_t k = 0; k < j->n_tasks; k++)
            if (j->tasks[k].gang != NULL && strcmp(j->tasks[k].gang, t->gang) == 0) {
                members++;
                first = first == SIZE_MAX ? k : first;
                if (j->tasks[k].gang_size != t->gang_size)
                    return fail(c, "gang %s: its tasks declare different sizes%s", t->gang, "");
            }
        char n1[24], n2[24];
        snprintf(n1, sizeof n1, "%zu", members);
        snprintf(n2, sizeof n2, "%zu", t->gang_size);
        if (first == i && members != t->gang_size) {
            char msg[DS_ERR_MAX];
            snprintf(msg, sizeof msg, "gang %.64s: %s tasks name it, its size is %s", t->gang, n1,
                     n2);
            return fail(c, "%s%s", msg, "");
        }
    }
    pop(c, saved);
    ds_dag d;
    if (sim_job_build_dag(j, &d, c->err) != 0) {
        ds_err_prefix(c->err, "%s", c->path);
        return -1;
    }
    ds_dag_free(&d);
    return 0;
}

static int cmp_arrival(const void *a, const void *b)
{
    const sim_job_def *x = a, *y = b;
    return (x->arrival_s > y->arrival_s) - (x->arrival_s < y->arrival_s);
}

static int parse_doc(ctx *c, const ds_yaml_node *root, sim_workload *w)
{
    static const char *const top[] = {"apiVersion", "kind", "metadata", "spec", NULL};
    if (check_fields(c, root, top) != 0)
        return -1;
    const ds_yaml_node *av = ds_yaml_get(root, "apiVersion");
    const ds_yaml_node *kind = ds_yaml_get(root, "kind");
    char q[DS_QUOTE_BUF];
    if (av == NULL || av->kind != DS_YAML_SCALAR || strcmp(av->text, SIM_WORKLOAD_API_VERSION) != 0)
        return ds_err_set(c->err, "apiVersion: must be %s (got %s)", SIM_WORKLOAD_API_VERSION,
                          av && av->kind == DS_YAML_SCALAR ? ds_quote(av->text, 64, q, sizeof q)
                                                           : "nothing");
    if (kind == NULL || kind->kind != DS_YAML_SCALAR || strcmp(kind->text, SIM_WORKLOAD_KIND) != 0)
        return ds_err_set(c->err, "kind: must be %s (got %s)", SIM_WORKLOAD_KIND,
                          kind && kind->kind == DS_YAML_SCALAR
                              ? ds_quote(kind->text, 64, q, sizeof q)
                              : "nothing");
    const ds_yaml_node *md = ds_yaml_get(root, "metadata");
    if (md != NULL) {
        static const char *const mf[] = {"name", NULL};
        snprintf(c->path, PATH_LEN, "metadata");
        if (check_fields(c, md, mf) != 0)
            return -1;
        const ds_yaml_node *nm = ds_yaml_get(md, "name");
        if (nm != NULL) {
            snprintf(c->path, PATH_LEN, "metadata.name");
            if (want_scalar(c, nm, "a string") != 0)
                return -1;
            snprintf(w->name, sizeof w->name, "%s", nm->text);
        }
    }
    const ds_yaml_node *spec = ds_yaml_get(root, "spec");
    snprintf(c->path, PATH_LEN, "spec");
    if (spec == NULL)
        return fail(c, "is required%s", "", "");
    static const char *const sf[] = {"nodes", "jobs", NULL};
    if (check_fields(c, spec, sf) != 0)
        return -1;
    const ds_yaml_node *nodes = ds_yaml_get(spec, "nodes");
    if (nodes != NULL) {
        snprintf(c->path, PATH_LEN, "spec.nodes");
        if (parse_nodes(c, nodes, w) != 0)
            return -1;
    }
    const ds_yaml_node *jobs = ds_yaml_get(spec, "jobs");
    snprintf(c->path, PATH_LEN, "spec.jobs");
    if (jobs == NULL || jobs->kind != DS_YAML_SEQUENCE || jobs->n == 0)
        return fail(c, "must be a non-empty list%s", "", "");
    if (jobs->n > SIM_MAX_JOBS)
        return fail(c, "more than 1000000 jobs%s", "", "");
    w->jobs = calloc(jobs->n, sizeof *w->jobs);
    if (w->jobs == NULL)
        return ds_err_set(c->err, "spec.jobs: out of memory");
    w->n_jobs = jobs->n;
    for (size_t i = 0; i < jobs->n; i++) {
        snprintf(c->path, PATH_LEN, "spec.jobs[%zu]", i);
        if (parse_job(c, jobs->child[i], &w->jobs[i]) != 0)
            return -1;
        for (size_t k = 0; k < i; k++)
            if (strcmp(w->jobs[k].name, w->jobs[i].name) == 0)
                return fail(c, "duplicate job name %s", ds_quote(w->jobs[i].name, 64, q, sizeof q),
                            "");
    }
    /* stable order by arrival: qsort is not stable, so sort indexes with position tie-break */
    for (size_t i = 1; i < w->n_jobs; i++)
        if (w->jobs[i].arrival_s < w->jobs[i - 1].arrival_s) {
            /* insertion sort keeps equal arrivals in file order */
            for (size_t a = 1; a < w->n_jobs; a++) {
                sim_job_def x = w->jobs[a];
                size_t b = a;
                while (b > 0 && cmp_arrival(&w->jobs[b - 1], &x) > 0) {
                    w->jobs[b] = w->jobs[b - 1];
                    b--;
                }
                w->jobs[b] = x;
            }
            break;
        }
    if (w->name[0] == '\0')
        snprintf(w->name, sizeof w->name, "workload");
    return 0;
}

int sim_workload_parse(const char *buf, size_t len, sim_workload *w, ds_err *err)
{
    ds_yaml_node *root = NULL;
    if (ds_yaml_load(buf, len, &file_limits, &root, err) != 0)
        return -1;
    ctx c = {.err = err};
    int rc = parse_doc(&c, root, w);
    ds_yaml_free(root);
    if (rc != 0)
        sim_workload_free(w);
    return rc;
}

int sim_workload_load(const char *path, sim_workload *w, ds_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = rt_read_file(path, SIM_WORKLOAD_MAX_BYTES, &buf, &len, err);
    if (rc == 0 && sim_workload_parse(buf, len, w, err) != 0) {
        ds_err_prefix(err, "%s", path);
        rc = -1;
    }
    free(buf);
    return rc;
}

static void yaml_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void write_resources(FILE *f, const ds_res *r)
{
    fprintf(f, "cpu: %lldm, memory: \"%lld\"", (long long)r->v[DS_RES_CPU],
            (long long)r->v[DS_RES_MEMORY]);
    if (r->v[DS_RES_EPHEMERAL] > 0)
        fprintf(f, ", ephemeralStorage: \"%lld\"", (long long)r->v[DS_RES_EPHEMERAL]);
    if (r->v[DS_RES_GPU] > 0)
        fprintf(f, ", gpu: \"%lld\"", (long long)r->v[DS_RES_GPU]);
}

static void write_job(FILE *f, const sim_job_def *j)
{
    fprintf(f, "  - name: ");
    yaml_str(f, j->name);
    if (j->ns != NULL) {
        fprintf(f, "\n    namespace: ");
        yaml_str(f, j->ns);
    }
    fprintf(f, "\n    arrival: %.6fs\n    priority: %d\n", j->arrival_s, (int)j->priority);
    if (isfinite(j->deadline_s))
        fprintf(f, "    deadline: %.6fs\n", j->deadline_s);
    else if (j->deadline_factor > 0)
        fprintf(f, "    deadlineFactor: %.17g\n", j->deadline_factor);
    fprintf(f, "    release: %s\n    tasks:\n",
            j->release == SIM_RELEASE_UPFRONT ? "upfront" : "onUpstream");
    for (size_t i = 0; i < j->n_tasks; i++) {
        const sim_task_def *t = &j->tasks[i];
        fprintf(f, "    - {name: ");
        yaml_str(f, t->name);
        fprintf(f, ", runtime: %.6fs, ", t->runtime_s);
        write_resources(f, &t->request);
        if (t->checkpoint)
            fprintf(f, ", checkpoint: true");
        if (t->gang != NULL) {
            fprintf(f, ", gang: ");
            yaml_str(f, t->gang);
            fprintf(f, ", gangSize: %zu", t->gang_size);
        }
        if (t->n_up > 0) {
            fprintf(f, ", dependsOn: [");
            for (size_t k = 0; k < t->n_up; k++) {
                if (k)
                    fprintf(f, ", ");
                yaml_str(f, j->tasks[t->up[k]].name);
            }
            fprintf(f, "]");
        }
        fprintf(f, "}\n");
    }
}

int sim_workload_write(const char *path, const sim_workload *w, ds_err *err)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return ds_err_set(err, "%s: cannot write: %s", path, strerror(errno));
    fprintf(f,
            "# Workload for dagsched-sim (format: docs/simulator.md).\napiVersion: %s\nkind: "
            "%s\nmetadata:\n  name: ",
            SIM_WORKLOAD_API_VERSION, SIM_WORKLOAD_KIND);
    yaml_str(f, w->name);
    fprintf(f, "\nspec:\n  nodes:\n");
    for (size_t i = 0; i < w->n_nodes; i++) {
        const sim_node_def *n = &w->nodes[i];
        fprintf(f, "  - {name: ");
        yaml_str(f, n->name);
        fprintf(f, ", ");
        write_resources(f, &n->allocatable);
        if (n->speed > 0)
            fprintf(f, ", speed: %.17g", n->speed);
        fprintf(f, "}\n");
    }
    fprintf(f, "  jobs:\n");
    int rc = 0;
    for (size_t j = 0; j < w->n_jobs && rc == 0; j++) {
        sim_job_def def;
        bool owned;
        if (sim_workload_job(w, j, &def, &owned, err) != 0) {
            rc = -1;
            break;
        }
        write_job(f, &def);
        if (owned)
            sim_job_def_free(&def);
    }
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        rc = rc ? rc : ds_err_set(err, "%s: write failed", path);
    return rc;
}
