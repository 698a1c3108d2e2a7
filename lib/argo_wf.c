/* argo_wf.c: expanding an Argo Workflow's templates into DAG tasks, with states from status.nodes
 * (see argo_wf.h). */
#include "argo_wf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "jobmodel.h"
#include "strquote.h"
#include "timefmt.h"

/* A list of task indexes. */
typedef struct ilist {
    size_t *v;
    size_t n;
} ilist;

typedef struct expander {
    const ds_wf_obs *wf;
    ds_wf_job *j;
    size_t cap_tasks;
    ds_strmap tmpl_index;         /* template name -> index */
    ds_strmap node_by_name;       /* node name -> index */
    ds_strmap node_by_id;         /* node id -> index */
    const ds_wf_node **task_node; /* [cap_tasks]: each task's own node, or NULL */
    const ds_wf_template *stack[DS_WF_MAX_DEPTH + 1];
    size_t depth;
    bool wf_runtime_set;
    double wf_runtime_s;
    ds_err *err;
} expander;

static int oom(expander *e)
{
    return ds_err_set(e->err, "out of memory");
}

ds_wf_node_phase ds_wf_node_phase_of(const char *p)
{
    if (p == NULL)
        return DS_WF_NODE_PENDING;
    if (strcmp(p, "Running") == 0)
        return DS_WF_NODE_RUNNING;
    if (strcmp(p, "Succeeded") == 0 || strcmp(p, "Skipped") == 0 || strcmp(p, "Omitted") == 0)
        return DS_WF_NODE_SUCCEEDED;
    if (strcmp(p, "Failed") == 0 || strcmp(p, "Error") == 0)
        return DS_WF_NODE_FAILED;
    return DS_WF_NODE_PENDING;
}

static bool finished(ds_wf_node_phase p)
{
    return p == DS_WF_NODE_SUCCEEDED || p == DS_WF_NODE_FAILED;
}

static const ds_wf_node *node_named(const expander *e, const char *name)
{
    size_t i;
    if (ds_strmap_get(&e->node_by_name, name, strlen(name), &i) != 0)
        return NULL;
    return &e->wf->nodes[i];
}

static const ds_wf_node *node_with_id(const expander *e, const char *id)
{
    size_t i;
    if (id == NULL || ds_strmap_get(&e->node_by_id, id, strlen(id), &i) != 0)
        return NULL;
    return &e->wf->nodes[i];
}

static const ds_wf_template *template_named(const expander *e, const char *name)
{
    size_t i;
    if (name == NULL || ds_strmap_get(&e->tmpl_index, name, strlen(name), &i) != 0)
        return NULL;
    return &e->wf->templates[i];
}

/* Map a node id or name to task t (the first mapping wins). */
static int map_node(expander *e, const char *key, size_t t)
{
    if (key == NULL || key[0] == '\0')
        return 0;
    if (ds_strmap_put(&e->j->node_task, key, strlen(key), t, NULL) < 0)
        return oom(e);
    return 0;
}

static int duration_ann(const char *what, const char *s, double *out, ds_err *err)
{
    ds_err e = {{0}};
    if (ds_duration_parse(s, out, &e) != 0)
        return ds_err_set(err, "%s: %s", what, e.msg);
    if (*out > DS_DURATION_ANN_MAX_S) {
        char q[DS_QUOTE_BUF];
        return ds_err_set(err, "%s: %s exceeds the limit " DS_DURATION_ANN_MAX, what,
                          ds_quote(s, DS_DURATION_MAX_LEN, q, sizeof q));
    }
    return 0;
}

/* The task's name: the node name without "<workflow>" and the dot after it. */
static const char *task_name_of(const expander *e, const char *node_name)
{
    size_t lw = strlen(e->wf->name);
    if (strncmp(node_name, e->wf->name, lw) != 0)
        return node_name;
    const char *rest = node_name + lw;
    if (rest[0] == '.')
        rest++;
    return rest[0] != '\0' ? rest : node_name;
}

static int add_task(expander *e, const ds_wf_template *t, const char *node_name, const ilist *up,
                    ds_wf_node_phase enclosing, ilist *exits)
{
    ds_wf_job *j = e->j;
    if (j->n_tasks == DS_WF_MAX_TASKS)
        return ds_err_set(e->err, "workflow: more than %d tasks", DS_WF_MAX_TASKS);
    if (j->n_tasks == e->cap_tasks) {
        size_t cap = e->cap_tasks == 0 ? 16 : e->cap_tasks * 2;
        ds_wf_task *nt = realloc(j->tasks, cap * sizeof *nt);
        if (nt == NULL)
            return oom(e);
        j->tasks = nt;
        const ds_wf_node **tn = realloc(e->task_node, cap * sizeof *tn);
        if (tn == NULL)
            return oom(e);
        e->task_node = tn;
        e->cap_tasks = cap;
    }
    size_t ti = j->n_tasks;
    ds_wf_task *task = &j->tasks[ti];
    memset(task, 0, sizeof *task);
    task->node_name = ds_arena_strdup(&j->arena, node_name);
    if (task->node_name == NULL)
        return oom(e);
    task->name = task_name_of(e, task->node_name);
    task->has_pod = t->kind == DS_WF_TMPL_POD;
    task->request = t->request;
    task->has_request = task->has_pod && t->has_request;
    task->started_at = NAN;
    task->finished_at = NAN;
    if (up->n > 0) {
        task->up = ds_arena_calloc(&j->arena, up->n, sizeof *task->up);
        if (task->up == NULL)
            return oom(e);
        for (size_t k = 0; k < up->n; k++)
            task->up[k] = j->tasks[up->v[k]].name;
        task->n_up = up->n;
    }
    const ds_wf_node *n = node_named(e, node_name);
    if (n != NULL) {
        task->phase = n->phase;
        task->started_at = n->started_at;
        task->finished_at = n->finished_at;
    } else if (finished(enclosing)) {
        task->phase = enclosing;
    }
    /* Run time: template annotation, Workflow annotation, estimatedDuration, default. */
    if (t->runtime != NULL) {
        ds_err de = {{0}};
        if (duration_ann("annotation " DS_ANN_RUNTIME, t->runtime, &task->runtime_s, &de) != 0)
            return ds_err_set(e->err, "template \"%s\": %s", t->name, de.msg);
        task->runtime_source = DS_WF_RUNTIME_TEMPLATE;
    } else if (e->wf_runtime_set) {
        task->runtime_s = e->wf_runtime_s;
        task->runtime_source = DS_WF_RUNTIME_WORKFLOW;
    } else if (n != NULL && isfinite(n->estimated_duration_s) && n->estimated_duration_s > 0 &&
               n->estimated_duration_s <= DS_DURATION_ANN_MAX_S) {
        task->runtime_s = n->estimated_duration_s;
        task->runtime_source = DS_WF_RUNTIME_ESTIMATED;
    } else {
        task->runtime_s = t->kind == DS_WF_TMPL_POD ? DS_DEFAULT_RUNTIME_S : 0.0;
        task->runtime_source = DS_WF_RUNTIME_DEFAULT;
    }
    e->task_node[ti] = n;
    j->n_tasks++;
    exits->v = ds_arena_calloc(&j->arena, 1, sizeof *exits->v);
    if (exits->v == NULL)
        return oom(e);
    exits->v[0] = ti;
    exits->n = 1;
    return 0;
}

/* Concatenate lists (duplicates are harmless: the DAG ignores them). */
static int ilist_cat(expander *e, ilist *dst, const ilist *src)
{
    if (src->n == 0)
        return 0;
    size_t *v = ds_arena_calloc(&e->j->arena, dst->n + src->n, sizeof *v);
    if (v == NULL)
        return oom(e);
    if (dst->n > 0)
        memcpy(v, dst->v, dst->n * sizeof *v);
    memcpy(v + dst->n, src->v, src->n * sizeof *v);
    dst->v = v;
    dst->n += src->n;
    return 0;
}

static int expand_call(expander *e, const ds_wf_template *t, const char *node_name, const ilist *up,
                       ds_wf_node_phase enclosing, ilist *exits);

/* A step or DAG task called as node `name` (with its fan-out, if any). group: the StepGroup
 * node's name for steps, NULL for DAG tasks. */
static int expand_step(expander *e, const ds_wf_template *owner, const ds_wf_step *s,
                       const char *name, const char *group, const ilist *up,
                       ds_wf_node_phase enclosing, ilist *exits)
{
    if (s->template_ref)
        return ds_err_set(e->err,
                          "template \"%s\", step \"%s\": templateRef is not supported by dagsched",
                          owner->name, s->name);
    const ds_wf_template *t = template_named(e, s->template_name);
    if (t == NULL) {
        char q[DS_QUOTE_BUF];
        return ds_err_set(
            e->err, "template \"%s\", step \"%s\": unknown template %s", owner->name, s->name,
            s->template_name == NULL ? "(none)" : ds_quote(s->template_name, 100, q, sizeof q));
    }
    const ds_wf_node *self = node_named(e, name);
    if (self != NULL && finished(self->phase))
        enclosing = self->phase;
    exits->n = 0;
    exits->v = NULL;
    if (s->fan_out) {
        /* Argo's expansion: DAG task -> TaskGroup node with the items as children; step -> the
         * items are children of the StepGroup node, named "<name>(i:item)". */
        const ds_wf_node *parent = group == NULL ? self : node_named(e, group);
        size_t ln = strlen(name), found = 0;
        for (size_t c = 0; parent != NULL && c < parent->n_children; c++) {
            const ds_wf_node *item = node_with_id(e, parent->children[c]);
            if (item == NULL || item->name == NULL)
                continue;
            if (group != NULL && (strncmp(item->name, name, ln) != 0 || item->name[ln] != '('))
                continue;
            ilist x = {0};
            if (expand_call(e, t, item->name, up, enclosing, &x) != 0 || ilist_cat(e, exits, &x))
                return -1;
            found++;
        }
        if (found > 0)
            return 0;
        /* Not expanded yet: one task stands for the fan-out. */
    }
    return expand_call(e, t, name, up, enclosing, exits);
}

/* ---- `depends`: names joined by && (parentheses allowed), each optionally .Succeeded ---- */

static bool ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
}

/* Names of `depends` into out (arena strings); -1 with err set when unsupported. */
static int parse_depends(expander *e, const ds_wf_template *owner, const ds_wf_step *s,
                         const char ***out, size_t *n)
{
    const char *p = s->depends;
    size_t len = strnlen(p, DS_WF_DEPENDS_MAX + 1);
    if (len > DS_WF_DEPENDS_MAX)
        return ds_err_set(e->err, "template \"%s\", task \"%s\": depends is longer than %d bytes",
                          owner->name, s->name, DS_WF_DEPENDS_MAX);
    const char **names = ds_arena_calloc(&e->j->arena, len / 2 + 1, sizeof *names);
    if (names == NULL)
        return oom(e);
    size_t k = 0;
    int open = 0;
    bool want_name = true;
    char q[DS_QUOTE_BUF];
    for (size_t i = 0; i < len;) {
        char c = p[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            i++;
        } else if (want_name && c == '(') {
            open++;
            i++;
        } else if (!want_name && c == ')' && open > 0) {
            open--;
            i++;
        } else if (!want_name && c == '&' && i + 1 < len && p[i + 1] == '&') {
            want_name = true;
            i += 2;
        } else if (want_name && ident_char(c)) {
            size_t st = i;
            while (i < len && ident_char(p[i]))
                i++;
            names[k] = ds_arena_strndup(&e->j->arena, p + st, i - st);
            if (names[k] == NULL)
                return oom(e);
            k++;
            if (i < len && p[i] == '.') {
                static const char ok[] = ".Succeeded";
                if (strncmp(p + i, ok, sizeof ok - 1) != 0 || ident_char(p[i + sizeof ok - 1]))
                    goto unsupported;
                i += sizeof ok - 1;
            }
            want_name = false;
        } else {
            goto unsupported;
        }
    }
    if (want_name || open != 0)
        goto unsupported;
    *out = names;
    *n = k;
    return 0;
unsupported:
    return ds_err_set(e->err,
                      "template \"%s\", task \"%s\": depends %s: dagsched supports only task "
                      "names, optionally with .Succeeded, joined by &&",
                      owner->name, s->name, ds_quote(p, 100, q, sizeof q));
}

static int expand_dag(expander *e, const ds_wf_template *t, const char *node_name, const ilist *up,
                      ds_wf_node_phase enclosing, ilist *exits)
{
    size_t n = t->n_steps;
    exits->n = 0;
    exits->v = NULL;
    if (n == 0) {
        *exits = *up;
        return 0;
    }
    ds_arena *a = &e->j->arena;
    const char ***deps = ds_arena_calloc(a, n, sizeof *deps);
    size_t **dep_idx = ds_arena_calloc(a, n, sizeof *dep_idx);
    size_t *n_deps = ds_arena_calloc(a, n, sizeof *n_deps);
    size_t *indeg = ds_arena_calloc(a, n, sizeof *indeg);
    size_t *order = ds_arena_calloc(a, n, sizeof *order);
    bool *has_down = ds_arena_calloc(a, n, sizeof *has_down);
    ilist *out = ds_arena_calloc(a, n, sizeof *out);
    ds_strmap idx;
    if (deps == NULL || dep_idx == NULL || n_deps == NULL || indeg == NULL || order == NULL ||
        has_down == NULL || out == NULL || ds_strmap_init(&idx, n) != 0)
        return oom(e);
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        const ds_wf_step *s = &t->steps[i];
        if (s->name == NULL)
            goto done;
        if (ds_strmap_put(&idx, s->name, strlen(s->name), i, NULL) == 1) {
            ds_err_set(e->err, "template \"%s\": task \"%s\" appears twice", t->name, s->name);
            goto done;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const ds_wf_step *s = &t->steps[i];
        if (s->depends != NULL && s->n_dependencies > 0) {
            ds_err_set(e->err, "template \"%s\", task \"%s\": both dependencies and depends",
                       t->name, s->name);
            goto done;
        }
        if (s->depends != NULL) {
            if (parse_depends(e, t, s, &deps[i], &n_deps[i]) != 0)
                goto done;
        } else {
            deps[i] = (const char **)s->dependencies;
            n_deps[i] = s->n_dependencies;
        }
        if (n_deps[i] > 0) {
            dep_idx[i] = ds_arena_calloc(a, n_deps[i], sizeof **dep_idx);
            if (dep_idx[i] == NULL) {
                oom(e);
                goto done;
            }
        }
        for (size_t k = 0; k < n_deps[i]; k++) {
            size_t d;
            if (ds_strmap_get(&idx, deps[i][k], strlen(deps[i][k]), &d) != 0) {
                char q[DS_QUOTE_BUF];
                ds_err_set(e->err, "template \"%s\", task \"%s\": depends on unknown task %s",
                           t->name, s->name, ds_quote(deps[i][k], 100, q, sizeof q));
                goto done;
            }
            has_down[d] = true;
            dep_idx[i][k] = d;
        }
        indeg[i] = n_deps[i];
    }
    /* Kahn's order over the template's tasks: a task is expanded after its upstream tasks. */
    size_t n_edges = 0;
    for (size_t i = 0; i < n; i++)
        n_edges += n_deps[i];
    size_t *down_off = ds_arena_calloc(a, n + 1, sizeof *down_off);
    size_t *down = ds_arena_calloc(a, n_edges + 1, sizeof *down);
    size_t *fill = ds_arena_calloc(a, n, sizeof *fill);
    if (down_off == NULL || down == NULL || fill == NULL) {
        oom(e);
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n_deps[i]; k++)
            down_off[dep_idx[i][k] + 1]++;
    for (size_t i = 0; i < n; i++)
        down_off[i + 1] += down_off[i];
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n_deps[i]; k++) {
            size_t d = dep_idx[i][k];
            down[down_off[d] + fill[d]++] = i;
        }
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if (indeg[i] == 0)
            order[tail++] = i;
    while (head < tail) {
        size_t i = order[head++];
        for (size_t k = down_off[i]; k < down_off[i + 1]; k++)
            if (--indeg[down[k]] == 0)
                order[tail++] = down[k];
    }
    if (tail < n) {
        ds_err_set(e->err, "template \"%s\": dependency cycle", t->name);
        goto done;
    }
    for (size_t h = 0; h < n; h++) {
        size_t i = order[h];
        const ds_wf_step *s = &t->steps[i];
        ilist u = {0};
        if (n_deps[i] == 0)
            u = *up;
        for (size_t k = 0; k < n_deps[i]; k++)
            if (ilist_cat(e, &u, &out[dep_idx[i][k]]) != 0)
                goto done;
        char *child = ds_arena_printf(a, "%s.%s", node_name, s->name);
        if (child == NULL) {
            oom(e);
            goto done;
        }
        if (expand_step(e, t, s, child, NULL, &u, enclosing, &out[i]) != 0)
            goto done;
        /* A task that expanded to nothing passes its upstream on. */
        if (out[i].n == 0)
            out[i] = u;
    }
    for (size_t i = 0; i < n; i++)
        if (!has_down[i] && ilist_cat(e, exits, &out[i]) != 0)
            goto done;
    rc = 0;
done:
    ds_strmap_free(&idx);
    return rc;
}

static int expand_steps(expander *e, const ds_wf_template *t, const char *node_name,
                        const ilist *up, ds_wf_node_phase enclosing, ilist *exits)
{
    ilist prev = *up;
    ds_arena *a = &e->j->arena;
    for (size_t i = 0; i < t->n_steps;) {
        size_t g = t->steps[i].group, end = i;
        while (end < t->n_steps && t->steps[end].group == g)
            end++;
        char *group = ds_arena_printf(a, "%s[%zu]", node_name, g);
        if (group == NULL)
            return oom(e);
        const ds_wf_node *gn = node_named(e, group);
        ds_wf_node_phase genc = gn != NULL && finished(gn->phase) ? gn->phase : enclosing;
        ilist cur = {0};
        for (size_t k = i; k < end; k++) {
            const ds_wf_step *s = &t->steps[k];
            if (s->name == NULL)
                return ds_err_set(e->err, "template \"%s\": a step has no name", t->name);
            char *child = ds_arena_printf(a, "%s.%s", group, s->name);
            ilist x = {0};
            if (child == NULL)
                return oom(e);
            if (expand_step(e, t, s, child, group, &prev, genc, &x) != 0 ||
                ilist_cat(e, &cur, &x) != 0)
                return -1;
        }
        if (cur.n > 0)
            prev = cur;
        i = end;
    }
    *exits = prev;
    return 0;
}

static int expand_call(expander *e, const ds_wf_template *t, const char *node_name, const ilist *up,
                       ds_wf_node_phase enclosing, ilist *exits)
{
    if (t->kind == DS_WF_TMPL_POD || t->kind == DS_WF_TMPL_NOPOD)
        return add_task(e, t, node_name, up, enclosing, exits);
    for (size_t d = 0; d < e->depth; d++)
        if (e->stack[d] == t)
            return ds_err_set(e->err,
                              "template \"%s\" calls itself: recursive templates are not "
                              "supported by dagsched",
                              t->name);
    if (e->depth == DS_WF_MAX_DEPTH)
        return ds_err_set(e->err, "templates nested deeper than %d", DS_WF_MAX_DEPTH);
    const ds_wf_node *self = node_named(e, node_name);
    if (self != NULL && finished(self->phase))
        enclosing = self->phase;
    e->stack[e->depth++] = t;
    int rc = t->kind == DS_WF_TMPL_DAG ? expand_dag(e, t, node_name, up, enclosing, exits)
                                       : expand_steps(e, t, node_name, up, enclosing, exits);
    e->depth--;
    return rc;
}

/* Index every task by its node name, its node id and, for a Retry node, its attempts' ids and
 * names (a pod carries its attempt's node). */
static int map_nodes(expander *e)
{
    ds_wf_job *j = e->j;
    size_t keys = j->n_tasks;
    for (size_t t = 0; t < j->n_tasks; t++) {
        const ds_wf_node *n = e->task_node[t];
        if (n != NULL)
            keys += 1 + 2 * n->n_children;
    }
    if (ds_strmap_init(&j->node_task, keys) != 0)
        return oom(e);
    for (size_t t = 0; t < j->n_tasks; t++) {
        const ds_wf_node *n = e->task_node[t];
        if (map_node(e, j->tasks[t].node_name, t) != 0)
            return -1;
        if (n == NULL)
            continue;
        if (map_node(e, n->id, t) != 0)
            return -1;
        if (n->type == NULL || strcmp(n->type, "Retry") != 0)
            continue;
        for (size_t c = 0; c < n->n_children; c++) {
            const ds_wf_node *ch = node_with_id(e, n->children[c]);
            if (map_node(e, n->children[c], t) != 0 ||
                (ch != NULL && map_node(e, ch->name, t) != 0))
                return -1;
        }
    }
    return 0;
}

static int workflow_annotations(expander *e)
{
    const ds_wf_obs *wf = e->wf;
    ds_wf_job *j = e->j;
    if (wf->runtime != NULL) {
        if (duration_ann("annotation " DS_ANN_RUNTIME, wf->runtime, &e->wf_runtime_s, e->err))
            return -1;
        e->wf_runtime_set = true;
    }
    if (wf->deadline != NULL && wf->deadline_after != NULL)
        return ds_err_set(e->err, "annotations " DS_ANN_DEADLINE " and " DS_ANN_DEADLINE_AFTER
                                  " are both set; use one");
    if (wf->deadline != NULL) {
        ds_err de = {{0}};
        if (ds_timestamp_parse(wf->deadline, &j->deadline, &de) != 0)
            return ds_err_set(e->err, "annotation " DS_ANN_DEADLINE ": %s", de.msg);
        j->deadline_kind = DS_WF_DEADLINE_ABSOLUTE;
    }
    if (wf->deadline_after != NULL) {
        if (duration_ann("annotation " DS_ANN_DEADLINE_AFTER, wf->deadline_after, &j->deadline,
                         e->err) != 0)
            return -1;
        j->deadline_kind = DS_WF_DEADLINE_AFTER;
    }
    return 0;
}

static int expand(expander *e)
{
    const ds_wf_obs *wf = e->wf;
    if (wf->decode_error != NULL)
        return ds_err_set(e->err, "%s", wf->decode_error);
    if (wf->name == NULL || wf->name[0] == '\0')
        return ds_err_set(e->err, "workflow has no name");
    if (wf->n_templates > DS_WF_MAX_TEMPLATES)
        return ds_err_set(e->err, "spec.templates: more than %d", DS_WF_MAX_TEMPLATES);
    if (wf->n_nodes > DS_WF_MAX_NODES)
        return ds_err_set(e->err, "status.nodes: more than %d", DS_WF_MAX_NODES);
    if (workflow_annotations(e) != 0)
        return -1;
    if (ds_strmap_init(&e->tmpl_index, wf->n_templates) != 0 ||
        ds_strmap_init(&e->node_by_name, wf->n_nodes) != 0 ||
        ds_strmap_init(&e->node_by_id, wf->n_nodes) != 0)
        return oom(e);
    for (size_t i = 0; i < wf->n_templates; i++) {
        const char *n = wf->templates[i].name;
        if (n != NULL)
            ds_strmap_put(&e->tmpl_index, n, strlen(n), i, NULL);
    }
    for (size_t i = 0; i < wf->n_nodes; i++) {
        const char *n = wf->nodes[i].name, *id = wf->nodes[i].id;
        if (n != NULL)
            ds_strmap_put(&e->node_by_name, n, strlen(n), i, NULL);
        if (id != NULL)
            ds_strmap_put(&e->node_by_id, id, strlen(id), i, NULL);
    }
    const ds_wf_template *entry = template_named(e, wf->entrypoint);
    if (entry == NULL) {
        char q[DS_QUOTE_BUF];
        return ds_err_set(e->err, "spec.entrypoint: unknown template %s",
                          wf->entrypoint == NULL ? "(none)"
                                                 : ds_quote(wf->entrypoint, 100, q, sizeof q));
    }
    ilist none = {0}, exits = {0};
    if (expand_call(e, entry, wf->name, &none, DS_WF_NODE_NONE, &exits) != 0)
        return -1;
    if (e->j->n_tasks == 0)
        return ds_err_set(e->err, "the workflow has no task");
    return map_nodes(e);
}

int ds_wf_expand(const ds_wf_obs *wf, ds_wf_job *out, ds_err *err)
{
    if (out == NULL)
        return ds_err_set(err, "ds_wf_expand: no output");
    memset(out, 0, sizeof *out);
    if (wf == NULL || (wf->templates == NULL && wf->n_templates > 0) ||
        (wf->nodes == NULL && wf->n_nodes > 0))
        return ds_err_set(err, "ds_wf_expand: missing input");
    expander e = {.wf = wf, .j = out, .err = err};
    int rc = expand(&e);
    ds_strmap_free(&e.tmpl_index);
    ds_strmap_free(&e.node_by_name);
    ds_strmap_free(&e.node_by_id);
    free(e.task_node);
    return rc;
}

void ds_wf_job_free(ds_wf_job *j)
{
    if (j == NULL)
        return;
    free(j->tasks);
    ds_strmap_free(&j->node_task);
    ds_arena_free(&j->arena);
    memset(j, 0, sizeof *j);
}

size_t ds_wf_job_task_of(const ds_wf_job *j, const char *node_id, const char *node_name)
{
    size_t t;
    if (j == NULL || j->node_task.slots == NULL)
        return (size_t)-1;
    if (node_id != NULL && ds_strmap_get(&j->node_task, node_id, strlen(node_id), &t) == 0)
        return t;
    if (node_name != NULL && ds_strmap_get(&j->node_task, node_name, strlen(node_name), &t) == 0)
        return t;
    return (size_t)-1;
}

int ds_wf_retries_left(const ds_wf_obs *wf, const char *node_id)
{
    if (wf == NULL || node_id == NULL)
        return 0;
    const ds_wf_node *node = NULL;
    for (size_t i = 0; i < wf->n_nodes && node == NULL; i++)
        if (wf->nodes[i].id != NULL && strcmp(wf->nodes[i].id, node_id) == 0)
            node = &wf->nodes[i];
    if (node == NULL || node->template_name == NULL)
        return 0;
    const ds_wf_template *t = NULL;
    for (size_t i = 0; i < wf->n_templates && t == NULL; i++)
        if (wf->templates[i].name != NULL &&
            strcmp(wf->templates[i].name, node->template_name) == 0)
            t = &wf->templates[i];
    if (t == NULL || t->retry_limit == DS_WF_NO_RETRY || !t->retries_errors)
        return 0;
    if (t->retry_limit == DS_WF_RETRY_UNLIMITED)
        return DS_WF_RETRY_UNLIMITED;
    /* The attempts so far: the children of the Retry node that holds this one (one without). */
    size_t attempts = 1;
    for (size_t i = 0; i < wf->n_nodes; i++) {
        const ds_wf_node *r = &wf->nodes[i];
        if (r->type == NULL || strcmp(r->type, "Retry") != 0)
            continue;
        for (size_t k = 0; k < r->n_children; k++)
            if (r->children[k] != NULL && strcmp(r->children[k], node_id) == 0)
                attempts = r->n_children;
    }
    long left = (long)t->retry_limit + 1 - (long)attempts;
    return left > 0 ? (int)left : 0;
}
