/* jobgraph.c: strict parsing of the JobGraph document with libyaml (see jobgraph.h).
 *
 * The document is loaded as a node tree and walked along the schema. Every node is visited at most
 * once: a second visit means a YAML alias, which is rejected (aliases would let a small document
 * describe an enormous graph). */
#include "jobgraph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "annotations.h"
#include "dag.h"
#include "strmap.h"
#include "strquote.h"
#include "timefmt.h"

#define PATH_MAX_LEN 160 /* field paths in messages (long unknown keys are cut) */

typedef struct gctx {
    yaml_document_t *doc;
    unsigned char *seen; /* per node id (1-based), set once visited */
    size_t n_nodes;
    ds_err *err;
} gctx;

static const char *node_kind(const yaml_node_t *n)
{
    switch (n->type) {
    case YAML_MAPPING_NODE:
        return "a mapping";
    case YAML_SEQUENCE_NODE:
        return "a list";
    default:
        return "a string";
    }
}

static bool is_null(const yaml_node_t *n)
{
    if (n->type != YAML_SCALAR_NODE)
        return false;
    if (n->tag != NULL && strcmp((const char *)n->tag, YAML_NULL_TAG) == 0)
        return true;
    if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    const char *v = (const char *)n->data.scalar.value;
    return v[0] == '\0' || strcmp(v, "~") == 0 || strcmp(v, "null") == 0 ||
           strcmp(v, "Null") == 0 || strcmp(v, "NULL") == 0;
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

/* The node with this id, marked visited; NULL with err set on a second visit (an alias). */
static yaml_node_t *visit(gctx *c, int id, const char *path)
{
    yaml_node_t *n = yaml_document_get_node(c->doc, id);
    if (n == NULL || id < 1 || (size_t)id > c->n_nodes) {
        ds_err_set(c->err, "%s: invalid YAML node", path);
        return NULL;
    }
    if (c->seen[id - 1]) {
        ds_err_set(c->err, "%s: YAML aliases are not supported", path);
        return NULL;
    }
    c->seen[id - 1] = 1;
    return n;
}

static int get_string(gctx *c, int id, const char *path, const char **out)
{
    yaml_node_t *n = visit(c, id, path);
    if (n == NULL)
        return -1;
    if (n->type != YAML_SCALAR_NODE)
        return ds_err_set(c->err, "%s: must be a string (got %s)", path, node_kind(n));
    if (is_null(n))
        return ds_err_set(c->err, "%s: must be a string (got null)", path);
    const char *v = (const char *)n->data.scalar.value;
    if (strlen(v) != n->data.scalar.length)
        return ds_err_set(c->err, "%s: contains a NUL character", path);
    *out = v;
    return 0;
}

/* Walk a mapping whose allowed keys are names[0..n): ids[k] receives the value node id of key k (0
 * when absent). Unknown and duplicate keys are errors, but the walk continues so that the known
 * fields are all collected; the first error is reported at the end. */
static int walk_mapping(gctx *c, int id, const char *path, const char *const *names, size_t n,
                        int *ids)
{
    for (size_t k = 0; k < n; k++)
        ids[k] = 0;
    yaml_node_t *m = visit(c, id, path[0] != '\0' ? path : "document");
    if (m == NULL)
        return -1;
    if (m->type != YAML_MAPPING_NODE)
        return ds_err_set(c->err, "%s: must be a mapping (got %s)",
                          path[0] != '\0' ? path : "document", is_null(m) ? "null" : node_kind(m));
    int rc = 0;
    ds_err first;
    first.msg[0] = '\0';
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        const char *where = path[0] != '\0' ? path : "document";
        yaml_node_t *kn = visit(c, p->key, where);
        if (kn == NULL)
            return -1;
        if (kn->type != YAML_SCALAR_NODE || is_null(kn) ||
            strlen((const char *)kn->data.scalar.value) != kn->data.scalar.length)
            return ds_err_set(c->err, "%s: field names must be strings", where);
        const char *key = (const char *)kn->data.scalar.value;
        char sub[PATH_MAX_LEN];
        join(sub, path, key);
        size_t k = 0;
        while (k < n && strcmp(names[k], key) != 0)
            k++;
        if (k == n) {
            if (rc == 0)
                ds_err_set(&first, "%s: unknown field", sub);
            rc = -1;
        } else if (ids[k] != 0) {
            if (rc == 0)
                ds_err_set(&first, "%s: duplicate field", sub);
            rc = -1;
        } else {
            ids[k] = p->value;
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

static int parse_name(gctx *c, int id, const char *path, const char **out)
{
    if (get_string(c, id, path, out) != 0)
        return -1;
    if (!ds_name_valid(*out, strlen(*out))) {
        char q[DS_QUOTE_BUF];
        return ds_err_set(c->err, "%s: " DS_NAME_RULE " (got %s)", path,
                          ds_quote(*out, DS_NAME_VALUE_MAX, q, sizeof q));
    }
    return 0;
}

static int parse_metadata(gctx *c, int id, ds_jobgraph *g)
{
    static const char *const names[] = {"name"};
    int ids[1];
    if (walk_mapping(c, id, "metadata", names, 1, ids) != 0)
        return -1;
    if (ids[0] == 0)
        return ds_err_set(c->err, "metadata.name: required");
    const char *name;
    if (parse_name(c, ids[0], "metadata.name", &name) != 0)
        return -1;
    g->name = strdup(name);
    return g->name == NULL ? oom(c) : 0;
}

static int parse_task(gctx *c, int id, size_t i, ds_jobgraph_task *t, size_t *n_edges)
{
    static const char *const names[] = {"name", "runtime", "dependsOn"};
    int ids[3];
    char path[PATH_MAX_LEN], sub[PATH_MAX_LEN];
    index_path(path, "spec.tasks", i);
    if (walk_mapping(c, id, path, names, 3, ids) != 0)
        return -1;

    join(sub, path, "name");
    if (ids[0] == 0)
        return ds_err_set(c->err, "%s: required", sub);
    const char *name;
    if (parse_name(c, ids[0], sub, &name) != 0)
        return -1;
    t->name = strdup(name);
    if (t->name == NULL)
        return oom(c);

    join(sub, path, "runtime");
    if (ids[1] == 0)
        return ds_err_set(c->err, "%s: required", sub);
    const char *rt;
    if (get_string(c, ids[1], sub, &rt) != 0)
        return -1;
    if (ds_duration_parse(rt, &t->runtime_s, c->err) != 0) {
        ds_err_prefix(c->err, "%s", sub);
        return -1;
    }

    if (ids[2] == 0)
        return 0;
    join(sub, path, "dependsOn");
    yaml_node_t *seq = visit(c, ids[2], sub);
    if (seq == NULL)
        return -1;
    if (seq->type != YAML_SEQUENCE_NODE)
        return ds_err_set(c->err, "%s: must be a list (got %s)", sub,
                          is_null(seq) ? "null" : node_kind(seq));
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
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
        if (parse_name(c, seq->data.sequence.items.start[k], item, &dep) != 0)
            return -1;
        t->depends_on[k] = strdup(dep);
        if (t->depends_on[k] == NULL)
            return oom(c);
        t->n_depends_on++;
    }
    return 0;
}

static int parse_tasks(gctx *c, int id, ds_jobgraph *g)
{
    yaml_node_t *seq = visit(c, id, "spec.tasks");
    if (seq == NULL)
        return -1;
    if (seq->type != YAML_SEQUENCE_NODE)
        return ds_err_set(c->err, "spec.tasks: must be a list (got %s)",
                          is_null(seq) ? "null" : node_kind(seq));
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
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
        rc = parse_task(c, seq->data.sequence.items.start[i], i, t, &n_edges);
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

static int parse_spec(gctx *c, int id, ds_jobgraph *g)
{
    static const char *const names[] = {"deadline", "deadlineAfter", "tasks"};
    int ids[3];
    if (walk_mapping(c, id, "spec", names, 3, ids) != 0)
        return -1;
    if (ids[0] != 0 && ids[1] != 0)
        return ds_err_set(c->err, "spec: deadline and deadlineAfter are mutually exclusive");
    const char *s;
    if (ids[0] != 0) {
        if (get_string(c, ids[0], "spec.deadline", &s) != 0)
            return -1;
        if (ds_timestamp_parse(s, &g->deadline, c->err) != 0) {
            ds_err_prefix(c->err, "spec.deadline");
            return -1;
        }
        g->deadline_kind = DS_DEADLINE_ABSOLUTE;
    } else if (ids[1] != 0) {
        if (get_string(c, ids[1], "spec.deadlineAfter", &s) != 0)
            return -1;
        if (ds_duration_parse(s, &g->deadline, c->err) != 0) {
            ds_err_prefix(c->err, "spec.deadlineAfter");
            return -1;
        }
        g->deadline_kind = DS_DEADLINE_AFTER;
    }
    if (ids[2] == 0)
        return ds_err_set(c->err, "spec.tasks: required");
    return parse_tasks(c, ids[2], g);
}

static int parse_root(gctx *c, ds_jobgraph *g)
{
    static const char *const names[] = {"apiVersion", "kind", "metadata", "spec"};
    int ids[4];
    yaml_node_t *root = yaml_document_get_root_node(c->doc);
    if (root == NULL)
        return ds_err_set(c->err, "empty document");
    int root_id = (int)(root - c->doc->nodes.start) + 1;
    int rc = walk_mapping(c, root_id, "", names, 4, ids);
    ds_err root_err = {{0}};
    if (rc != 0 && c->err != NULL)
        root_err = *c->err;
    /* Read metadata.name even when the root has a bad field, so the error can reach the job. */
    if (ids[2] != 0) {
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
    if (ids[0] == 0)
        return ds_err_set(c->err, "apiVersion: required");
    if (get_string(c, ids[0], "apiVersion", &s) != 0)
        return -1;
    if (strcmp(s, DS_JOBGRAPH_API_VERSION) != 0)
        return ds_err_set(c->err, "apiVersion: must be \"%s\" (got %s)", DS_JOBGRAPH_API_VERSION,
                          ds_quote(s, 64, q, sizeof q));
    if (ids[1] == 0)
        return ds_err_set(c->err, "kind: required");
    if (get_string(c, ids[1], "kind", &s) != 0)
        return -1;
    if (strcmp(s, DS_JOBGRAPH_KIND) != 0)
        return ds_err_set(c->err, "kind: must be \"%s\" (got %s)", DS_JOBGRAPH_KIND,
                          ds_quote(s, 64, q, sizeof q));
    if (ids[3] == 0)
        return ds_err_set(c->err, "spec: required");
    return parse_spec(c, ids[3], g);
}

static int syntax_error(const yaml_parser_t *p, ds_err *err)
{
    if (p->error == YAML_MEMORY_ERROR)
        return ds_err_set(err, "out of memory");
    const char *problem = p->problem != NULL ? p->problem : "invalid YAML";
    if (p->context != NULL)
        return ds_err_set(err, "line %zu, column %zu: %s %s", p->problem_mark.line + 1,
                          p->problem_mark.column + 1, problem, p->context);
    return ds_err_set(err, "line %zu, column %zu: %s", p->problem_mark.line + 1,
                      p->problem_mark.column + 1, problem);
}

int ds_jobgraph_parse(const char *yaml, size_t len, ds_jobgraph *out, ds_err *err)
{
    memset(out, 0, sizeof *out);
    if (yaml == NULL)
        return ds_err_set(err, "empty document");
    if (len > DS_JOBGRAPH_MAX_BYTES)
        return ds_err_set(err, "too large (got %zu bytes, at most %d)", len, DS_JOBGRAPH_MAX_BYTES);
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return ds_err_set(err, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)yaml, len);
    yaml_document_t doc;
    if (!yaml_parser_load(&parser, &doc)) {
        syntax_error(&parser, err);
        yaml_parser_delete(&parser);
        return -1;
    }
    int rc = 0;
    if (yaml_document_get_root_node(&doc) != NULL) {
        yaml_document_t next;
        if (!yaml_parser_load(&parser, &next)) {
            rc = syntax_error(&parser, err);
        } else {
            if (yaml_document_get_root_node(&next) != NULL)
                rc = ds_err_set(err, "more than one YAML document");
            yaml_document_delete(&next);
        }
    }
    if (rc == 0) {
        gctx c = {.doc = &doc, .err = err};
        c.n_nodes = (size_t)(doc.nodes.top - doc.nodes.start);
        c.seen = calloc(c.n_nodes + 1, 1);
        if (c.seen == NULL)
            rc = ds_err_set(err, "out of memory");
        else
            rc = parse_root(&c, out);
        free(c.seen);
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
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
