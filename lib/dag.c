/* dag.c: building and validating a job DAG (see dag.h).
 *
 * ds_dag_build checks every spec, indexes the names in a ds_strmap (lib/strmap.h), resolves and
 * de-duplicates the upstream names, then runs Kahn's algorithm, which yields the topological order
 * and the levels in one pass. Tasks left over by Kahn's algorithm lie on or behind a cycle; an
 * iterative walk along their unfinished upstream edges finds one cycle to report. Everything is
 * O(tasks + edges) and nothing recurses, so chains of DS_DAG_MAX_TASKS tasks are fine.
 *
 * Storage: the names, the upstream lists and the dependent lists each live in one pool
 * allocation. Every task points into the pools (also when it has no entries) and task 0 points at
 * the start of each pool, which is what ds_dag_free releases. */
#include "dag.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NO_INDEX SIZE_MAX

/* Checks of one spec that need no other task. Sets *name_len on success. */
static int check_spec(const ds_task_spec *s, size_t i, size_t *name_len, ds_err *err)
{
    if (s->name == NULL)
        return ds_err_set(err, "tasks[%zu]: name is missing", i);
    size_t len = strnlen(s->name, DS_TASK_NAME_MAX + 1);
    if (len == 0)
        return ds_err_set(err, "tasks[%zu]: name is empty", i);
    if (len > DS_TASK_NAME_MAX)
        return ds_err_set(err, "tasks[%zu]: name is longer than %d characters (got \"%.32s...\")",
                          i, DS_TASK_NAME_MAX, s->name);
    if (!isfinite(s->runtime_s) || s->runtime_s < 0)
        return ds_err_set(err,
                          "task \"%s\": runtime must be a finite number of seconds >= 0 (got %g)",
                          s->name, s->runtime_s);
    if (s->n_upstream > 0 && s->upstream == NULL)
        return ds_err_set(err, "task \"%s\": upstream list is missing (got %zu entries)", s->name,
                          s->n_upstream);
    for (size_t k = 0; k < s->n_upstream; k++)
        if (s->upstream[k] == NULL)
            return ds_err_set(err, "task \"%s\": upstream entry %zu is missing", s->name, k);
    *name_len = len;
    return 0;
}

/* Append `s` to buf (capacity cap, length *len); false, leaving buf unchanged, when it does not
 * fit together with `reserve` further bytes. */
static bool append(char *buf, size_t cap, size_t *len, const char *s, size_t reserve)
{
    size_t sl = strlen(s);
    if (*len + sl + reserve + 1 > cap)
        return false;
    memcpy(buf + *len, s, sl + 1);
    *len += sl;
    return true;
}

/* Report one cycle among the tasks Kahn's algorithm left over (indeg > 0). Each of them has an
 * upstream task that is also left over, so following "the first left-over upstream task" from any
 * of them must come back to a task already seen: that task lies on a cycle. The second walk from
 * it collects the cycle into `path`. `seen` and `path` may be the same array (n entries). */
static int report_cycle(const ds_dag_task *tasks, size_t n, const size_t *indeg, size_t *seen,
                        ds_err *err)
{
    size_t start = NO_INDEX;
    for (size_t i = 0; i < n && start == NO_INDEX; i++)
        if (indeg[i] > 0)
            start = i;
    if (start == NO_INDEX) /* cannot happen: called only when tasks are left over */
        return ds_err_set(err, "dependency cycle");

    for (size_t i = 0; i < n; i++)
        seen[i] = 0;
    size_t v = start;
    while (!seen[v]) {
        seen[v] = 1;
        size_t next = NO_INDEX;
        for (size_t k = 0; k < tasks[v].n_up && next == NO_INDEX; k++)
            if (indeg[tasks[v].up[k]] > 0)
                next = tasks[v].up[k];
        if (next == NO_INDEX)
            return ds_err_set(err, "dependency cycle through task \"%s\"", tasks[v].name);
        v = next;
    }

    /* path[0] = v, path[k + 1] = first left-over upstream task of path[k], until back at v. */
    size_t *path = seen;
    size_t c = v, len = 0;
    do {
        path[len++] = c;
        size_t next = NO_INDEX;
        for (size_t k = 0; k < tasks[c].n_up && next == NO_INDEX; k++)
            if (indeg[tasks[c].up[k]] > 0)
                next = tasks[c].up[k];
        c = next;
    } while (c != v && c != NO_INDEX && len < n);

    /* Print in execution order ("a -> b": b depends on a): path[0], path[len-1], ..., path[0]. */
    char buf[DS_ERR_MAX];
    size_t bl = 0;
    buf[0] = '\0';
    const char *ellipsis = " -> ...";
    append(buf, sizeof buf, &bl, "dependency cycle: ", 0);
    append(buf, sizeof buf, &bl, tasks[v].name, strlen(ellipsis));
    for (size_t k = len; k-- > 0;) {
        size_t t = path[k];
        if (!append(buf, sizeof buf, &bl, " -> ", strlen(ellipsis)) ||
            !append(buf, sizeof buf, &bl, tasks[t].name, strlen(ellipsis))) {
            append(buf, sizeof buf, &bl, ellipsis, 0);
            break;
        }
    }
    return ds_err_set(err, "%s", buf);
}

/* The arrays of a DAG being built, owned here until they move into the ds_dag. */
typedef struct dag_build {
    const ds_task_spec *specs;
    size_t n, n_edges;
    ds_dag_task *tasks;
    char *names;
    size_t *up_pool, *down_pool, *topo;
    ds_strmap index;
    size_t *a, *b; /* scratch[0..n), scratch[n..2n) */
    size_t *scratch;
    double *finish, *lmr;
    int n_levels;
    double critical;
} dag_build;

static void dag_build_free(dag_build *d)
{
    free(d->tasks);
    free(d->names);
    free(d->up_pool);
    free(d->down_pool);
    free(d->topo);
    ds_strmap_free(&d->index);
    free(d->scratch);
    free(d->finish);
    free(d->lmr);
}

/* Bounds first (without reading upstream entries), then each spec: the number of upstream
 * entries and the bytes of the names. */
static int check_specs(const ds_task_spec *specs, size_t n, size_t *raw_edges, size_t *name_bytes,
                       ds_err *err)
{
    size_t edges = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = specs[i].n_upstream;
        edges = k > SIZE_MAX - edges ? SIZE_MAX : edges + k;
    }
    if (edges > DS_DAG_MAX_EDGES)
        return ds_err_set(err, "job: too many dependencies: at most %d (got %zu)", DS_DAG_MAX_EDGES,
                          edges);
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        if (check_spec(&specs[i], i, &len, err) != 0)
            return -1;
        bytes += len + 1;
    }
    *raw_edges = edges;
    *name_bytes = bytes;
    return 0;
}

/* Names and the name index; duplicate names are an error. */
static int index_names(dag_build *d, ds_err *err)
{
    size_t off = 0;
    for (size_t i = 0; i < d->n; i++) {
        size_t len = strlen(d->specs[i].name);
        memcpy(d->names + off, d->specs[i].name, len + 1);
        d->tasks[i].name = d->names + off;
        d->tasks[i].runtime_s = d->specs[i].runtime_s;
        d->tasks[i].level = 1;
        off += len + 1;
        int rc = ds_strmap_put(&d->index, d->tasks[i].name, len, i, NULL);
        if (rc == 1)
            return ds_err_set(err, "duplicate task name \"%s\"", d->tasks[i].name);
        if (rc != 0) /* cannot happen: the index has room for n names */
            return ds_err_set(err, "job: task name index full at task %zu", i);
    }
    return 0;
}

/* Upstream lists: resolve names, drop duplicate entries, count dependents (in b). */
static int resolve_upstream(dag_build *d, ds_err *err)
{
    for (size_t i = 0; i < d->n; i++) {
        d->a[i] = NO_INDEX;
        d->b[i] = 0;
    }
    size_t pos = 0;
    for (size_t i = 0; i < d->n; i++) {
        ds_dag_task *t = &d->tasks[i];
        t->up = d->up_pool + pos;
        for (size_t k = 0; k < d->specs[i].n_upstream; k++) {
            const char *un = d->specs[i].upstream[k];
            size_t j = NO_INDEX, len = strnlen(un, DS_TASK_NAME_MAX + 1);
            if (len <= DS_TASK_NAME_MAX && ds_strmap_get(&d->index, un, len, &j) != 0)
                j = NO_INDEX;
            if (j == NO_INDEX)
                return ds_err_set(err, "task \"%s\": depends on unknown task \"%.*s\"", t->name,
                                  DS_TASK_NAME_MAX, un);
            if (d->a[j] == i)
                continue;
            d->a[j] = i;
            d->up_pool[pos++] = j;
            t->n_up++;
            d->b[j]++;
        }
    }
    d->n_edges = pos;
    return 0;
}

/* Dependent lists, in spec order. */
static int link_dependents(dag_build *d, ds_err *err)
{
    d->down_pool = malloc((d->n_edges > 0 ? d->n_edges : 1) * sizeof *d->down_pool);
    if (d->down_pool == NULL)
        return ds_err_set(err, "job: out of memory building a DAG of %zu tasks", d->n);
    size_t pos = 0;
    for (size_t j = 0; j < d->n; j++) {
        d->tasks[j].down = d->down_pool + pos;
        pos += d->b[j];
    }
    for (size_t i = 0; i < d->n; i++)
        for (size_t k = 0; k < d->tasks[i].n_up; k++) {
            ds_dag_task *u = &d->tasks[d->tasks[i].up[k]];
            u->down[u->n_down++] = i;
        }
    return 0;
}

/* Kahn's algorithm: topo doubles as the queue; levels follow the edges as they are removed. A
 * cycle is reported with its path. */
static int order_and_level(dag_build *d, ds_err *err)
{
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < d->n; i++) {
        d->a[i] = d->tasks[i].n_up;
        if (d->a[i] == 0)
            d->topo[tail++] = i;
    }
    while (head < tail) {
        size_t v = d->topo[head++];
        for (size_t k = 0; k < d->tasks[v].n_down; k++) {
            size_t w = d->tasks[v].down[k];
            if (d->tasks[v].level + 1 > d->tasks[w].level)
                d->tasks[w].level = d->tasks[v].level + 1;
            if (--d->a[w] == 0)
                d->topo[tail++] = w;
        }
    }
    if (tail < d->n)
        return report_cycle(d->tasks, d->n, d->a, d->b, err);
    return 0;
}

/* Levels' longest runtimes and the critical path. */
static int summarise_levels(dag_build *d, ds_err *err)
{
    int n_levels = 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->tasks[i].level > n_levels)
            n_levels = d->tasks[i].level;
    d->lmr = calloc((size_t)n_levels + 1, sizeof *d->lmr);
    if (d->lmr == NULL)
        return ds_err_set(err, "job: out of memory building a DAG of %zu tasks", d->n);
    double critical = 0;
    for (size_t t = 0; t < d->n; t++) {
        size_t v = d->topo[t];
        const ds_dag_task *tv = &d->tasks[v];
        if (tv->runtime_s > d->lmr[tv->level])
            d->lmr[tv->level] = tv->runtime_s;
        double before = 0;
        for (size_t k = 0; k < tv->n_up; k++)
            if (d->finish[tv->up[k]] > before)
                before = d->finish[tv->up[k]];
        d->finish[v] = before + tv->runtime_s;
        if (d->finish[v] > critical)
            critical = d->finish[v];
    }
    d->n_levels = n_levels;
    d->critical = critical;
    return 0;
}

int ds_dag_build(ds_dag *out, const ds_task_spec *specs, size_t n, ds_err *err)
{
    if (out == NULL)
        return ds_err_set(err, "dag: no output given");
    memset(out, 0, sizeof *out);
    if (n > 0 && specs == NULL)
        return ds_err_set(err, "job: task list is missing (got %zu tasks)", n);
    if (n > DS_DAG_MAX_TASKS)
        return ds_err_set(err, "job: too many tasks: at most %d (got %zu)", DS_DAG_MAX_TASKS, n);
    if (n == 0) {
        out->level_max_runtime = calloc(1, sizeof *out->level_max_runtime);
        if (out->level_max_runtime == NULL)
            return ds_err_set(err, "job: out of memory");
        return 0;
    }
    size_t raw_edges = 0, name_bytes = 0;
    if (check_specs(specs, n, &raw_edges, &name_bytes, err) != 0)
        return -1;

    dag_build d = {.specs = specs, .n = n};
    d.tasks = calloc(n, sizeof *d.tasks);
    d.names = malloc(name_bytes);
    d.up_pool = malloc((raw_edges > 0 ? raw_edges : 1) * sizeof *d.up_pool);
    d.topo = malloc(n * sizeof *d.topo);
    int index_rc = ds_strmap_init(&d.index, n);
    d.scratch = malloc(2 * n * sizeof *d.scratch);
    d.finish = malloc(n * sizeof *d.finish);
    if (d.tasks == NULL || d.names == NULL || d.up_pool == NULL || d.topo == NULL ||
        index_rc != 0 || d.scratch == NULL || d.finish == NULL) {
        dag_build_free(&d);
        return ds_err_set(err, "job: out of memory building a DAG of %zu tasks", n);
    }
    d.a = d.scratch;     /* per task: upstream stamp, then remaining in-degree */
    d.b = d.scratch + n; /* per task: dependent count, then cycle walk */
    if (index_names(&d, err) != 0 || resolve_upstream(&d, err) != 0 ||
        link_dependents(&d, err) != 0 || order_and_level(&d, err) != 0 ||
        summarise_levels(&d, err) != 0) {
        dag_build_free(&d);
        return -1;
    }

    out->tasks = d.tasks;
    out->n = n;
    out->topo = d.topo;
    out->n_levels = d.n_levels;
    out->level_max_runtime = d.lmr;
    out->index = d.index;
    out->critical_path_s = d.critical;
    /* The names and the edge pools belong to the ds_dag now (ds_dag_free). */
    d.tasks = NULL;
    d.names = NULL;
    d.up_pool = NULL;
    d.down_pool = NULL;
    d.topo = NULL;
    memset(&d.index, 0, sizeof d.index);
    d.lmr = NULL;
    dag_build_free(&d);
    return 0;
}

void ds_dag_free(ds_dag *d)
{
    if (d == NULL)
        return;
    if (d->tasks != NULL && d->n > 0) {
        free(d->tasks[0].name);
        free(d->tasks[0].up);
        free(d->tasks[0].down);
    }
    free(d->tasks);
    free(d->topo);
    free(d->level_max_runtime);
    ds_strmap_free(&d->index);
    memset(d, 0, sizeof *d);
}

int ds_dag_find(const ds_dag *d, const char *name, size_t *idx)
{
    if (d == NULL || name == NULL || d->n == 0)
        return -1;
    size_t len = strnlen(name, DS_TASK_NAME_MAX + 1), t = 0;
    if (len > DS_TASK_NAME_MAX || ds_strmap_get(&d->index, name, len, &t) != 0)
        return -1;
    if (idx != NULL)
        *idx = t;
    return 0;
}

void ds_dag_mark_ancestors(const ds_dag *d, size_t task, unsigned char *mark, size_t *stack)
{
    if (d == NULL || mark == NULL || stack == NULL || task >= d->n)
        return;
    /* Each task is pushed once at most (when it gets marked), plus `task`: at most d->n entries. */
    size_t top = 0;
    stack[top++] = task;
    while (top > 0) {
        const ds_dag_task *v = &d->tasks[stack[--top]];
        for (size_t k = 0; k < v->n_up; k++) {
            size_t u = v->up[k];
            if (!mark[u]) {
                mark[u] = 1;
                stack[top++] = u;
            }
        }
    }
}

double ds_dag_critical_path(const ds_dag *d)
{
    return d == NULL ? 0 : d->critical_path_s;
}
