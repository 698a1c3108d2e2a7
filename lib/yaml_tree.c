/* yaml_tree.c: loads one YAML document into a bounded ds_yaml_node tree with libyaml's event
 * parser (see yaml_tree.h for the limits and what is refused). */
#include "yaml_tree.h"
#include "grow.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

typedef struct loader {
    yaml_parser_t parser;
    const char *buf;
    size_t len;
    const ds_yaml_limits *lim;
    size_t nodes;
    ds_err *err;
} loader;

/* "line L, column C: <message>" at a libyaml mark (0-based). */
static int fail_at(loader *l, const yaml_mark_t *m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(loader *l, const yaml_mark_t *m, const char *fmt, ...)
{
    if (l->err == NULL)
        return -1;
    char msg[DS_ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ds_err_set(l->err, "line %zu, column %zu: %s", (size_t)m->line + 1,
                      (size_t)m->column + 1, msg);
}

/* libyaml's reader errors carry a byte offset only: turn it into a line and a (byte) column. */
static void offset_position(const char *buf, size_t len, size_t offset, size_t *line, size_t *col)
{
    size_t ln = 1, c = 1;
    for (size_t i = 0; i < offset && i < len; i++) {
        if (buf[i] == '\n') {
            ln++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = ln;
    *col = c;
}

static int parser_error(loader *l)
{
    const yaml_parser_t *p = &l->parser;
    if (p->error == YAML_MEMORY_ERROR)
        return ds_err_set(l->err, "YAML: out of memory");
    const char *problem = p->problem != NULL ? p->problem : "unknown error";
    if (p->error == YAML_READER_ERROR) {
        size_t line, col;
        offset_position(l->buf, l->len, p->problem_offset, &line, &col);
        if (p->problem_value != -1)
            return ds_err_set(l->err, "line %zu, column %zu: invalid YAML: %s (value 0x%X)", line,
                              col, problem, (unsigned)p->problem_value);
        return ds_err_set(l->err, "line %zu, column %zu: invalid YAML: %s", line, col, problem);
    }
    if (p->context != NULL)
        return fail_at(l, &p->problem_mark, "invalid YAML: %s (%s at line %zu, column %zu)",
                       problem, p->context, (size_t)p->context_mark.line + 1,
                       (size_t)p->context_mark.column + 1);
    return fail_at(l, &p->problem_mark, "invalid YAML: %s", problem);
}

static int next_event(loader *l, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&l->parser, ev))
        return parser_error(l);
    return 0;
}

static int check_properties(loader *l, const yaml_event_t *ev, const yaml_char_t *anchor,
                            const yaml_char_t *tag)
{
    if (anchor != NULL)
        return fail_at(l, &ev->start_mark, "YAML anchors are not supported (got &%.64s)",
                       (const char *)anchor);
    if (tag != NULL)
        return fail_at(l, &ev->start_mark, "YAML tags are not supported (got %.64s)",
                       (const char *)tag);
    return 0;
}

static ds_yaml_node *new_node(loader *l, ds_yaml_kind kind, const yaml_mark_t *m)
{
    if (l->nodes >= l->lim->max_nodes) {
        fail_at(l, m, "more than %zu YAML nodes", l->lim->max_nodes);
        return NULL;
    }
    ds_yaml_node *n = calloc(1, sizeof *n);
    if (n == NULL) {
        ds_err_set(l->err, "YAML: out of memory");
        return NULL;
    }
    l->nodes++;
    n->kind = kind;
    n->line = (size_t)m->line + 1;
    n->column = (size_t)m->column + 1;
    return n;
}

static int build_scalar(loader *l, const yaml_event_t *ev, ds_yaml_node **out)
{
    if (check_properties(l, ev, ev->data.scalar.anchor, ev->data.scalar.tag) != 0)
        return -1;
    size_t len = ev->data.scalar.length;
    if (len > l->lim->max_scalar)
        return fail_at(l, &ev->start_mark, "scalar longer than %zu bytes (got %zu)",
                       l->lim->max_scalar, len);
    if (len > 0 && memchr(ev->data.scalar.value, '\0', len) != NULL)
        return fail_at(l, &ev->start_mark, "NUL characters are not allowed in scalars");
    ds_yaml_node *n = new_node(l, DS_YAML_SCALAR, &ev->start_mark);
    if (n == NULL)
        return -1;
    n->text = malloc(len + 1);
    if (n->text == NULL) {
        free(n);
        return ds_err_set(l->err, "YAML: out of memory");
    }
    if (len > 0)
        memcpy(n->text, ev->data.scalar.value, len);
    n->text[len] = '\0';
    n->len = len;
    n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    *out = n;
    return 0;
}

static int build(loader *l, const yaml_event_t *ev, size_t depth, ds_yaml_node **out);

static int append_child(loader *l, ds_yaml_node *parent, size_t *count, size_t *cap,
                        ds_yaml_node *child)
{
    if (*count == *cap) {
        ds_yaml_node **grown = ds_grow(parent->child, cap, sizeof *grown, 8);
        if (grown == NULL)
            return ds_err_set(l->err, "YAML: out of memory");
        parent->child = grown;
    }
    parent->child[(*count)++] = child;
    return 0;
}

static int build_collection(loader *l, const yaml_event_t *ev, size_t depth, ds_yaml_node **out)
{
    bool mapping = ev->type == YAML_MAPPING_START_EVENT;
    const yaml_char_t *anchor =
        mapping ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
    const yaml_char_t *tag = mapping ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
    if (check_properties(l, ev, anchor, tag) != 0)
        return -1;
    if (depth > l->lim->max_depth)
        return fail_at(l, &ev->start_mark, "nesting deeper than %zu levels", l->lim->max_depth);
    ds_yaml_node *n = new_node(l, mapping ? DS_YAML_MAPPING : DS_YAML_SEQUENCE, &ev->start_mark);
    if (n == NULL)
        return -1;
    yaml_event_type_t end = mapping ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
    size_t count = 0, cap = 0;
    for (;;) {
        yaml_event_t cev;
        if (next_event(l, &cev) != 0)
            goto fail;
        if (cev.type == end) {
            yaml_event_delete(&cev);
            break;
        }
        if (mapping && count % 2 == 0 && cev.type != YAML_SCALAR_EVENT &&
            cev.type != YAML_ALIAS_EVENT) {
            fail_at(l, &cev.start_mark, "mapping keys must be scalars");
            yaml_event_delete(&cev);
            goto fail;
        }
        ds_yaml_node *c = NULL;
        int rc = build(l, &cev, depth + 1, &c);
        yaml_event_delete(&cev);
        if (rc != 0)
            goto fail;
        if (append_child(l, n, &count, &cap, c) != 0) {
            ds_yaml_free(c);
            goto fail;
        }
    }
    n->n = mapping ? count / 2 : count;
    *out = n;
    return 0;
fail:
    if (mapping && count % 2 == 1) {
        /* A key without its value: free it here, ds_yaml_free walks whole pairs only. */
        ds_yaml_free(n->child[--count]);
    }
    n->n = mapping ? count / 2 : count;
    ds_yaml_free(n);
    return -1;
}

static int build(loader *l, const yaml_event_t *ev, size_t depth, ds_yaml_node **out)
{
    switch (ev->type) {
    case YAML_ALIAS_EVENT:
        return fail_at(l, &ev->start_mark, "YAML aliases are not supported (got *%.64s)",
                       (const char *)ev->data.alias.anchor);
    case YAML_SCALAR_EVENT:
        return build_scalar(l, ev, out);
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT:
        return build_collection(l, ev, depth, out);
    default:
        return fail_at(l, &ev->start_mark, "invalid YAML: unexpected event");
    }
}

/* Read the next event and require it to be of `type`. */
static int expect_event(loader *l, yaml_event_type_t type)
{
    yaml_event_t ev;
    if (next_event(l, &ev) != 0)
        return -1;
    int rc = 0;
    if (ev.type != type)
        rc = fail_at(l, &ev.start_mark, "invalid YAML: unexpected event");
    yaml_event_delete(&ev);
    return rc;
}

static int load_document(loader *l, ds_yaml_node **root)
{
    if (expect_event(l, YAML_STREAM_START_EVENT) != 0)
        return -1;
    yaml_event_t ev;
    if (next_event(l, &ev) != 0)
        return -1;
    if (ev.type == YAML_STREAM_END_EVENT) {
        yaml_event_delete(&ev);
        return ds_err_set(l->err, "YAML document: empty");
    }
    bool started = ev.type == YAML_DOCUMENT_START_EVENT;
    yaml_mark_t mark = ev.start_mark;
    yaml_event_delete(&ev);
    if (!started)
        return fail_at(l, &mark, "invalid YAML: unexpected event");

    if (next_event(l, &ev) != 0)
        return -1;
    ds_yaml_node *n = NULL;
    int rc = build(l, &ev, 1, &n);
    yaml_event_delete(&ev);
    if (rc != 0)
        return -1;
    if (expect_event(l, YAML_DOCUMENT_END_EVENT) != 0)
        goto fail;
    if (next_event(l, &ev) != 0)
        goto fail;
    yaml_event_type_t t = ev.type;
    mark = ev.start_mark;
    yaml_event_delete(&ev);
    if (t == YAML_DOCUMENT_START_EVENT) {
        fail_at(l, &mark, "only one YAML document is allowed");
        goto fail;
    }
    if (t != YAML_STREAM_END_EVENT) {
        fail_at(l, &mark, "invalid YAML: unexpected event");
        goto fail;
    }
    *root = n;
    return 0;
fail:
    ds_yaml_free(n);
    return -1;
}

int ds_yaml_load(const char *buf, size_t len, const ds_yaml_limits *lim, ds_yaml_node **root,
                 ds_err *err)
{
    if (lim == NULL || root == NULL || (buf == NULL && len > 0))
        return ds_err_set(err, "YAML: invalid arguments");
    if (len > lim->max_bytes)
        return ds_err_set(err, "YAML document: must be at most %zu bytes (got %zu)", lim->max_bytes,
                          len);
    loader l;
    memset(&l, 0, sizeof l);
    l.buf = buf != NULL ? buf : "";
    l.len = len;
    l.lim = lim;
    l.err = err;
    if (!yaml_parser_initialize(&l.parser))
        return ds_err_set(err, "YAML: out of memory");
    yaml_parser_set_input_string(&l.parser, (const unsigned char *)l.buf, len);
    int rc = load_document(&l, root);
    yaml_parser_delete(&l.parser);
    return rc;
}

void ds_yaml_free(ds_yaml_node *node)
{
    if (node == NULL)
        return;
    size_t count = node->kind == DS_YAML_MAPPING ? node->n * 2 : node->n;
    if (node->child != NULL)
        for (size_t i = 0; i < count; i++)
            ds_yaml_free(node->child[i]);
    free(node->child);
    free(node->text);
    free(node);
}

bool ds_yaml_is_null(const ds_yaml_node *node)
{
    if (node == NULL || node->kind != DS_YAML_SCALAR || !node->plain)
        return false;
    const char *t = node->text;
    return t[0] == '\0' || strcmp(t, "~") == 0 || strcmp(t, "null") == 0 ||
           strcmp(t, "Null") == 0 || strcmp(t, "NULL") == 0;
}

const ds_yaml_node *ds_yaml_get(const ds_yaml_node *mapping, const char *key)
{
    if (mapping == NULL || mapping->kind != DS_YAML_MAPPING || key == NULL)
        return NULL;
    for (size_t i = 0; i < mapping->n; i++) {
        const ds_yaml_node *k = mapping->child[2 * i];
        if (k->kind == DS_YAML_SCALAR && strcmp(k->text, key) == 0)
            return mapping->child[2 * i + 1];
    }
    return NULL;
}
