/* admission.c: the mutating admission webhook's decision and AdmissionReview v1 answer (see
 * admission.h). */
#include "admission.h"

#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jscan.h"

const char *ext_adm_result_name(ext_adm_result r)
{
    switch (r) {
    case EXT_ADM_GATED:
        return "gated";
    case EXT_ADM_IGNORED:
        return "ignored";
    case EXT_ADM_ERROR:
    case EXT_ADM_RESULTS:
        break;
    }
    return "error";
}

static bool empty(const char *s)
{
    return s == NULL || s[0] == '\0';
}

ext_adm_decision ext_adm_decide(const ext_adm_opts *o, const ext_adm_pod *p)
{
    ext_adm_decision d = {.result = EXT_ADM_IGNORED};
    if (!empty(p->ns) && strcmp(p->ns, "kube-system") == 0) {
        d.why = "namespace kube-system";
        return d;
    }
    if (!empty(p->ns) && !empty(o->install_namespace) && strcmp(p->ns, o->install_namespace) == 0) {
        d.why = "dagsched's own namespace";
        return d;
    }
    if (p->bound) {
        d.why = "spec.nodeName is set (a bound pod cannot carry a scheduling gate)";
        return d;
    }
    const char *sched = p->scheduler_name;
    if (o->set_scheduler_name && (empty(sched) || strcmp(sched, EXT_ADM_DEFAULT_SCHED) == 0)) {
        d.set_scheduler_name = true;
        sched = o->scheduler_name;
    }
    if (empty(sched) || strcmp(sched, o->scheduler_name) != 0) {
        d.why = "another scheduler";
        return d;
    }
    d.result = EXT_ADM_GATED;
    d.add_gate = !p->has_gate;
    d.why = d.add_gate ? "gate added" : "gate already present";
    return d;
}

static int put(char *out, size_t cap, size_t *used, const char *s)
{
    size_t n = strlen(s);
    if (*used + n + 1 > cap)
        return -1;
    memcpy(out + *used, s, n + 1);
    *used += n;
    return 0;
}

long ext_adm_patch(const ext_adm_opts *o, const ext_adm_pod *p, const ext_adm_decision *d,
                   char *out, size_t cap)
{
    size_t used = 0;
    int rc = put(out, cap, &used, "[");
    if (d->set_scheduler_name) {
        /* Scheduler names are DNS subdomains (validated at flag parsing): no JSON escaping. */
        rc |= put(out, cap, &used, "{\"op\":\"add\",\"path\":\"/spec/schedulerName\",\"value\":\"");
        rc |= put(out, cap, &used, o->scheduler_name);
        rc |= put(out, cap, &used, "\"}");
    }
    if (d->add_gate) {
        if (d->set_scheduler_name)
            rc |= put(out, cap, &used, ",");
        if (p->gates_array)
            rc |= put(out, cap, &used,
                      "{\"op\":\"add\",\"path\":\"/spec/schedulingGates/"
                      "-\",\"value\":{\"name\":\"" DS_GATE_DEPENDENCIES "\"}}");
        else
            rc |= put(out, cap, &used,
                      "{\"op\":\"add\",\"path\":\"/spec/"
                      "schedulingGates\",\"value\":[{\"name\":\"" DS_GATE_DEPENDENCIES "\"}]}");
    }
    rc |= put(out, cap, &used, "]");
    return rc != 0 ? -1 : (long)used;
}

long ext_adm_base64(const unsigned char *in, size_t n, char *out, size_t cap)
{
    if (n > (size_t)INT_MAX / 4 * 3) /* EVP_EncodeBlock counts in int */
        return -1;
    size_t need = (n + 2) / 3 * 4;
    if (need + 1 > cap)
        return -1;
    int len = EVP_EncodeBlock((unsigned char *)out, in, (int)n);
    return len >= 0 && (size_t)len == need ? (long)len : -1;
}

/* --- the AdmissionReview ------------------------------------------------------------------- */

typedef struct review {
    js_doc d;
    long req, obj; /* tokens: request, request.object (-1 when absent) */
} review;

static long member(const js_doc *d, long obj, const char *key, int type)
{
    if (obj < 0 || d->t[obj].type != JS_OBJECT)
        return -1;
    long v = js_obj_get(d, (size_t)obj, key);
    return v >= 0 && d->t[v].type == type ? v : -1;
}

/* The string member `key` of object `obj` into out; false when absent, not a string or too long
 * (out is then ""). */
static bool str_member(const js_doc *d, long obj, const char *key, char *out, size_t cap)
{
    out[0] = '\0';
    long v = member(d, obj, key, JS_STRING);
    if (v < 0 || js_str_decode(d, (size_t)v, out, cap) < 0) {
        out[0] = '\0';
        return false;
    }
    return true;
}

static bool str_member_is(const js_doc *d, long obj, const char *key, const char *want)
{
    char buf[64];
    return str_member(d, obj, key, buf, sizeof buf) && strcmp(buf, want) == 0;
}

static int fail(ext_adm_reply *out, const char *msg)
{
    out->result = EXT_ADM_ERROR;
    snprintf(out->error, sizeof out->error, "%s", msg);
    return -1;
}

/* Tokenize and check the envelope: an AdmissionReview v1 with request.uid. */
static int parse_envelope(const ext_adm_opts *o, const char *body, size_t len, review *r,
                          ext_adm_reply *out)
{
    if (len == 0)
        return fail(out, "AdmissionReview: request body is empty");
    js_limits jl = {.max_depth = EXT_MAX_DEPTH, .max_tokens = len / 2 + 16, .max_len = o->max_body};
    char jerr[JS_ERR_MAX];
    if (js_parse(&r->d, body, len, &jl, jerr) != 0) {
        snprintf(out->error, sizeof out->error, "AdmissionReview: %s", jerr);
        out->result = EXT_ADM_ERROR;
        return -1;
    }
    const js_doc *d = &r->d;
    if (d->t[0].type != JS_OBJECT)
        return fail(out, "AdmissionReview: expected a JSON object");
    if (!str_member_is(d, 0, "apiVersion", "admission.k8s.io/v1") ||
        !str_member_is(d, 0, "kind", "AdmissionReview"))
        return fail(out, "AdmissionReview: expected apiVersion admission.k8s.io/v1 and kind "
                         "AdmissionReview (set admissionReviewVersions: [v1])");
    r->req = member(d, 0, "request", JS_OBJECT);
    if (r->req < 0)
        return fail(out, "AdmissionReview: request: missing or not an object");
    if (!str_member(d, r->req, "uid", out->uid, sizeof out->uid) || out->uid[0] == '\0')
        return fail(out, "AdmissionReview: request.uid: missing, empty, not a string or over "
                         "128 bytes");
    /* A uid with a NUL ("\u0000") could only be echoed truncated: the API server would take the
     * answer for another request's. */
    long uv = member(d, r->req, "uid", JS_STRING);
    if (js_str_decode(d, (size_t)uv, out->uid, sizeof out->uid) != (long)strlen(out->uid)) {
        out->uid[0] = '\0';
        return fail(out, "AdmissionReview: request.uid: contains a NUL character");
    }
    r->obj = member(d, r->req, "object", JS_OBJECT);
    return 0;
}

/* Is this the CREATE of a core v1 Pod (not a subresource)? */
static bool pod_create(const js_doc *d, long req)
{
    long kind = member(d, req, "kind", JS_OBJECT);
    long sub = member(d, req, "subResource", JS_STRING);
    return str_member_is(d, req, "operation", "CREATE") && str_member_is(d, kind, "group", "") &&
           str_member_is(d, kind, "version", "v1") && str_member_is(d, kind, "kind", "Pod") &&
           (sub < 0 || d->t[sub].end == d->t[sub].start);
}

static void read_gates(const js_doc *d, long spec, ext_adm_pod *p)
{
    long g = member(d, spec, "schedulingGates", JS_ARRAY);
    if (g < 0)
        return;
    p->gates_array = true;
    /* Every entry: our gate after any number of others must be found, or a second one would be
     * appended and the API server would refuse the pod (a duplicate gate). The body's bound
     * (max_body) bounds the scan. */
    size_t e = (size_t)g + 1;
    for (uint32_t k = 0; k < d->t[g].n && !p->has_gate; k++) {
        char name[EXT_ADM_NAME_MAX + 1];
        if (str_member(d, (long)e, "name", name, sizeof name) &&
            strcmp(name, DS_GATE_DEPENDENCIES) == 0)
            p->has_gate = true;
        e = d->t[e].next;
    }
}

static void read_pod(const review *r, ext_adm_reply *out, ext_adm_pod *p, char *sched,
                     size_t sched_cap)
{
    const js_doc *d = &r->d;
    long meta = member(d, r->obj, "metadata", JS_OBJECT);
    long spec = member(d, r->obj, "spec", JS_OBJECT);
    if (!str_member(d, r->req, "namespace", out->ns, sizeof out->ns) || out->ns[0] == '\0')
        str_member(d, meta, "namespace", out->ns, sizeof out->ns);
    if (!str_member(d, meta, "name", out->name, sizeof out->name) || out->name[0] == '\0')
        str_member(d, meta, "generateName", out->name, sizeof out->name);
    /* A scheduler name over 253 bytes (refused by the API server anyway) reads as another one. */
    if (!str_member(d, spec, "schedulerName", sched, sched_cap) &&
        member(d, spec, "schedulerName", JS_STRING) >= 0)
        snprintf(sched, sched_cap, "-");
    char node[EXT_ADM_NAME_MAX + 1];
    long nn = member(d, spec, "nodeName", JS_STRING);
    p->ns = out->ns;
    p->scheduler_name = sched;
    p->bound = nn >= 0 && (!str_member(d, spec, "nodeName", node, sizeof node) || node[0] != '\0');
    read_gates(d, spec, p);
}

static void emit(ext_adm_reply *out, const char *patch_b64)
{
    ds_bytebuf b;
    ext_out_init(&b, 256 + (patch_b64 != NULL ? strlen(patch_b64) : 0));
    DS_BYTEBUF_LIT(&b, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                       "\"response\":{\"uid\":");
    ext_put_json_string(&b, out->uid);
    DS_BYTEBUF_LIT(&b, ",\"allowed\":true");
    if (patch_b64 != NULL) {
        DS_BYTEBUF_LIT(&b, ",\"patchType\":\"JSONPatch\",\"patch\":\"");
        ds_bytebuf_append(&b, patch_b64, strlen(patch_b64));
        DS_BYTEBUF_LIT(&b, "\"");
    }
    DS_BYTEBUF_LIT(&b, "}}");
    out->status = 200;
    out->json = true;
    out->body = ds_bytebuf_take(&b, &out->len);
}

static void emit_error(ext_adm_reply *out)
{
    char msg[EXT_ERR_MAX + 32];
    snprintf(msg, sizeof msg, "dagsched: %s\n", out->error);
    out->status = 400;
    out->json = false;
    out->len = strlen(msg);
    out->body = malloc(out->len + 1);
    if (out->body != NULL)
        memcpy(out->body, msg, out->len + 1);
}

void ext_adm_review(const ext_adm_opts *o, const char *body, size_t len, ext_adm_reply *out)
{
    memset(out, 0, sizeof *out);
    review r = {.req = -1, .obj = -1};
    if (parse_envelope(o, body, len, &r, out) != 0) {
        js_free(&r.d);
        emit_error(out);
        return;
    }
    out->result = EXT_ADM_IGNORED;
    if (!pod_create(&r.d, r.req)) {
        out->why = "not the CREATE of a v1 Pod";
        js_free(&r.d);
        emit(out, NULL);
        return;
    }
    if (r.obj < 0) {
        js_free(&r.d);
        fail(out, "AdmissionReview: request.object: missing or not an object for a Pod CREATE");
        emit_error(out);
        return;
    }
    ext_adm_pod p = {0};
    char sched[EXT_ADM_NAME_MAX + 1];
    read_pod(&r, out, &p, sched, sizeof sched);
    js_free(&r.d);
    ext_adm_decision dec = ext_adm_decide(o, &p);
    out->result = dec.result;
    out->why = dec.why;
    if (!dec.add_gate && !dec.set_scheduler_name) {
        emit(out, NULL);
        return;
    }
    char patch[EXT_ADM_PATCH_MAX], b64[EXT_ADM_PATCH_MAX * 2];
    long n = ext_adm_patch(o, &p, &dec, patch, sizeof patch);
    if (n < 0 || ext_adm_base64((const unsigned char *)patch, (size_t)n, b64, sizeof b64) < 0) {
        fail(out, "JSONPatch: the scheduler name is too long");
        emit_error(out);
        return;
    }
    emit(out, b64);
}
