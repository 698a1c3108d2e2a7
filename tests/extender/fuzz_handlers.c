/* fuzz_handlers.c: libFuzzer target for the extender verbs end to end: request parsing, decoding
 * the request's Pod with the Kubernetes object decoder, the job-model lookups and placement rules
 * against a fixed snapshot (a DAG job with succeeded, running and waiting tasks, a pod outside any
 * DAG, three nodes), and writing the answers. Any crash, leak, sanitizer report, an answer that is
 * not valid JSON or a status other than 200/400 is a bug. Built by `make fuzz` with clang. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "handlers.h"

static ext_snapshot *snap;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const kube_node *nodes[] = {fx_node("kwok-node-0", "8", "32Gi", "2.0"),
                                fx_node("kwok-node-1", "8", "32Gi", "0.5"),
                                fx_node("kwok-node-2", "8", "32Gi", NULL)};
    const kube_pod *pods[] = {
        fx_pod(&(fx_pod_spec){.ns = "batch",
                              .name = "etl-extract",
                              .uid = "uid-victim-a",
                              .job = "etl",
                              .task = "extract",
                              .runtime = "60s",
                              .deadline = "2026-11-22T11:00:00Z",
                              .node = "kwok-node-0",
                              .phase = "Running",
                              .cpu = "1",
                              .mem = "1Gi",
                              .created = "2026-11-22T10:00:00Z",
                              .started = "2026-11-22T10:00:05Z"}),
        fx_pod(&(fx_pod_spec){.ns = "batch",
                              .name = "etl-transform",
                              .uid = "7c1e1a52-3b1f-4c55-9a39-0d9a3c2f6b10",
                              .rv = "4711",
                              .job = "etl",
                              .task = "transform",
                              .depends_on = "extract",
                              .runtime = "90s",
                              .deadline = "2026-11-22T11:00:00Z",
                              .phase = "Pending",
                              .cpu = "500m",
                              .mem = "1Gi",
                              .created = "2026-11-22T10:00:00Z"}),
        fx_pod(&(fx_pod_spec){.ns = "batch",
                              .name = "etl-load",
                              .uid = "uid-victim-b",
                              .job = "etl",
                              .task = "load",
                              .runtime = "30s",
                              .node = "kwok-node-1",
                              .phase = "Running",
                              .cpu = "2",
                              .mem = "1Gi",
                              .created = "2026-11-22T10:00:00Z",
                              .started = "2026-11-22T10:00:00Z"}),
        fx_pod(&(fx_pod_spec){.ns = "default",
                              .name = "web",
                              .uid = "uid-victim-c",
                              .node = "kwok-node-2",
                              .phase = "Running",
                              .cpu = "7",
                              .mem = "1Gi",
                              .started = "2026-11-22T09:00:00Z"}),
    };
    ds_policy pol;
    ds_policy_defaults(&pol);
    ext_build_input in = {.nodes = nodes,
                          .n_nodes = 3,
                          .pods = pods,
                          .n_pods = 4,
                          .policy = &pol,
                          .policy_generation = 1,
                          .now = 1795345200.0};
    ds_err err;
    if (ext_snapshot_build(&in, &snap, &err) != 0)
        abort();
    for (int i = 0; i < 3; i++)
        kube_obj_unref(&nodes[i]->meta);
    for (int i = 0; i < 4; i++)
        kube_obj_unref(&pods[i]->meta);
    return 0;
}

/* Valid JSON that jansson cannot represent: "\u0000" inside an object key, and integers beyond
 * int64 (an echoed Node may carry either). The extender's strict tokenizer must still accept it. */
static int jansson_limit(const char *text)
{
    return strstr(text, "NUL byte in object key") != NULL ||
           strstr(text, "too big integer") != NULL;
}

static void check(const ext_reply *r)
{
    if (r->body == NULL || (r->status != 200 && r->status != 400))
        abort();
    /* jansson cannot represent "\u0000" inside an object key (valid JSON an echoed Node may
     * carry); the extender's strict tokenizer must accept the answer in any case. */
    json_error_t e;
    json_t *j = json_loadb(r->body, r->len, JSON_ALLOW_NUL, &e);
    if (j == NULL && !jansson_limit(e.text))
        abort();
    json_decref(j);
    js_doc d;
    char err[JS_ERR_MAX];
    js_limits lim = {
        .max_depth = EXT_MAX_DEPTH + 4, .max_tokens = r->len + 16, .max_len = r->len + 1};
    if (js_parse(&d, r->body, r->len, &lim, err) != 0)
        abort();
    js_free(&d);
    free(r->body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ext_ctx c;
    memset(&c, 0, sizeof c);
    ext_limits_default(&c.limits);
    c.limits.max_nodes = 1000;
    c.limits.max_victims = 1000;
    const char *body = (const char *)data;
    double now = 1795347480.0; /* 10:58 on the snapshot's day */
    ext_reply r;
    ext_outcome o;
    ext_handle_filter(&c, snap, body, size, now, &r, &o);
    check(&r);
    ext_outcome_clear(&o);
    ext_handle_prioritize(&c, snap, body, size, now, &r, &o);
    check(&r);
    ext_outcome_clear(&o);
    ext_handle_preempt(&c, snap, body, size, now, &r, &o);
    check(&r);
    ext_outcome_clear(&o);
    return 0;
}
