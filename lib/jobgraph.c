/* jobgraph.c: strict parsing of the JobGraph document (see jobgraph.h).
 *
 * The document is loaded with lib/yaml_tree.h, under the same kind of bounds as every other YAML
 * document dagsched reads (size, nesting depth, node count, scalar length; anchors, aliases and
 * tags refused), then walked along the schema. */
#include "jobgraph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "dag.h"
#include "strmap.h"
#include "strquote.h"
#include "timefmt.h"
#include "yaml_tree.h"

#define PATH_MAX_LEN 160 /* field paths in messages (long unknown keys are cut) */

/* The schema is five levels deep (document, spec, tasks, a task, dependsOn); every node takes at
 * least one byte of input. */
static const ds_yaml_limits jobgraph_limits = {
    .max_bytes = DS_JOBGRAPH_MAX_BYTES,
    .max_depth = 8,
    .max_nodes = DS_JOBGRAPH_MAX_BYTES,
    .max_scalar = 4096,
};

typedef struct gctx {
    ds_err *err;
} gctx;

static const char *node_kind(const ds_yaml_node *n)
{
    switch (n->kind) {
    case DS_YAML_MAPPING:
        return "a mapping";
    case DS_YAML_SEQUENCE:
        return "a list";
    default:
        return "a string";
    }
}

/* out = path + "." + field (or field alone at the root), truncated to fit. */
static void join(char *out, const char *path, const char *field)
{
    size_t pos = 0;
    for (const char *parts[3] = {path, path[0] != '\0' ? "." : "", field}, **q = parts;
         q < parts + 3; q++)
        for (const char *c = *q; *c != '\0' && pos + 1 < PATH_MAX_LEN; c++)
            out[pos++] = *c;
    out[pos] = '\0';
}

/* out = path + "[i]". */
static void index_path(char *out, const char *path, size_t i)
{
    char idx[32];
    snprintf(idx, sizeof idx, "[%zu]", i);
    size_t pos = 0;
    for (const char *c = path; *c != '\0' && pos + 1 < PATH_MAX_LEN; c++)
        out[pos++] = *c;
    for (const char *c = idx; *c != '\0' && pos + 1 < PATH_MAX_LEN; c++)
        out[pos++] = *c;
    out[pos] = '\0';
}

static int get_string(gctx *c, const ds_yaml_node *n, const char *path, const char **out)
{
    if (n->kind != DS_YAML_SCALAR)
        return ds_err_set(c->err, "%s: must be a string (got %s)", path, node_kind(n));
    if (ds_yaml_is_null(n))
        return ds_err_set(c->err, "%s: must be a string (got null)", path);
    *out = n->text;
    return 0;
}

/* Walk a mapping whose allowed keys are names[0..n): vals[k] receives the value node of key k
 * (NULL when absent). Unknown and duplicate keys are errors, but the walk continues so that the
 * known fields are all collected; the first error is reported at the end. */
static int walk_mapping(gctx *c, const ds_yaml_node *m, const char *path, const char *const *names,
                        size_t n, const ds_yaml_node **vals)
{
    for (size_t k = 0; k < n; k++)
        vals[k] = NULL;
    const char *where = path[0] != '\0' ? path : "document";
    if (m->kind != DS_YAML_MAPPING)
        return ds_err_set(c->err, "%s: must be a mapping (got %s)", where,
                          ds_yaml_is_null(m) ? "null" : node_kind(m));
    int rc = 0;
    ds_err first;
    first.msg[0] = '\0';
    for (size_t i = 0; i < m->n; i++) {
        const ds_yaml_node *kn = m->child[2 * i];
        if (kn->kind != DS_YAML_SCALAR || ds_yaml_is_null(kn))
            return ds_err_set(c->err, "%s: field names must be strings", where);
        const char *key = kn->text;
        char sub[PATH_MAX_LEN];
        join(sub, path, key);
        size_t k = 0;
        while (k < n && strcmp(names[k], key) != 0)
            k++;
        if (k == n) {
            if (rc == 0)
                ds_err_set(&first, "%s: unknown field", sub);
            rc = -1;
        } else if (vals[k] != NULL) {
            if (rc == 0)
                ds_err_set(&first, "%s: duplicate field", sub);
            rc = -1;
        } else {
            vals[k] = m->child[2 * i + 1];
        }
    }
    if (rc != 0 && c->err != NULL)
        memcpy(c->err->msg, first.msg, sizeof first.msg);
    return rc;
}

static int oom(gctx *c)
{
    return ds_err_set(c->err, "out of memory");
}

static int parse_name(gctx *c, const ds_yaml_node *n, const char *path, const char **out)
{
    if (get_string(c, n, path, out) != 0)
        return -1;
    if (!ds_name_valid(*out, strlen(*out))) {
        char q[DS_QUOTE_BUF];
        return ds_err_set(c->err, "%s: " DS_NAME_RULE " (got %s)", path,
                          ds_quote(*out, DS_NAME_VALUE_MAX, q, sizeof q));
    }
    return 0;
}

static int parse_metadata(gctx *c, const ds_yaml_node *m, ds_jobgraph *g)
{
    static const char *const names[] = {"name"};
    const ds_yaml_node *ids[1];
    if (walk_mapping(c, m, "metadata", names, 1, ids) != 0)
        return -1;
    if (ids[0] == NULL)
        return ds_err_set(c->err, "metadata.name: required");
    const char *name;
    if (parse_name(c, ids[0], "metadata.name", &name) != 0)
        return -1;
    g->name = strdup(name);
    return g->name == NULL ? oom(c) : 0;
}

static int parse_task(gctx *c, const ds_yaml_node *m, size_t i, ds_jobgraph_task *t,
                      size_t *n_edges)
{
    static const char *const names[] = {"name", "runtime", "dependsOn"};
    const ds_yaml_node *ids[3];
    char path[PATH_MAX_LEN], sub[PATH_MAX_LEN];
    index_path(path, "spec.tasks", i);
    if (walk_mapping(c, m, path, names, 3, ids) != 0)
        return -1;

    join(sub, path, "name");
    if (ids[0] == NULL)
        return ds_err_set(c->err, "%s: required", sub);
    const char *name;
    if (parse_name(c, ids[0], sub, &name) != 0)
        return -1;
    t->name = strdup(name);
    if (t->name == NULL)
        return oom(c);

    join(sub, path, "runtime");
    if (ids[1] == NULL)
        return ds_err_set(c->err, "%s: required", sub);
    const char *rt;
    if (get_string(c, ids[1], sub, &rt) != 0)
        return -1;
    if (ds_duration_parse(rt, &t->runtime_s, c->err) != 0) {
        ds_err_prefix(c->err, "%s", sub);
        return -1;
    }

    if (ids[2] == NULL)
        return 0;
    join(sub, path, "dependsOn");
    const ds_yaml_node *seq = ids[2];
    if (seq->kind != DS_YAML_SEQUENCE)
        return ds_err_set(c->err, "%s: must be a list (got %s)", sub,
                          ds_yaml_is_null(seq) ? "null" : node_kind(seq));
    size_t n = seq->n;
    if (n == 0)
        return 0;
    if (n > DS_DAG_MAX_EDGES - *n_edges)
        return ds_err_set(c->err, "%s: too many dependencies in the graph (at most %d)", sub,
                          DS_DAG_MAX_EDGES);
    *n_edges += n;
    t->depends_on = calloc(n, sizeof *t->depends_on);
    if (t->depends_on == NULL)
        return oom(c);
    for (size_t k = 0; k < n; k++) {
        char item[PATH_MAX_LEN];
        index_path(item, sub, k);
        const char *dep;
        if (parse_name(c, seq->child[k], item, &dep) != 0)
            return -1;
        t->depends_on[k] = strdup(dep);
        if (t->depends_on[k] == NULL)
            return oom(c);
        t->n_depends_on++;
    }
    return 0;
}

static int parse_tasks(gctx *c, const ds_yaml_node *seq, ds_jobgraph *g)
{
    if (seq->kind != DS_YAML_SEQUENCE)
        return ds_err_set(c->err, "spec.tasks: must be a list (got %s)",
                          ds_yaml_is_null(seq) ? "null" : node_kind(seq));
    size_t n = seq->n;
    if (n == 0)
        return ds_err_set(c->err, "spec.tasks: must list at least one task");
    if (n > DS_DAG_MAX_TASKS)
        return ds_err_set(c->err, "spec.tasks: too many tasks (got %zu, at most %d)", n,
                          DS_DAG_MAX_TASKS);
    g->tasks = calloc(n, sizeof *g->tasks);
    if (g->tasks == NULL)
        return oom(c);
    ds_strmap names;
    if (ds_strmap_init(&names, n) != 0)
        return oom(c);
    int rc = 0;
    size_t n_edges = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        ds_jobgraph_task *t = &g->tasks[i];
        g->n_tasks++;
        rc = parse_task(c, seq->child[i], i, t, &n_edges);
        if (rc != 0)
            break;
        size_t other;
        int put = ds_strmap_put(&names, t->name, strlen(t->name), i, &other);
        if (put < 0)
            rc = oom(c);
        else if (put == 1)
            rc = ds_err_set(c->err,
                            "spec.tasks[%zu].name: duplicate task name \"%s\" (also "
                            "spec.tasks[%zu].name)",
                            i, t->name, other);
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        const ds_jobgraph_task *t = &g->tasks[i];
        for (size_t k = 0; k < t->n_depends_on && rc == 0; k++) {
            const char *dep = t->depends_on[k];
            size_t idx;
            if (ds_strmap_get(&names, dep, strlen(dep), &idx) != 0)
                rc = ds_err_set(c->err, "spec.tasks[%zu].dependsOn[%zu]: unknown task \"%s\"", i, k,
                                dep);
            else if (idx == i)
                rc = ds_err_set(
                    c->err, "spec.tasks[%zu].dependsOn[%zu]: a task cannot depend on itself", i, k);
        }
    }
    ds_strmap_free(&names);
    return rc;
}

static int parse_spec(gctx *c, const ds_yaml_node *m, ds_jobgraph *g)
{
    static const char *const names[] = {"deadline", "deadlineAfter", "tasks"};
    const ds_yaml_node *ids[3];
    if (walk_mapping(c, m, "spec", names, 3, ids) != 0)
        return -1;
    if (ids[0] != NULL && ids[1] != NULL)
        return ds_err_set(c->err, "spec: deadline and deadlineAfter are mutually exclusive");
    const char *s;
    if (ids[0] != NULL) {
        if (get_string(c, ids[0], "spec.deadline", &s) != 0)
            return -1;
        if (ds_timestamp_parse(s, &g->deadline, c->err) != 0) {
            ds_err_prefix(c->err, "spec.deadline");
            return -1;
        }
        g->deadline_kind = DS_DEADLINE_ABSOLUTE;
    } else if (ids[1] != NULL) {
        if (get_string(c, ids[1], "spec.deadlineAfter", &s) != 0)
            return -1;
        if (ds_duration_parse(s, &g->deadline, c->err) != 0) {
            ds_err_prefix(c->err, "spec.deadlineAfter");
            return -1;
        }
        g->deadline_kind = DS_DEADLINE_AFTER;
    }
    if (ids[2] == NULL)
        return ds_err_set(c->err, "spec.tasks: required");
    return parse_tasks(c, ids[2], g);
}

static int parse_root(gctx *c, const ds_yaml_node *root, ds_jobgraph *g)
{
    static const char *const names[] = {"apiVersion", "kind", "metadata", "spec"};
    const ds_yaml_node *ids[4];
    int rc = walk_mapping(c, root, "", names, 4, ids);
    ds_err root_err = {{0}};
    if (rc != 0 && c->err != NULL)
        root_err = *c->err;
    /* Read metadata.name even when the root has a bad field, so the error can reach the job. */
    if (ids[2] != NULL) {
        if (parse_metadata(c, ids[2], g) != 0) {
            if (rc != 0 && c->err != NULL)
                *c->err = root_err;
            return -1;
        }
    } else if (rc == 0) {
        return ds_err_set(c->err, "metadata: required");
    }
    if (rc != 0) {
        if (c->err != NULL)
            *c->err = root_err;
        return -1;
    }
    const char *s;
    char q[DS_QUOTE_BUF];
    if (ids[0] == NULL)
        return ds_err_set(c->err, "apiVersion: required");
    if (get_string(c, ids[0], "apiVersion", &s) != 0)
        return -1;
    if (strcmp(s, DS_JOBGRAPH_API_VERSION) != 0)
        return ds_err_set(c->err, "apiVersion: must be \"%s\" (got %s)", DS_JOBGRAPH_API_VERSION,
                          ds_quote(s, 64, q, sizeof q));
    if (ids[1] == NULL)
        return ds_err_set(c->err, "kind: required");
    if (get_string(c, ids[1], "kind", &s) != 0)
        return -1;
    if (strcmp(s, DS_JOBGRAPH_KIND) != 0)
        return ds_err_set(c->err, "kind: must be \"%s\" (got %s)", DS_JOBGRAPH_KIND,
                          ds_quote(s, 64, q, sizeof q));
    if (ids[3] == NULL)
        return ds_err_set(c->err, "spec: required");
    return parse_spec(c, ids[3], g);
}

int ds_jobgraph_parse(const char *yaml, size_t len, ds_jobgraph *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    if (yaml == NULL)
        return ds_err_set(err, "empty document");
    if (len > DS_JOBGRAPH_MAX_BYTES)
        return ds_err_set(err, "too large (got %zu bytes, at most %d)", len, DS_JOBGRAPH_MAX_BYTES);
    ds_yaml_node *root = NULL;
    if (ds_yaml_load(yaml, len, &jobgraph_limits, &root, err) != 0) {
        if (err != NULL && strcmp(err->msg, "YAML document: empty") == 0)
            ds_err_set(err, "empty document");
        return -1;
    }
    gctx c = {.err = err};
    int rc = parse_root(&c, root, out);
    ds_yaml_free(root);
    if (rc != 0) {
        /* Keep only the name (see jobgraph.h). */
        char *name = out->name;
        out->name = NULL;
        ds_jobgraph_free(out);
        out->name = name;
    }
    return rc;
}

void ds_jobgraph_free(ds_jobgraph *g)
{
    if (g == NULL)
        return;
    for (size_t i = 0; i < g->n_tasks; i++) {
        for (size_t k = 0; k < g->tasks[i].n_depends_on; k++)
            free(g->tasks[i].depends_on[k]);
        free(g->tasks[i].depends_on);
        free(g->tasks[i].name);
    }
    free(g->tasks);
    free(g->name);
    memset(g, 0, sizeof *g);
}
