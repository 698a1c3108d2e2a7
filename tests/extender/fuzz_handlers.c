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
#include "fuzz_json.h"
#include "handlers.h"

static ext_snapshot *snap;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_json_init();
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

static void check(const ext_reply *r)
{
    if (r->body == NULL || (r->status != 200 && r->status != 400))
        abort();
    fuzz_check_json("fuzz_handlers", r->body, r->len);
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
