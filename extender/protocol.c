/* protocol.c: parsing and writing the kube-scheduler extender wire format (see protocol.h). */
#include "protocol.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ext_limits_default(ext_limits *l)
{
    l->max_body = 64u << 20;
    l->max_nodes = 20000;
    l->max_victims = 100000;
}

static const char *type_name(uint8_t t)
{
    static const char *const names[] = {"object", "array", "string", "number",
                                        "true",   "false", "null"};
    return t < sizeof names / sizeof names[0] ? names[t] : "?";
}

static int set_err(char err[EXT_ERR_MAX], const char *fmt, const char *field, const char *got)
{
    snprintf(err, EXT_ERR_MAX, fmt, field, got);
    return -1;
}

static int tokenize(js_doc *d, const char *body, size_t len, const ext_limits *lim,
                    char err[EXT_ERR_MAX])
{
    if (len == 0) {
        snprintf(err, EXT_ERR_MAX, "request body is empty");
        return -1;
    }
    js_limits jl = {.max_depth = EXT_MAX_DEPTH,
                    .max_tokens = len / 2 + 16, /* every value or key takes >= 2 bytes */
                    .max_len = lim->max_body};
    char jerr[JS_ERR_MAX];
    if (js_parse(d, body, len, &jl, jerr) != 0) {
        snprintf(err, EXT_ERR_MAX, "%s", jerr);
        return -1;
    }
    if (d->t[0].type != JS_OBJECT) {
        snprintf(err, EXT_ERR_MAX, "request: expected a JSON object (got %s)",
                 type_name(d->t[0].type));
        return -1;
    }
    return 0;
}

/* Bytes allowed in node names: letters, digits, '-', '.', '_'. */
static const unsigned char name_chars[256] = {
    ['-'] = 1, ['.'] = 1, ['_'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1,
    ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1,
    ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1,
    ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1,
    ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['A'] = 1,
    ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1,
    ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1,
    ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1,
    ['Z'] = 1,
};

/* Node names are DNS subdomains; anything else cannot be a node kube-scheduler knows. */
static bool valid_node_name(const char *s, size_t n)
{
    if (n == 0 || n > EXT_NAME_MAX)
        return false;
    unsigned ok = 1;
    for (size_t i = 0; i < n; i++)
        ok &= name_chars[(unsigned char)s[i]];
    return ok != 0;
}

/* Decode the string at tok into the arena (which has room for every string of the body). */
static const char *arena_str(const js_doc *d, size_t tok, char *arena, size_t *used, size_t cap,
                             size_t *len_out)
{
    size_t room = cap - *used;
    long n = js_str_decode(d, tok, arena + *used, room);
    if (n < 0)
        return NULL;
    const char *s = arena + *used;
    *used += (size_t)n + 1;
    if (len_out != NULL)
        *len_out = (size_t)n;
    return s;
}

static int get_pod(const js_doc *d, long *pod, char err[EXT_ERR_MAX])
{
    long p = js_obj_get(d, 0, "Pod");
    if (p < 0 || d->t[p].type == JS_NULL)
        return set_err(err, "%s: missing%s", "Pod", "");
    if (d->t[p].type != JS_OBJECT)
        return set_err(err, "%s: expected an object (got %s)", "Pod", type_name(d->t[p].type));
    *pod = p;
    return 0;
}

/* Both request kinds: a JSON object with a Pod. */
static int parse_request(js_doc *d, long *pod, const char *body, size_t len, const ext_limits *lim,
                         char err[EXT_ERR_MAX])
{
    *pod = -1;
    if (tokenize(d, body, len, lim, err))
        return -1;
    return get_pod(d, pod, err);
}

/* The node name at tok. Hot path (thousands per request): the field name for the error message
 * is formatted only on error. */
static int node_name_at(const js_doc *d, size_t tok, char *arena, size_t *used, size_t cap,
                        const char **out, uint32_t *len, const char *field, size_t idx,
                        char err[EXT_ERR_MAX])
{
    char f[64];
    if (d->t[tok].type != JS_STRING) {
        snprintf(f, sizeof f, "%s[%zu]", field, idx);
        return set_err(err, "%s: expected a string (got %s)", f, type_name(d->t[tok].type));
    }
    size_t n;
    const char *s = arena_str(d, tok, arena, used, cap, &n);
    if (s == NULL || !valid_node_name(s, n)) {
        snprintf(f, sizeof f, "%s[%zu]", field, idx);
        return set_err(err, "%s: not a valid node name%s", f, "");
    }
    *out = s;
    *len = (uint32_t)n;
    return 0;
}

static int parse_names(ext_args *a, long tok, const ext_limits *lim, size_t cap,
                       char err[EXT_ERR_MAX])
{
    const js_doc *d = &a->doc;
    size_t n = d->t[tok].n;
    if (n > lim->max_nodes) {
        snprintf(err, EXT_ERR_MAX, "NodeNames: at most %zu nodes (got %zu)", lim->max_nodes, n);
        return -1;
    }
    a->names = calloc(n ? n : 1, sizeof *a->names);
    a->name_lens = calloc(n ? n : 1, sizeof *a->name_lens);
    if (a->names == NULL || a->name_lens == NULL) {
        snprintf(err, EXT_ERR_MAX, "out of memory (%zu node names)", n);
        return -1;
    }
    size_t used = 0, i = (size_t)tok + 1;
    for (size_t k = 0; k < n; k++) {
        if (node_name_at(d, i, a->arena, &used, cap, &a->names[k], &a->name_lens[k], "NodeNames", k,
                         err))
            return -1;
        i = d->t[i].next;
    }
    a->n_nodes = n;
    a->kind = EXT_NODES_NAMES;
    return 0;
}

static int parse_node_list(ext_args *a, long tok, const ext_limits *lim, size_t cap,
                           char err[EXT_ERR_MAX])
{
    const js_doc *d = &a->doc;
    if (d->t[tok].type != JS_OBJECT)
        return set_err(err, "%s: expected a NodeList object (got %s)", "Nodes",
                       type_name(d->t[tok].type));
    long items = js_obj_get(d, (size_t)tok, "items");
    size_t n = 0;
    if (items >= 0 && d->t[items].type != JS_NULL) {
        if (d->t[items].type != JS_ARRAY)
            return set_err(err, "%s: expected an array (got %s)", "Nodes.items",
                           type_name(d->t[items].type));
        n = d->t[items].n;
    }
    if (n > lim->max_nodes) {
        snprintf(err, EXT_ERR_MAX, "Nodes.items: at most %zu nodes (got %zu)", lim->max_nodes, n);
        return -1;
    }
    a->names = calloc(n ? n : 1, sizeof *a->names);
    a->name_lens = calloc(n ? n : 1, sizeof *a->name_lens);
    a->items = calloc(n ? n : 1, sizeof *a->items);
    if (a->names == NULL || a->name_lens == NULL || a->items == NULL) {
        snprintf(err, EXT_ERR_MAX, "out of memory (%zu nodes)", n);
        return -1;
    }
    size_t used = 0, i = (size_t)items + 1;
    for (size_t k = 0; k < n; k++) {
        char f[64];
        snprintf(f, sizeof f, "Nodes.items[%zu]", k);
        if (d->t[i].type != JS_OBJECT)
            return set_err(err, "%s: expected a Node object (got %s)", f, type_name(d->t[i].type));
        long meta = js_obj_get(d, i, "metadata");
        long name = meta >= 0 ? js_obj_get(d, (size_t)meta, "name") : -1;
        if (name < 0)
            return set_err(err, "%s.metadata.name: missing%s", f, "");
        if (node_name_at(d, (size_t)name, a->arena, &used, cap, &a->names[k], &a->name_lens[k],
                         "Nodes.items", k, err))
            return -1;
        a->items[k] = (uint32_t)i;
        i = d->t[i].next;
    }
    a->n_nodes = n;
    a->kind = EXT_NODES_LIST;
    return 0;
}

int ext_parse_args(const char *body, size_t len, const ext_limits *lim, ext_args *out,
                   char err[EXT_ERR_MAX])
{
    memset(out, 0, sizeof *out);
    if (parse_request(&out->doc, &out->pod, body, len, lim, err))
        return -1;
    out->arena = malloc(len + 1);
    if (out->arena == NULL) {
        snprintf(err, EXT_ERR_MAX, "out of memory (%zu bytes)", len);
        return -1;
    }
    const js_doc *d = &out->doc;
    long names = js_obj_get(d, 0, "NodeNames");
    long nodes = js_obj_get(d, 0, "Nodes");
    if (names >= 0 && d->t[names].type != JS_NULL) {
        if (d->t[names].type != JS_ARRAY)
            return set_err(err, "%s: expected an array of node names (got %s)", "NodeNames",
                           type_name(d->t[names].type));
        return parse_names(out, names, lim, len + 1, err);
    }
    if (nodes >= 0 && d->t[nodes].type != JS_NULL)
        return parse_node_list(out, nodes, lim, len + 1, err);
    out->kind = EXT_NODES_ABSENT;
    return 0;
}

/* Frees what both request types hold: the token document and the arena of decoded strings. */
static void request_free(js_doc *doc, char *arena)
{
    js_free(doc);
    free(arena);
}

void ext_args_free(ext_args *a)
{
    request_free(&a->doc, a->arena);
    free(a->names);
    free(a->name_lens);
    free(a->items);
    *a = (ext_args){.pod = -1};
}

const char *ext_pod_json(const js_doc *d, long pod, size_t *len)
{
    *len = d->t[pod].end - d->t[pod].start;
    return d->buf + d->t[pod].start;
}

/* One entry of NodeNameToVictims / NodeNameToMetaVictims: {"Pods": [...], "NumPDBViolations":n}.
 */
static int parse_victims(ext_preempt_args *a, size_t val, ext_victim_node *vn, size_t *uid_at,
                         size_t max_uids, size_t *used, size_t cap, char err[EXT_ERR_MAX])
{
    const js_doc *d = &a->doc;
    char f[EXT_NAME_MAX + 64];
    snprintf(f, sizeof f, "%s[%s]", a->meta ? "NodeNameToMetaVictims" : "NodeNameToVictims",
             vn->node);
    if (d->t[val].type == JS_NULL)
        return 0;
    if (d->t[val].type != JS_OBJECT)
        return set_err(err, "%s: expected an object (got %s)", f, type_name(d->t[val].type));
    long pdb = js_obj_get(d, val, "NumPDBViolations");
    if (pdb >= 0 && d->t[pdb].type != JS_NULL &&
        (js_int64(d, (size_t)pdb, &vn->pdb_violations) != 0 || vn->pdb_violations < 0))
        return set_err(err, "%s.NumPDBViolations: expected an integer >= 0%s", f, "");
    long pods = js_obj_get(d, val, "Pods");
    if (pods < 0 || d->t[pods].type == JS_NULL)
        return 0;
    if (d->t[pods].type != JS_ARRAY)
        return set_err(err, "%s.Pods: expected an array (got %s)", f, type_name(d->t[pods].type));
    size_t n = d->t[pods].n;
    if (n > max_uids - *uid_at) {
        snprintf(err, EXT_ERR_MAX, "victims: at most %zu in total", max_uids);
        return -1;
    }
    vn->uids = &a->uid_store[*uid_at];
    size_t i = (size_t)pods + 1;
    for (size_t k = 0; k < n; k++) {
        if (d->t[i].type != JS_OBJECT)
            return set_err(err, "%s.Pods: expected objects (got %s)", f, type_name(d->t[i].type));
        long uid;
        if (a->meta) {
            uid = js_obj_get(d, i, "UID");
        } else {
            long meta = js_obj_get(d, i, "metadata");
            uid =
                meta >= 0 && d->t[meta].type == JS_OBJECT ? js_obj_get(d, (size_t)meta, "uid") : -1;
        }
        const char *s = "";
        if (uid >= 0 && d->t[uid].type == JS_STRING) {
            size_t ul;
            s = arena_str(d, (size_t)uid, a->arena, used, cap, &ul);
            if (s == NULL || ul > EXT_UID_MAX)
                return set_err(err, "%s.Pods: a UID is longer than 128 bytes%s", f, "");
        } else if (uid >= 0 && d->t[uid].type != JS_NULL) {
            return set_err(err, "%s.Pods: UID: expected a string (got %s)", f,
                           type_name(d->t[uid].type));
        }
        a->uid_store[(*uid_at)++] = s;
        vn->n_pods++;
        i = d->t[i].next;
    }
    return 0;
}

int ext_parse_preempt_args(const char *body, size_t len, const ext_limits *lim,
                           ext_preempt_args *out, char err[EXT_ERR_MAX])
{
    memset(out, 0, sizeof *out);
    if (parse_request(&out->doc, &out->pod, body, len, lim, err))
        return -1;
    const js_doc *d = &out->doc;
    long map = js_obj_get(d, 0, "NodeNameToMetaVictims");
    out->meta = true;
    if (map < 0 || d->t[map].type == JS_NULL) {
        map = js_obj_get(d, 0, "NodeNameToVictims");
        out->meta = false;
    }
    if (map < 0 || d->t[map].type == JS_NULL)
        return 0; /* nothing proposed */
    const char *field = out->meta ? "NodeNameToMetaVictims" : "NodeNameToVictims";
    if (d->t[map].type != JS_OBJECT)
        return set_err(err, "%s: expected an object (got %s)", field, type_name(d->t[map].type));
    size_t n = d->t[map].n;
    if (n > lim->max_nodes) {
        snprintf(err, EXT_ERR_MAX, "%s: at most %zu nodes (got %zu)", field, lim->max_nodes, n);
        return -1;
    }
    /* Victims in total are bounded by the body: each takes at least 2 bytes ("{}"). */
    size_t max_uids = lim->max_victims < len / 2 + 1 ? lim->max_victims : len / 2 + 1;
    out->arena = malloc(len + 1);
    out->nodes = calloc(n ? n : 1, sizeof *out->nodes);
    out->uid_store = calloc(max_uids, sizeof *out->uid_store);
    if (out->arena == NULL || out->nodes == NULL || out->uid_store == NULL) {
        snprintf(err, EXT_ERR_MAX, "out of memory (%zu bytes)", len);
        return -1;
    }
    size_t used = 0, uid_at = 0, i = (size_t)map + 1;
    for (size_t k = 0; k < n; k++) {
        ext_victim_node *vn = &out->nodes[k];
        size_t nl;
        vn->node = arena_str(d, i, out->arena, &used, len + 1, &nl);
        if (vn->node == NULL || !valid_node_name(vn->node, nl)) {
            snprintf(err, EXT_ERR_MAX, "%s: key %zu is not a valid node name", field, k);
            return -1;
        }
        out->n_nodes = k + 1;
        if (parse_victims(out, i + 1, vn, &uid_at, max_uids, &used, len + 1, err))
            return -1;
        i = d->t[i + 1].next;
    }
    return 0;
}

void ext_preempt_args_free(ext_preempt_args *a)
{
    request_free(&a->doc, a->arena);
    free(a->nodes);
    free(a->uid_store);
    *a = (ext_preempt_args){.pod = -1};
}

/* ---- output ---- */

void ext_out_init(ds_bytebuf *b, size_t hint)
{
    ds_bytebuf_init(b, DS_BYTEBUF_UNLIMITED);
    /* A refusal fails the buffer: ds_bytebuf_take then says so. */
    (void)ds_bytebuf_room(b, hint < 256 ? 256 : hint);
}

/* Escapes quotes, backslashes and control characters; invalid UTF-8 becomes U+FFFD, as Go's
 * encoder does, so the output is always valid JSON. */
void ext_put_json_string(ds_bytebuf *b, const char *s)
{
    ext_put_json_string_n(b, s, strlen(s));
}

void ext_put_json_string_n(ds_bytebuf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    /* Fast path (node names, UIDs): printable ASCII without quotes or backslashes. */
    size_t plain = 0;
    while (plain < n && u[plain] >= 0x20 && u[plain] < 0x80 && u[plain] != '"' && u[plain] != '\\')
        plain++;
    if (plain == n) {
        char *o = ds_bytebuf_room(b, n + 2);
        if (o == NULL)
            return;
        o[0] = '"';
        memcpy(o + 1, s, n);
        o[n + 1] = '"';
        ds_bytebuf_commit(b, n + 2);
        return;
    }
    char *start = ds_bytebuf_room(b, n * 6 + 2);
    if (start == NULL)
        return;
    char *o = start;
    *o++ = '"';
    for (size_t i = 0; i < n;) {
        unsigned char c = u[i];
        if (c == '"' || c == '\\') {
            *o++ = '\\';
            *o++ = (char)c;
            i++;
        } else if (c < 0x20) {
            static const char hex[] = "0123456789abcdef";
            *o++ = '\\';
            *o++ = 'u';
            *o++ = '0';
            *o++ = '0';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
            i++;
        } else if (c < 0x80) {
            *o++ = (char)c;
            i++;
        } else {
            size_t l = js_utf8_seq(u + i, n - i);
            if (l == 0) {
                memcpy(o, "\xef\xbf\xbd", 3);
                o += 3;
                i++;
            } else {
                memcpy(o, u + i, l);
                o += l;
                i += l;
            }
        }
    }
    *o++ = '"';
    ds_bytebuf_commit(b, (size_t)(o - start));
}

#define INT_DIGITS_MAX 24

/* v in decimal at the end of tmp; returns where it starts. */
static size_t format_int(long long v, char tmp[INT_DIGITS_MAX])
{
    size_t i = INT_DIGITS_MAX;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        tmp[--i] = '-';
    return i;
}

void ext_put_int(ds_bytebuf *b, long long v)
{
    char tmp[INT_DIGITS_MAX];
    size_t i = format_int(v, tmp);
    ds_bytebuf_append(b, tmp + i, INT_DIGITS_MAX - i);
}

static void emit_failed(ds_bytebuf *b, const ext_args *a, const ext_node_result *r, bool unres)
{
    DS_BYTEBUF_LIT(b, "{");
    bool first = true;
    for (size_t i = 0; i < a->n_nodes; i++) {
        if (r[i].pass || r[i].unresolvable != unres)
            continue;
        if (!first)
            DS_BYTEBUF_LIT(b, ",");
        first = false;
        ext_put_json_string_n(b, a->names[i], a->name_lens[i]);
        DS_BYTEBUF_LIT(b, ":");
        ext_put_json_string(b, r[i].message != NULL ? r[i].message : "dagsched: rejected");
    }
    DS_BYTEBUF_LIT(b, "}");
}

void ext_emit_filter(ds_bytebuf *b, const ext_args *a, const ext_node_result *r, const char *error)
{
    /* The nodes that pass, in the form the request used: whole Node objects or names. */
    bool list = a->kind == EXT_NODES_LIST;
    if (list)
        DS_BYTEBUF_LIT(b, "{\"Nodes\":{\"metadata\":{},\"items\":[");
    else
        DS_BYTEBUF_LIT(b, "{\"Nodes\":null,\"NodeNames\":[");
    size_t written = 0;
    for (size_t i = 0; i < a->n_nodes; i++) {
        if (!r[i].pass)
            continue;
        if (written++ > 0)
            DS_BYTEBUF_LIT(b, ",");
        if (list) {
            const js_tok *t = &a->doc.t[a->items[i]];
            ds_bytebuf_append(b, a->doc.buf + t->start, t->end - t->start);
        } else {
            ext_put_json_string_n(b, a->names[i], a->name_lens[i]);
        }
    }
    if (list)
        DS_BYTEBUF_LIT(b, "]},\"NodeNames\":null");
    else
        DS_BYTEBUF_LIT(b, "]");
    DS_BYTEBUF_LIT(b, ",\"FailedNodes\":");
    emit_failed(b, a, r, false);
    DS_BYTEBUF_LIT(b, ",\"FailedAndUnresolvableNodes\":");
    emit_failed(b, a, r, true);
    DS_BYTEBUF_LIT(b, ",\"Error\":");
    ext_put_json_string(b, error != NULL ? error : "");
    DS_BYTEBUF_LIT(b, "}");
}

/* Hot path (one entry per candidate node): node names need no escaping (checked when parsed),
 * so each entry is written with a few memcpy into space reserved once. */
void ext_emit_priorities(ds_bytebuf *b, const ext_args *a, const int *scores)
{
    static const char head[] = "{\"Host\":\"", mid[] = "\",\"Score\":";
    size_t need = 2;
    for (size_t i = 0; i < a->n_nodes; i++)
        need += sizeof head + sizeof mid + a->name_lens[i] + INT_DIGITS_MAX;
    char *start = ds_bytebuf_room(b, need);
    if (start == NULL)
        return;
    char *o = start;
    *o++ = '[';
    for (size_t i = 0; i < a->n_nodes; i++) {
        if (i > 0)
            *o++ = ',';
        memcpy(o, head, sizeof head - 1);
        o += sizeof head - 1;
        memcpy(o, a->names[i], a->name_lens[i]);
        o += a->name_lens[i];
        memcpy(o, mid, sizeof mid - 1);
        o += sizeof mid - 1;
        char tmp[INT_DIGITS_MAX];
        size_t k = format_int(scores[i], tmp);
        memcpy(o, tmp + k, INT_DIGITS_MAX - k);
        o += INT_DIGITS_MAX - k;
        *o++ = '}';
    }
    *o++ = ']';
    ds_bytebuf_commit(b, (size_t)(o - start));
}

void ext_emit_preemption(ds_bytebuf *b, const ext_preempt_args *a, const bool *keep,
                         const bool *const *kept)
{
    DS_BYTEBUF_LIT(b, "{\"NodeNameToMetaVictims\":{");
    bool first = true;
    for (size_t i = 0; i < a->n_nodes; i++) {
        if (!keep[i])
            continue;
        const ext_victim_node *vn = &a->nodes[i];
        if (!first)
            DS_BYTEBUF_LIT(b, ",");
        first = false;
        ext_put_json_string(b, vn->node);
        DS_BYTEBUF_LIT(b, ":{\"Pods\":[");
        size_t n_kept = 0;
        for (size_t j = 0; j < vn->n_pods; j++) {
            if (!kept[i][j])
                continue;
            if (n_kept++ > 0)
                DS_BYTEBUF_LIT(b, ",");
            DS_BYTEBUF_LIT(b, "{\"UID\":");
            ext_put_json_string(b, vn->uids[j]);
            DS_BYTEBUF_LIT(b, "}");
        }
        /* Victims only leave the list, so violations can only drop: at most one per victim. */
        int64_t pdb = vn->pdb_violations;
        if ((size_t)pdb > n_kept)
            pdb = (int64_t)n_kept;
        DS_BYTEBUF_LIT(b, "],\"NumPDBViolations\":");
        ext_put_int(b, (long long)pdb);
        DS_BYTEBUF_LIT(b, "}");
    }
    DS_BYTEBUF_LIT(b, "}}");
}

void ext_emit_error(ds_bytebuf *b, const char *message)
{
    DS_BYTEBUF_LIT(b, "{\"Error\":");
    ext_put_json_string(b, message);
    DS_BYTEBUF_LIT(b, "}");
}
