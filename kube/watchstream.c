/* watchstream.c: incremental splitting and parsing of watch event streams (see watchstream.h). */
#include "watchstream.h"

#include <string.h>

void kube_splitter_init(kube_json_splitter *s, size_t max_object)
{
    memset(s, 0, sizeof *s);
    s->max_object = max_object > 0 ? max_object : KUBE_WATCH_MAX_EVENT;
    ds_bytebuf_init(&s->buf, s->max_object);
}

void kube_splitter_reset(kube_json_splitter *s)
{
    ds_bytebuf_reset(&s->buf);
    s->depth = 0;
    s->in_string = false;
    s->escape = false;
    s->failed = false;
    s->total = 0;
}

void kube_splitter_free(kube_json_splitter *s)
{
    ds_bytebuf_free(&s->buf);
}

bool kube_splitter_pending(const kube_json_splitter *s)
{
    return s->depth > 0;
}

static int fail(kube_json_splitter *s, ds_err *err, const char *what, size_t at)
{
    s->failed = true;
    return ds_err_set(err, "watch stream: %s at byte %zu", what, at);
}

int kube_splitter_feed(kube_json_splitter *s, const char *data, size_t len, kube_split_emit emit,
                       void *user, ds_err *err)
{
    if (s->failed)
        return ds_err_set(err, "watch stream: parser already failed");
    size_t start = 0; /* start in data of the current object's bytes not yet buffered */
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)data[i];
        if (s->depth == 0) {
            if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') {
                start = i + 1;
                continue;
            }
            if (ch != '{')
                return fail(s, err, "expected '{' between events", s->total + i);
            s->depth = 1;
            start = i;
            continue;
        }
        if (s->in_string) {
            if (s->escape)
                s->escape = false;
            else if (ch == '\\')
                s->escape = true;
            else if (ch == '"')
                s->in_string = false;
            else if (ch < 0x20)
                return fail(s, err, "control character inside a string", s->total + i);
        } else if (ch == '"') {
            s->in_string = true;
        } else if (ch == '{' || ch == '[') {
            if (++s->depth > KUBE_WATCH_MAX_DEPTH)
                return fail(s, err, "event nested too deeply", s->total + i);
        } else if (ch == '}' || ch == ']') {
            if (--s->depth == 0) {
                size_t n = i + 1 - start;
                int rc;
                if (s->buf.len == 0) {
                    if (n > s->max_object)
                        return fail(s, err, "event larger than the limit", s->total + i);
                    rc = emit(user, data + start, n);
                } else {
                    if (ds_bytebuf_append(&s->buf, data + start, n) != 0)
                        return fail(s, err, "event larger than the limit", s->total + i);
                    rc = emit(user, s->buf.data, s->buf.len);
                    ds_bytebuf_reset(&s->buf);
                }
                start = i + 1;
                if (rc != 0) {
                    s->total += i + 1;
                    return rc;
                }
            }
        }
    }
    if (s->depth > 0 && start < len) {
        if (ds_bytebuf_append(&s->buf, data + start, len - start) != 0)
            return fail(s, err, "event larger than the limit", s->total + len);
    }
    s->total += len;
    return 0;
}

static const char *const type_names[] = {"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"};

const char *kube_watch_type_name(kube_watch_type t)
{
    return (unsigned)t < sizeof type_names / sizeof type_names[0] ? type_names[t] : "?";
}

void kube_watch_event_clear(kube_watch_event *ev)
{
    if (ev->object != NULL)
        json_decref(ev->object);
    ev->object = NULL;
    ev->resource_version = NULL;
}

int kube_watch_event_parse(const char *text, size_t len, kube_watch_event *ev, ds_err *err)
{
    memset(ev, 0, sizeof *ev);
    json_error_t jerr;
    /* JSON_ALLOW_NUL: the API server accepts "\u0000" in annotation values; one such pod must
     * not make the event unreadable (the object decoder checks the strings it keeps). */
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
    if (root == NULL)
        return ds_err_set(err, "watch event: invalid JSON at column %d: %s", jerr.column,
                          jerr.text);
    int rc = -1;
    const char *type = json_string_value(json_object_get(root, "type"));
    json_t *obj = json_object_get(root, "object");
    int t = -1;
    for (int i = 0; type != NULL && i < (int)(sizeof type_names / sizeof type_names[0]); i++)
        if (strcmp(type, type_names[i]) == 0)
            t = i;
    if (type == NULL) {
        ds_err_set(err, "watch event: missing \"type\"");
    } else if (t < 0) {
        ds_err_set(err, "watch event: unknown type (got \"%.32s\")", type);
    } else if (!json_is_object(obj)) {
        ds_err_set(err, "watch event %s: \"object\" missing or not an object", type);
    } else {
        const char *rv =
            json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
        if (t != KUBE_WATCH_ERROR && (rv == NULL || rv[0] == '\0')) {
            ds_err_set(err, "watch event %s: object has no metadata.resourceVersion", type);
        } else {
            ev->type = (kube_watch_type)t;
            ev->object = json_incref(obj);
            ev->resource_version = rv;
            rc = 0;
        }
    }
    json_decref(root);
    return rc;
}
