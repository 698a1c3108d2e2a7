/* test_handlers.c: the extender verbs on recorded request bodies against snapshots built from
 * decoded cluster objects: a three-task DAG job (blocked, then runnable), level-deadline
 * filtering, resource fit, pods outside any DAG, pods unknown to the snapshot, invalid jobs,
 * unknown nodes, empty node lists, both key casings and nodeCacheCapable modes, preemption with
 * protected / young / unknown victims and with the policy's namespace selector, malformed and
 * oversized bodies, and the not-ready answer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "handlers.h"
#include "test_util.h"
#include "timefmt.h"

#define DEADLINE "2026-11-22T11:00:00Z"

static double at(const char *ts)
{
    double t;
    ds_err err;
    if (ds_timestamp_parse(ts, &t, &err) != 0)
        fail_msg("%s", err.msg);
    return t;
}

/* The dagsched scheduler's name the verbs are run with (ext_ctx.scheduler_name; NULL: none). */
static const char *ctx_scheduler;

static ext_ctx ctx(void)
{
    ext_ctx c;
    memset(&c, 0, sizeof c);
    ext_limits_default(&c.limits);
    c.scheduler_name = ctx_scheduler;
    return c;
}

/* The cluster: three 8-cpu nodes of speeds 2.0, 0.5 and (no label, same size) 1.0; job batch/etl
 * with extract -> clean -> transform; `clean_phase` says where clean is. A filler pod takes
 * 7.8 cpu of kwok-node-2. */
typedef struct world {
    const kube_node *nodes[3];
    const kube_pod *pods[16];
    size_t n_pods;
    const kube_configmap *graphs[2];
    size_t n_graphs;
    const kube_namespace *namespaces[4];
    size_t n_namespaces;
    const kube_workflow *workflows[2];
    size_t n_workflows;
    ds_policy policy;
} world;

static void add_pod(world *w, const fx_pod_spec *s)
{
    w->pods[w->n_pods++] = fx_pod(s);
}

static void world_init(world *w, const char *clean_phase)
{
    memset(w, 0, sizeof *w);
    ds_policy_defaults(&w->policy);
    w->nodes[0] = fx_node("kwok-node-0", "8", "32Gi", "2.0");
    w->nodes[1] = fx_node("kwok-node-1", "8", "32Gi", "0.5");
    w->nodes[2] = fx_node("kwok-node-2", "8", "32Gi", NULL);
    add_pod(w, &(fx_pod_spec){.ns = "batch",
                              .name = "etl-extract",
                              .uid = "uid-extract",
                              .job = "etl",
                              .task = "extract",
                              .runtime = "60s",
                              .deadline = DEADLINE,
                              .node = "kwok-node-0",
                              .phase = "Succeeded",
                              .cpu = "1",
                              .mem = "1Gi",
                              .created = "2026-11-22T10:00:00Z",
                              .started = "2026-11-22T10:00:05Z"});
    add_pod(w, &(fx_pod_spec){.ns = "batch",
                              .name = "etl-clean",
                              .uid = "uid-clean",
                              .job = "etl",
                              .task = "clean",
                              .depends_on = "extract",
                              .runtime = "120s",
                              .deadline = DEADLINE,
                              .node = "kwok-node-1",
                              .phase = clean_phase,
                              .cpu = "2",
                              .mem = "4Gi",
                              .created = "2026-11-22T10:00:00Z",
                              .started = "2026-11-22T10:30:00Z"});
    /* The pod of the recorded bodies (same uid and resourceVersion). */
    add_pod(w, &(fx_pod_spec){.ns = "batch",
                              .name = "etl-transform",
                              .uid = "7c1e1a52-3b1f-4c55-9a39-0d9a3c2f6b10",
                              .rv = "4711",
                              .job = "etl",
                              .task = "transform",
                              .depends_on = "extract,clean",
                              .runtime = "90s",
                              .deadline = DEADLINE,
                              .phase = "Pending",
                              .cpu = "500m",
                              .mem = "1Gi",
                              .created = "2026-11-22T10:00:00Z"});
    add_pod(w, &(fx_pod_spec){.ns = "default",
                              .name = "filler",
                              .uid = "uid-filler",
                              .node = "kwok-node-2",
                              .phase = "Running",
                              .cpu = "7800m",
                              .mem = "1Gi",
                              .created = "2026-11-22T09:00:00Z",
                              .started = "2026-11-22T09:00:00Z"});
}

static void world_free(world *w)
{
    for (size_t i = 0; i < 3; i++)
        kube_obj_unref(&w->nodes[i]->meta);
    for (size_t i = 0; i < w->n_pods; i++)
        kube_obj_unref(&w->pods[i]->meta);
    for (size_t i = 0; i < w->n_graphs; i++)
        kube_obj_unref(&w->graphs[i]->meta);
    for (size_t i = 0; i < w->n_namespaces; i++)
        kube_obj_unref(&w->namespaces[i]->meta);
    for (size_t i = 0; i < w->n_workflows; i++)
        kube_obj_unref(&w->workflows[i]->meta);
}

static ext_snapshot *snap(const world *w, double now)
{
    ext_build_input in = {.nodes = w->nodes,
                          .n_nodes = 3,
                          .pods = w->pods,
                          .n_pods = w->n_pods,
                          .graphs = w->graphs,
                          .n_graphs = w->n_graphs,
                          .namespaces = w->namespaces,
                          .n_namespaces = w->n_namespaces,
                          .workflows = w->workflows,
                          .n_workflows = w->n_workflows,
                          .policy = &w->policy,
                          .policy_generation = 1,
                          .policy_source = "built-in defaults",
                          .now = now};
    ext_snapshot *s = NULL;
    ds_err err;
    if (ext_snapshot_build(&in, &s, &err) != 0)
        fail_msg("snapshot: %s", err.msg);
    return s;
}

typedef void (*verb_fn)(const ext_ctx *, const ext_snapshot *, const char *, size_t, double,
                        ext_reply *, ext_outcome *);

/* Run a verb on a body; returns the reply body (caller frees) and checks the status. */
static char *run(verb_fn fn, const ext_snapshot *s, const char *body, size_t len, double now,
                 int status, ext_outcome *o)
{
    ext_ctx c = ctx();
    ext_reply r;
    fn(&c, s, body, len, now, &r, o);
    assert_int_equal(r.status, status);
    assert_non_null(r.body);
    return r.body;
}

static char *run_file(verb_fn fn, const ext_snapshot *s, const char *file, double now, int status,
                      ext_outcome *o)
{
    size_t len;
    char *body = tu_read_data(file, &len);
    char *out = run(fn, s, body, len, now, status, o);
    free(body);
    return out;
}

static void test_not_ready(void **state)
{
    (void)state;
    ext_outcome o;
    char *out = run_file(ext_handle_filter, NULL, "filter_names.json", 0, 503, &o);
    assert_string_equal(out, "{\"Error\":\"dagsched: the extender's caches have not synced yet; "
                             "retry\"}");
    assert_int_equal(o.kind, EXT_NOT_READY);
    free(out);
    out = run_file(ext_handle_preempt, NULL, "preempt_meta.json", 0, 503, &o);
    free(out);
    out = run_file(ext_handle_prioritize, NULL, "filter_names.json", 0, 503, &o);
    free(out);
}

static const char BLOCKED[] =
    "{\"Nodes\":null,\"NodeNames\":[],\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{"
    "\"kwok-node-0\":\"dagsched: waiting for upstream tasks: clean\","
    "\"kwok-node-1\":\"dagsched: waiting for upstream tasks: clean\","
    "\"kwok-node-2\":\"dagsched: waiting for upstream tasks: clean\"},\"Error\":\"\"}";

static void test_blocked_task_both_casings(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Running");
    double now = at("2026-11-22T10:31:00Z");
    ext_snapshot *s = snap(&w, now);
    const char *files[] = {"filter_names.json", "filter_names_lower.json"};
    for (int i = 0; i < 2; i++) {
        ext_outcome o;
        char *out = run_file(ext_handle_filter, s, files[i], now, 200, &o);
        assert_string_equal(out, BLOCKED);
        assert_int_equal(o.pod_class, EXT_POD_BLOCKED);
        assert_string_equal(o.note, "clean");
        assert_int_equal(o.n_blocked, 3);
        assert_string_equal(o.pod_name, "etl-transform");
        ext_outcome_clear(&o);
        free(out);
    }
    /* nodeCacheCapable: false: the same verdicts, keyed by the Node objects' names. */
    ext_outcome o;
    char *out = run_file(ext_handle_filter, s, "filter_nodelist.json", now, 200, &o);
    assert_string_equal(out, "{\"Nodes\":{\"metadata\":{},\"items\":[]},\"NodeNames\":null,"
                             "\"FailedNodes\":{},\"FailedAndUnresolvableNodes\":{"
                             "\"kwok-node-0\":\"dagsched: waiting for upstream tasks: clean\","
                             "\"kwok-node-1\":\"dagsched: waiting for upstream tasks: clean\"},"
                             "\"Error\":\"\"}");
    free(out);
    /* Prioritize gives a blocked task nothing. */
    out = run_file(ext_handle_prioritize, s, "filter_names.json", now, 200, &o);
    assert_string_equal(out, "[{\"Host\":\"kwok-node-0\",\"Score\":0},{\"Host\":\"kwok-node-1\","
                             "\"Score\":0},{\"Host\":\"kwok-node-2\",\"Score\":0}]");
    free(out);
    /* And may not preempt. */
    out = run_file(ext_handle_preempt, s, "preempt_meta.json", now, 200, &o);
    assert_string_equal(out, "{\"NodeNameToMetaVictims\":{}}");
    assert_string_equal(o.preemptor_mode, "barred");
    free(out);
    ext_snapshot_unref(s);
    world_free(&w);
}

/* A pod of another scheduler did not opt in: with the dagsched scheduler named, the blocked task
 * of the recorded body (schedulerName dagsched) is still held; renamed, the same pod is judged as
 * a pod outside any DAG and passes where it fits. */
static void test_other_scheduler_outside_dag(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Running");
    double now = at("2026-11-22T10:31:00Z");
    ext_snapshot *s = snap(&w, now);
    ext_outcome o;
    ctx_scheduler = "dagsched";
    char *out = run_file(ext_handle_filter, s, "filter_names.json", now, 200, &o);
    ctx_scheduler = NULL;
    assert_string_equal(out, BLOCKED);
    free(out);
    ctx_scheduler = "dagsched-canary";
    out = run_file(ext_handle_filter, s, "filter_names.json", now, 200, &o);
    ctx_scheduler = NULL;
    assert_int_equal(o.pod_class, EXT_POD_OUTSIDE);
    assert_int_equal(o.n_blocked, 0);
    assert_non_null(strstr(out, "\"NodeNames\":[\"kwok-node-0\",\"kwok-node-1\"]"));
    free(out);
    ext_snapshot_unref(s);
    world_free(&w);
}

/* A fake live cache: "clean" has succeeded (the snapshot does not know yet). */
static size_t live_calls;
static bool live_clean_done(void *user, const char *ns, const char *job, const char *const *tasks,
                            size_t n)
{
    (void)user;
    live_calls++;
    assert_string_equal(ns, "batch");
    assert_string_equal(job, "etl");
    assert_int_equal(n, 1);
    return strcmp(tasks[0], "clean") == 0;
}

static void test_live_caches_ahead_of_snapshot(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Running");
    double now = at("2026-11-22T10:31:00Z");
    ext_snapshot *s = snap(&w, now);
    ext_ctx c = ctx();
    c.tasks_succeeded = live_clean_done;
    size_t len;
    char *body = tu_read_data("filter_names.json", &len);
    ext_reply r;
    ext_outcome o;
    live_calls = 0;
    ext_handle_filter(&c, s, body, len, now, &r, &o);
    assert_int_equal(r.status, 200);
    assert_int_equal(live_calls, 1);
    assert_true(o.live_override);
    assert_int_equal(o.pod_class, EXT_POD_DAG);
    assert_string_equal(r.body, "{\"Nodes\":null,\"NodeNames\":[\"kwok-node-0\",\"kwok-node-1\"],"
                                "\"FailedNodes\":{\"kwok-node-2\":\"dagsched: insufficient cpu "
                                "(requested 500m, free 200m)\"},\"FailedAndUnresolvableNodes\":{},"
                                "\"Error\":\"\"}");
    free(r.body);
    ext_outcome_clear(&o);
    free(body);
    ext_snapshot_unref(s);
    world_free(&w);
}

static void test_runnable_deadline_and_fit(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Succeeded");
    /* 10:58: 120 s before the deadline of level 3 (the last level: the job deadline). The task
     * needs 90 s at speed 1: 45 s on kwok-node-0 (speed 2), 180 s on kwok-node-1 (speed 0.5,
     * late); kwok-node-2 (speed 1) would make it but has only 200m cpu free. */
    double now = at("2026-11-22T10:58:00Z");
    ext_snapshot *s = snap(&w, now);
    ext_outcome o;
    char *out = run_file(ext_handle_filter, s, "filter_names.json", now, 200, &o);
    assert_string_equal(
        out, "{\"Nodes\":null,\"NodeNames\":[\"kwok-node-0\"],\"FailedNodes\":{"
             "\"kwok-node-1\":\"dagsched: cannot finish before its level deadline on this node "
             "(needs 3m0s at speed 0.5, 2m0s left); faster nodes can\","
             "\"kwok-node-2\":\"dagsched: insufficient cpu (requested 500m, free 200m)\"},"
             "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    assert_int_equal(o.pod_class, EXT_POD_DAG);
    assert_int_equal(o.n_passed, 1);
    assert_int_equal(o.n_too_slow, 1);
    assert_int_equal(o.n_no_fit, 1);
    free(out);

    /* Without the deadline pressure (10:00), the slow node passes too. */
    out = run_file(ext_handle_filter, s, "filter_names.json", at("2026-11-22T10:00:00Z"), 200, &o);
    assert_non_null(strstr(out, "\"NodeNames\":[\"kwok-node-0\",\"kwok-node-1\"]"));
    free(out);

    /* The policy can turn the deadline test off. */
    ext_snapshot_unref(s);
    w.policy.filter_infeasible_nodes = false;
    s = snap(&w, now);
    out = run_file(ext_handle_filter, s, "filter_names.json", now, 200, &o);
    assert_non_null(strstr(out, "\"NodeNames\":[\"kwok-node-0\",\"kwok-node-1\"]"));
    free(out);

    /* Prioritize: kwok-node-2 does not fit (0). The sole waiting task has criticality 1 and
     * prefers the fast node. kwok-node-0 (empty, speed 2 = max): C 0; B = 1 - mean(7.5/8,
     * 31/32) = 0.046875; S = 1: 0.4*0.046875 + 0.2 = 0.21875 -> 2. kwok-node-1 (2 cpu, 4Gi of
     * clean... which has succeeded, so empty; speed 0.5): B the same, S = 0.25: 0.06875 -> 1. */
    out = run_file(ext_handle_prioritize, s, "filter_names.json", now, 200, &o);
    assert_string_equal(out, "[{\"Host\":\"kwok-node-0\",\"Score\":2},{\"Host\":\"kwok-node-1\","
                             "\"Score\":1},{\"Host\":\"kwok-node-2\",\"Score\":0}]");
    /* Deterministic. */
    char *again = run_file(ext_handle_prioritize, s, "filter_names.json", now, 200, &o);
    assert_string_equal(out, again);
    free(again);
    free(out);
    ext_snapshot_unref(s);
    world_free(&w);
}

static char *body_for(const char *pod_json, const char *names)
{
    size_t n = strlen(pod_json) + strlen(names) + 64;
    char *b = malloc(n);
    assert_non_null(b);
    snprintf(b, n, "{\"Pod\":%s,\"NodeNames\":[%s]}", pod_json, names);
    return b;
}

/* Room held for a preemptor (lib/room_hold.h): a pod of the holder's namespace that fits a node
 * only in the held room is refused that node, with the holder named; the holder itself, a pod of
 * another namespace, and everyone once the hold has ended, are not. */
static void test_filter_held_room(void **state)
{
    (void)state;
    const char *pods[][2] = {{"default", "u-web"}, {"other", "u-web"}, {"default", "uid-holder"}};
    const char *holds[] = {"kwok-node-0 2026-11-22T10:32:00Z", "kwok-node-0 2026-11-22T10:30:00Z"};
    for (size_t h = 0; h < 2; h++) {
        world w;
        world_init(&w, "Running");
        add_pod(&w, &(fx_pod_spec){.ns = "default",
                                   .name = "holder",
                                   .uid = "uid-holder",
                                   .phase = "Pending",
                                   .cpu = "7500m",
                                   .mem = "1Gi",
                                   .created = "2026-11-22T10:30:00Z",
                                   .reserved_node = holds[h]});
        double now = at("2026-11-22T10:31:00Z");
        ext_snapshot *s = snap(&w, now);
        assert_int_equal(s->n_holds, 1);
        for (size_t k = 0; k < 3; k++) {
            char pod[512];
            snprintf(pod, sizeof pod,
                     "{\"metadata\":{\"name\":\"web\",\"namespace\":\"%s\",\"uid\":\"%s\","
                     "\"resourceVersion\":\"9\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                     "\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}",
                     pods[k][0], pods[k][1]);
            char *body = body_for(pod, "\"kwok-node-0\"");
            ext_outcome o;
            char *out = run(ext_handle_filter, s, body, strlen(body), now, 200, &o);
            if (h == 0 && k == 0) {
                assert_string_equal(out, "{\"Nodes\":null,\"NodeNames\":[],\"FailedNodes\":{"
                                         "\"kwok-node-0\":\"dagsched: the room on this node is "
                                         "held for default/holder (an eviction made it)\"},"
                                         "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
                assert_int_equal(o.n_passed, 0);
            } else {
                assert_non_null(strstr(out, "\"NodeNames\":[\"kwok-node-0\"]"));
                assert_int_equal(o.n_passed, 1);
            }
            free(out);
            free(body);
        }
        ext_snapshot_unref(s);
        world_free(&w);
    }
}

/* Room held for a gang member released into it (the same annotation, on a pod labelled
 * dagsched.io/gang): refused the same way, and the message says why the room is held. */
static void test_filter_gang_hold(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Running");
    add_pod(&w, &(fx_pod_spec){.ns = "default",
                               .name = "worker-0",
                               .uid = "uid-worker-0",
                               .phase = "Pending",
                               .cpu = "7500m",
                               .mem = "1Gi",
                               .created = "2026-11-22T10:30:00Z",
                               .extra_label_key = "dagsched.io/gang",
                               .extra_label_value = "workers",
                               .reserved_node = "kwok-node-0 2026-11-22T10:31:10Z"});
    double now = at("2026-11-22T10:31:00Z");
    ext_snapshot *s = snap(&w, now);
    assert_int_equal(s->n_holds, 1);
    assert_true(s->holds[0].gang);
    const char *pod = "{\"metadata\":{\"name\":\"web\",\"namespace\":\"default\",\"uid\":\"u-web\","
                      "\"resourceVersion\":\"9\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                      "\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}";
    char *body = body_for(pod, "\"kwok-node-0\"");
    ext_outcome o;
    char *out = run(ext_handle_filter, s, body, strlen(body), now, 200, &o);
    assert_non_null(strstr(out, "dagsched: the room on this node is held for default/worker-0 "
                                "(released with its gang into it)"));
    assert_int_equal(o.n_passed, 0);
    free(out);
    free(body);
    ext_snapshot_unref(s);
    world_free(&w);
}

/* Upcoming tasks that share an upstream task share the room it freed: job fan (deadline) ran split
 * (2 cpu) on kwok-node-0, which a 4-cpu pod of another namespace also runs on; a, b and c (2 cpu
 * each) depend on split and wait, unbound. Split freed 2 cpu, so the holds keep 2 cpu there, not
 * 6: another job's 2-cpu pod of the namespace fits beside them (4 cpu free). Once a is bound there
 * it has taken the room split freed, and nothing is held for b and c. */
static void test_filter_upcoming_siblings_share_the_freed_room(void **state)
{
    (void)state;
    for (int a_bound = 0; a_bound < 2; a_bound++) {
        world w;
        world_init(&w, "Running");
        add_pod(&w, &(fx_pod_spec){.ns = "other",
                                   .name = "filler",
                                   .uid = "uid-filler",
                                   .node = "kwok-node-0",
                                   .phase = "Running",
                                   .cpu = a_bound ? "2" : "4",
                                   .created = "2026-11-22T10:00:00Z",
                                   .started = "2026-11-22T10:00:01Z"});
        add_pod(&w, &(fx_pod_spec){.ns = "team",
                                   .name = "fan-split",
                                   .uid = "uid-split",
                                   .job = "fan",
                                   .task = "split",
                                   .deadline = DEADLINE,
                                   .node = "kwok-node-0",
                                   .phase = "Succeeded",
                                   .cpu = "2",
                                   .created = "2026-11-22T10:30:00Z",
                                   .started = "2026-11-22T10:30:50Z"});
        const char *tasks[] = {"a", "b", "c"};
        for (size_t t = 0; t < 3; t++) {
            char name[16], uid[16];
            snprintf(name, sizeof name, "fan-%s", tasks[t]);
            snprintf(uid, sizeof uid, "uid-%s", tasks[t]);
            bool bound = a_bound && t == 0;
            add_pod(&w, &(fx_pod_spec){.ns = "team",
                                       .name = name,
                                       .uid = uid,
                                       .job = "fan",
                                       .task = tasks[t],
                                       .depends_on = "split",
                                       .deadline = DEADLINE,
                                       .node = bound ? "kwok-node-0" : NULL,
                                       .phase = bound ? "Running" : "Pending",
                                       .cpu = "2",
                                       .created = "2026-11-22T10:30:52Z",
                                       .started = bound ? "2026-11-22T10:30:53Z" : NULL});
        }
        double now = at("2026-11-22T10:31:00Z");
        ext_snapshot *s = snap(&w, now);
        size_t team_holds = 0;
        for (size_t h = 0; h < s->n_holds; h++)
            if (strcmp(s->holds[h].ns, "team") == 0) {
                team_holds++;
                assert_string_equal(s->holds[h].name, "a");
                assert_int_equal(s->holds[h].request.v[DS_RES_CPU], 2000);
            }
        assert_int_equal(team_holds, a_bound ? 0 : 1);
        const char *pod = "{\"metadata\":{\"name\":\"web\",\"namespace\":\"team\",\"uid\":"
                          "\"u-web\",\"resourceVersion\":\"9\",\"labels\":{\"dagsched.io/job\":"
                          "\"web\",\"dagsched.io/task\":\"serve\"}},\"spec\":{\"containers\":[{"
                          "\"name\":\"c\",\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":"
                          "\"2\"}}}]}}";
        char *body = body_for(pod, "\"kwok-node-0\"");
        ext_outcome o;
        char *out = run(ext_handle_filter, s, body, strlen(body), now, 200, &o);
        assert_non_null(strstr(out, "\"NodeNames\":[\"kwok-node-0\"]"));
        free(out);
        free(body);
        ext_snapshot_unref(s);
        world_free(&w);
    }
}

/* An upcoming task (lib/upcoming.h): Workflow u (deadline) ran prep on kwok-node-0, and Argo has
 * not created compute's pod yet. For 15 s after prep ended (10:30:50 as its pod says), the room
 * prep freed there is held for compute (its template requests 7500m) against other jobs' pods of
 * the namespace; not against another namespace's, nor once the 15 s are over. */
static void test_filter_upcoming_room(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Running");
    w.workflows[w.n_workflows++] = (const kube_workflow *)fx_decode(
        KUBE_KIND_WORKFLOW,
        json_loads("{\"metadata\":{\"name\":\"u\",\"namespace\":\"default\",\"uid\":\"w-u\","
                   "\"resourceVersion\":\"3\",\"creationTimestamp\":\"2026-11-22T10:30:00Z\","
                   "\"annotations\":{\"dagsched.io/deadline-after\":\"10m\"}},"
                   "\"spec\":{\"entrypoint\":\"main\",\"templates\":["
                   "{\"name\":\"main\",\"dag\":{\"tasks\":[{\"name\":\"prep\","
                   "\"template\":\"work\"},{\"name\":\"compute\",\"template\":\"work\","
                   "\"dependencies\":[\"prep\"]}]}},"
                   "{\"name\":\"work\",\"container\":{\"resources\":{\"requests\":"
                   "{\"cpu\":\"7500m\"}}}}]},"
                   "\"status\":{\"nodes\":{\"u-1\":{\"id\":\"u-1\",\"name\":\"u.prep\","
                   "\"type\":\"Pod\",\"phase\":\"Succeeded\",\"templateName\":\"work\","
                   "\"startedAt\":\"2026-11-22T10:30:05Z\","
                   "\"finishedAt\":\"2026-11-22T10:30:55Z\"}}}}",
                   0, NULL),
        "workflow u");
    add_pod(&w, &(fx_pod_spec){.ns = "default",
                               .name = "u-prep",
                               .uid = "uid-prep",
                               .task = "prep",
                               .extra_label_key = "workflows.argoproj.io/workflow",
                               .extra_label_value = "u",
                               .node = "kwok-node-0",
                               .phase = "Succeeded",
                               .cpu = "7500m",
                               .mem = "1Gi",
                               .created = "2026-11-22T10:30:01Z",
                               .started = "2026-11-22T10:30:50Z"}); /* its end: no finishedAt */
    const double at_times[] = {at("2026-11-22T10:31:00Z"), at("2026-11-22T10:31:15Z")};
    const char *ns[] = {"default", "other"};
    for (size_t t = 0; t < 2; t++) {
        ext_snapshot *s = snap(&w, at_times[t]);
        assert_int_equal(s->n_holds, t == 0 ? 1 : 0);
        for (size_t k = 0; k < 2; k++) {
            char pod[512];
            snprintf(pod, sizeof pod,
                     "{\"metadata\":{\"name\":\"web\",\"namespace\":\"%s\",\"uid\":\"u-web\","
                     "\"resourceVersion\":\"9\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                     "\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}",
                     ns[k]);
            char *body = body_for(pod, "\"kwok-node-0\"");
            ext_outcome o;
            char *out = run(ext_handle_filter, s, body, strlen(body), at_times[t], 200, &o);
            if (t == 0 && k == 0)
                assert_non_null(strstr(out, "dagsched: the room on this node is held for task "
                                            "compute of job default/u (its upstream task just "
                                            "freed it)"));
            else
                assert_non_null(strstr(out, "\"NodeNames\":[\"kwok-node-0\"]"));
            free(out);
            free(body);
        }
        ext_snapshot_unref(s);
    }
    world_free(&w);
}

static void test_outside_dag_and_unknown_nodes(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Running");
    double now = at("2026-11-22T10:31:00Z");
    ext_snapshot *s = snap(&w, now);
    const char *web = "{\"metadata\":{\"name\":\"web\",\"namespace\":\"default\",\"uid\":\"u-web\","
                      "\"resourceVersion\":\"9\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                      "\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":"
                      "\"1Gi\"}}}]}}";
    char *body = body_for(web, "\"kwok-node-0\",\"kwok-node-2\",\"ghost\"");
    ext_outcome o;
    char *out = run(ext_handle_filter, s, body, strlen(body), now, 200, &o);
    assert_string_equal(out, "{\"Nodes\":null,\"NodeNames\":[\"kwok-node-0\",\"ghost\"],"
                             "\"FailedNodes\":{\"kwok-node-2\":\"dagsched: insufficient cpu "
                             "(requested 1000m, free 200m)\"},\"FailedAndUnresolvableNodes\":{},"
                             "\"Error\":\"\"}");
    assert_int_equal(o.pod_class, EXT_POD_OUTSIDE);
    assert_int_equal(o.n_unknown, 1);
    free(out);
    /* kwok-node-0 holds nothing running (extract succeeded): C 0, B = 1 - mean(7/8, 31/32) =
     * 0.078125, S 0 (criticality 0): 0.4 * 0.078125 = 0.03125 -> 0. */
    out = run(ext_handle_prioritize, s, body, strlen(body), now, 200, &o);
    assert_string_equal(out, "[{\"Host\":\"kwok-node-0\",\"Score\":0},{\"Host\":\"kwok-node-2\","
                             "\"Score\":0},{\"Host\":\"ghost\",\"Score\":0}]");
    free(out);
    free(body);
    ext_snapshot_unref(s);
    world_free(&w);
}

static void test_packing_prefers_complementary_node(void **state)
{
    (void)state;
    /* Two 4-cpu 16Gi nodes: pa runs a cpu-heavy pod (3 cpu, 1Gi), pb a memory-heavy one
     * (500m, 12Gi). A memory-heavy pod (500m, 3Gi) complements pa:
     *   pa: a = (0.125, 0.1875), b = (0.75, 0.0625), DV = (0.625^2 + 0.125^2) / 2 = 0.203125;
     *       B = 1 - mean(0.125, 0.75) = 0.5625: 0.4 * 0.203125 + 0.4 * 0.5625 = 0.30625 -> 3.
     *   pb: same dominant resource (memory): C 0; B = 1 - mean(0.75, 0.0625) = 0.59375:
     *       0.2375 -> 2. */
    ds_policy pol;
    ds_policy_defaults(&pol);
    const kube_node *nodes[2] = {fx_node("pa", "4", "16Gi", NULL),
                                 fx_node("pb", "4", "16Gi", NULL)};
    const kube_pod *pods[2] = {fx_pod(&(fx_pod_spec){.ns = "d",
                                                     .name = "cpu-hog",
                                                     .uid = "u1",
                                                     .node = "pa",
                                                     .phase = "Running",
                                                     .cpu = "3",
                                                     .mem = "1Gi"}),
                               fx_pod(&(fx_pod_spec){.ns = "d",
                                                     .name = "mem-hog",
                                                     .uid = "u2",
                                                     .node = "pb",
                                                     .phase = "Running",
                                                     .cpu = "500m",
                                                     .mem = "12Gi"})};
    ext_build_input in = {.nodes = nodes,
                          .n_nodes = 2,
                          .pods = pods,
                          .n_pods = 2,
                          .policy = &pol,
                          .policy_generation = 1,
                          .now = 1000};
    ext_snapshot *s;
    ds_err err;
    assert_int_equal(ext_snapshot_build(&in, &s, &err), 0);
    const char *pod = "{\"metadata\":{\"name\":\"m\",\"namespace\":\"d\",\"uid\":\"u3\","
                      "\"resourceVersion\":\"1\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                      "\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":\"3Gi\"}}}]}}";
    char *body = body_for(pod, "\"pa\",\"pb\"");
    ext_outcome o;
    char *out = run(ext_handle_prioritize, s, body, strlen(body), 1000, 200, &o);
    assert_string_equal(out, "[{\"Host\":\"pa\",\"Score\":3},{\"Host\":\"pb\",\"Score\":2}]");
    free(out);
    free(body);
    ext_snapshot_unref(s);
    for (int i = 0; i < 2; i++) {
        kube_obj_unref(&nodes[i]->meta);
        kube_obj_unref(&pods[i]->meta);
    }
}

static void test_pod_unknown_to_snapshot(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Succeeded");
    double now = at("2026-11-22T10:31:00Z");
    ext_snapshot *s = snap(&w, now);
    /* A new task of job etl, not yet in the snapshot, waiting for transform (pending). */
    const char *load = "{\"metadata\":{\"name\":\"etl-load\",\"namespace\":\"batch\",\"uid\":"
                       "\"u-load\",\"resourceVersion\":\"1\",\"labels\":{\"dagsched.io/job\":"
                       "\"etl\",\"dagsched.io/task\":\"load\"},\"annotations\":{"
                       "\"dagsched.io/depends-on\":\"transform, extract\"}},\"spec\":{"
                       "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":"
                       "\"100m\"}}}]}}";
    char *body = body_for(load, "\"kwok-node-0\"");
    ext_outcome o;
    char *out = run(ext_handle_filter, s, body, strlen(body), now, 200, &o);
    assert_string_equal(out, "{\"Nodes\":null,\"NodeNames\":[],\"FailedNodes\":{},"
                             "\"FailedAndUnresolvableNodes\":{\"kwok-node-0\":\"dagsched: waiting "
                             "for upstream tasks: transform\"},\"Error\":\"\"}");
    assert_int_equal(o.pod_class, EXT_POD_BLOCKED);
    free(out);
    free(body);

    /* A pod of a job the snapshot has never seen: its upstream tasks are not known to have
     * succeeded. */
    const char *other = "{\"metadata\":{\"name\":\"x-b\",\"namespace\":\"batch\",\"uid\":\"u-xb\","
                        "\"resourceVersion\":\"1\",\"labels\":{\"dagsched.io/job\":\"x\","
                        "\"dagsched.io/task\":\"b\"},\"annotations\":{\"dagsched.io/depends-on\":"
                        "\"a\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}";
    body = body_for(other, "\"kwok-node-0\"");
    out = run(ext_handle_filter, s, body, strlen(body), now, 200, &o);
    assert_non_null(strstr(out, "\"dagsched: waiting for upstream tasks: a\""));
    free(out);
    free(body);

    /* The root task of an unseen job passes. */
    const char *root = "{\"metadata\":{\"name\":\"x-a\",\"namespace\":\"batch\",\"uid\":\"u-xa\","
                       "\"resourceVersion\":\"1\",\"labels\":{\"dagsched.io/job\":\"x\","
                       "\"dagsched.io/task\":\"a\"},\"annotations\":{\"dagsched.io/runtime\":"
                       "\"30s\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}";
    body = body_for(root, "\"kwok-node-0\"");
    out = run(ext_handle_filter, s, body, strlen(body), now, 200, &o);
    assert_non_null(strstr(out, "\"NodeNames\":[\"kwok-node-0\"]"));
    assert_int_equal(o.pod_class, EXT_POD_DAG);
    free(out);
    free(body);

    /* A long list of missing upstream tasks is cut short with "and N more". */
    char deps[4096] = "", pod_json[6144];
    for (int i = 0; i < 60; i++) {
        char one[64];
        snprintf(one, sizeof one, "%supstream-task-with-a-rather-long-name-%02d", i ? "," : "", i);
        strcat(deps, one);
    }
    snprintf(pod_json, sizeof pod_json,
             "{\"metadata\":{\"name\":\"z-b\",\"namespace\":\"batch\",\"uid\":\"u-zb\","
             "\"resourceVersion\":\"1\",\"labels\":{\"dagsched.io/job\":\"z\","
             "\"dagsched.io/task\":\"b\"},\"annotations\":{\"dagsched.io/depends-on\":\"%s\"}},"
             "\"spec\":{\"containers\":[{\"name\":\"c\"}]}}",
             deps);
    body = body_for(pod_json, "\"kwok-node-0\"");
    out = run(ext_handle_filter, s, body, strlen(body), now, 200, &o);
    /* 11 names of 42 characters fit in the 512-byte list, with room for the suffix. */
    assert_non_null(strstr(out, "upstream-task-with-a-rather-long-name-10 and 49 more\"}"));
    assert_null(strstr(out, "name-11"));
    free(out);
    free(body);

    /* Its own deadline annotation bounds the level deadline: 90 s of work 120 s before the
     * deadline rule out the speed-0.5 node. */
    const char *dl = "{\"metadata\":{\"name\":\"y-a\",\"namespace\":\"batch\",\"uid\":\"u-ya\","
                     "\"resourceVersion\":\"1\",\"labels\":{\"dagsched.io/job\":\"y\","
                     "\"dagsched.io/task\":\"a\"},\"annotations\":{\"dagsched.io/runtime\":"
                     "\"90s\",\"dagsched.io/deadline\":\"" DEADLINE "\"}},\"spec\":{"
                     "\"containers\":[{\"name\":\"c\"}]}}";
    body = body_for(dl, "\"kwok-node-0\",\"kwok-node-1\"");
    double late = at("2026-11-22T10:58:00Z");
    out = run(ext_handle_filter, s, body, strlen(body), late, 200, &o);
    assert_non_null(strstr(out, "\"NodeNames\":[\"kwok-node-0\"]"));
    assert_non_null(strstr(out, "\"kwok-node-1\":\"dagsched: cannot finish before its level "
                                "deadline on this node (needs 3m0s at speed 0.5, 2m0s left); "
                                "faster nodes can\""));
    free(out);
    free(body);

    /* Values the job model refuses make the pod's job invalid here too (the job model's message):
     * a run time over a year, and both deadline forms at once. The root task then runs without
     * DAG constraints, as an invalid job's root task does. */
    const char *bad[][2] = {
        {"\"dagsched.io/runtime\":\"9000h\"",
         "annotation dagsched.io/runtime: \"9000h\" exceeds the limit 8760h"},
        {"\"dagsched.io/deadline\":\"" DEADLINE "\",\"dagsched.io/deadline-after\":\"1h\"",
         "annotations dagsched.io/deadline and dagsched.io/deadline-after are both set; use one"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char pj[1024];
        snprintf(pj, sizeof pj,
                 "{\"metadata\":{\"name\":\"v-a\",\"namespace\":\"batch\",\"uid\":\"u-va\","
                 "\"resourceVersion\":\"1\",\"labels\":{\"dagsched.io/job\":\"v\","
                 "\"dagsched.io/task\":\"a\"},\"annotations\":{%s}},\"spec\":{"
                 "\"containers\":[{\"name\":\"c\"}]}}",
                 bad[i][0]);
        body = body_for(pj, "\"kwok-node-0\"");
        out = run(ext_handle_filter, s, body, strlen(body), now, 200, &o);
        assert_non_null(strstr(out, "\"NodeNames\":[\"kwok-node-0\"]"));
        assert_int_equal(o.pod_class, EXT_POD_INVALID_JOB);
        if (strstr(o.note, bad[i][1]) == NULL)
            fail_msg("note \"%s\" lacks \"%s\"", o.note, bad[i][1]);
        ext_outcome_clear(&o);
        free(out);
        free(body);
    }
    ext_snapshot_unref(s);
    world_free(&w);
}

/* A pod whose depends-on annotation is 200 KB (the API server accepts up to 256 KiB of
 * annotations; dagsched keeps 64 KiB) is not a bad request: it is a pod dagsched does not
 * manage, which passes the filter on every node it fits, like a pod outside any DAG. */
static void test_over_limit_annotation_passes_through(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Running");
    double now = at("2026-11-22T10:31:00Z");
    ext_snapshot *s = snap(&w, now);
    size_t n_dep = 102400; /* "a," x 102400: 204800 bytes */
    size_t len = 2 * n_dep + 1024;
    char *pod = malloc(len);
    assert_non_null(pod);
    int at0 = snprintf(pod, len,
                       "{\"metadata\":{\"name\":\"big\",\"namespace\":\"batch\",\"uid\":\"u-big\","
                       "\"resourceVersion\":\"3\",\"labels\":{\"dagsched.io/job\":\"etl\","
                       "\"dagsched.io/task\":\"big\"},\"annotations\":{"
                       "\"dagsched.io/depends-on\":\"");
    for (size_t i = 0; i < n_dep; i++)
        memcpy(pod + at0 + 2 * i, "a,", 2);
    snprintf(pod + at0 + 2 * n_dep, len - (size_t)at0 - 2 * n_dep,
             "\"}},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"x\",\"resources\":"
             "{\"requests\":{\"cpu\":\"100m\"}}}]}}");
    char *body = body_for(pod, "\"kwok-node-0\",\"kwok-node-1\",\"kwok-node-2\"");
    ext_outcome o;
    char *out = run(ext_handle_filter, s, body, strlen(body), now, 200, &o);
    assert_string_equal(out, "{\"Nodes\":null,\"NodeNames\":[\"kwok-node-0\",\"kwok-node-1\","
                             "\"kwok-node-2\"],\"FailedNodes\":{},"
                             "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    assert_int_equal(o.pod_class, EXT_POD_INVALID_POD);
    assert_string_equal(o.note, "annotation dagsched.io/depends-on: 204800 bytes, limit 65536");
    assert_null(o.pod); /* no Event from the extender: the controller posts it */
    assert_int_equal(o.n_passed, 3);
    free(out);
    out = run(ext_handle_prioritize, s, body, strlen(body), now, 200, &o);
    assert_int_equal(o.pod_class, EXT_POD_INVALID_POD);
    free(out);
    free(body);
    /* A NUL character in a dagsched annotation ("\u0000" is valid JSON and the API server
     * accepts it) is the same kind of pod, not a malformed request. */
    const char *nul = "{\"metadata\":{\"name\":\"nul\",\"namespace\":\"batch\",\"uid\":\"u-nul\","
                      "\"resourceVersion\":\"3\",\"labels\":{\"dagsched.io/job\":\"etl\","
                      "\"dagsched.io/task\":\"nul\"},\"annotations\":{\"dagsched.io/runtime\":"
                      "\"1m\\u0000\"}},\"spec\":{}}";
    body = body_for(nul, "\"kwok-node-0\"");
    out = run(ext_handle_filter, s, body, strlen(body), now, 200, &o);
    assert_int_equal(o.pod_class, EXT_POD_INVALID_POD);
    assert_string_equal(o.note, "annotation dagsched.io/runtime: contains a NUL character");
    free(out);
    free(body);
    /* A Pod that no API server produces is still a bad request. */
    body = body_for("{\"metadata\":{\"namespace\":\"batch\"},\"spec\":{}}", "\"kwok-node-0\"");
    out = run(ext_handle_filter, s, body, strlen(body), now, 400, &o);
    assert_int_equal(o.kind, EXT_BAD_REQUEST);
    free(out);
    free(body);
    free(pod);
    ext_snapshot_unref(s);
    world_free(&w);
}

/* Filter pod `name` of namespace batch (uid u-NAME) over two nodes: the answer and the outcome. */
static char *filter_batch_pod(ext_snapshot *s, const char *name, double now, ext_outcome *o)
{
    char pod[256];
    snprintf(pod, sizeof pod,
             "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"batch\",\"uid\":\"u-%s\","
             "\"resourceVersion\":\"5\"},\"spec\":{}}",
             name, name);
    char *body = body_for(pod, "\"kwok-node-0\",\"kwok-node-1\"");
    char *out = run(ext_handle_filter, s, body, strlen(body), now, 200, o);
    free(body);
    return out;
}

static void add_batch_pod(world *w, const char *name, const char *job, const char *task,
                          const char *deps)
{
    char uid[64];
    snprintf(uid, sizeof uid, "u-%s", name);
    add_pod(w, &(fx_pod_spec){.ns = "batch",
                              .name = name,
                              .uid = uid,
                              .rv = "5",
                              .job = job,
                              .task = task,
                              .depends_on = deps,
                              .phase = "Pending",
                              .cpu = "100m"});
}

/* A pod of an invalid job that depends on other tasks gets no node (it could run before its
 * upstream tasks); a root task of the same job passes as a pod outside any DAG. */
static void test_invalid_job_holds_dependents(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Running");
    add_batch_pod(&w, "cyc-a", "cyc", "a", "b");
    add_batch_pod(&w, "cyc-b", "cyc", "b", "a");
    add_batch_pod(&w, "cyc-r", "cyc", "r", NULL);
    double now = at("2026-11-22T10:31:00Z");
    ext_snapshot *s = snap(&w, now);
    ext_outcome o;
    char *out = filter_batch_pod(s, "cyc-a", now, &o);
    assert_non_null(strstr(out, "\"NodeNames\":[]"));
    assert_non_null(strstr(out, "the pod may depend on other tasks and waits until the job is "
                                "fixed"));
    assert_non_null(strstr(out, "FailedAndUnresolvableNodes\":{\"kwok-node-0\""));
    assert_int_equal(o.pod_class, EXT_POD_HELD);
    assert_non_null(strstr(o.note, "job batch/cyc is invalid: "));
    assert_non_null(strstr(o.note, "cycle"));
    assert_non_null(o.pod);
    assert_string_equal(o.pod->meta.name, "cyc-a");
    ext_outcome_clear(&o);
    free(out);

    out = filter_batch_pod(s, "cyc-r", now, &o);
    assert_non_null(strstr(out, "\"NodeNames\":[\"kwok-node-0\",\"kwok-node-1\"]"));
    assert_int_equal(o.pod_class, EXT_POD_INVALID_JOB);
    ext_outcome_clear(&o);
    free(out);
    ext_snapshot_unref(s);
    world_free(&w);
}

/* Pods created downstream first (the webhook down: no gate): a task whose upstream task has no
 * pod yet gets no node, naming what it waits for. */
static void test_upstream_not_created_yet(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Running");
    add_batch_pod(&w, "x3", "chain", "x3", "x2");
    add_batch_pod(&w, "x2", "chain", "x2", "x1");
    double now = at("2026-11-22T10:31:00Z");
    ext_snapshot *s = snap(&w, now);
    ext_outcome o;
    char *out = filter_batch_pod(s, "x2", now, &o);
    assert_non_null(strstr(out, "\"NodeNames\":[]"));
    assert_non_null(strstr(out, "waiting for upstream tasks: x1 (not created yet)"));
    assert_int_equal(o.pod_class, EXT_POD_BLOCKED);
    ext_outcome_clear(&o);
    free(out);
    out = filter_batch_pod(s, "x3", now, &o);
    assert_non_null(strstr(out, "waiting for upstream tasks: x2"));
    assert_int_equal(o.pod_class, EXT_POD_BLOCKED);
    ext_outcome_clear(&o);
    free(out);
    ext_snapshot_unref(s);
    world_free(&w);

    /* The snapshot knows x1 only as x2's upstream task; x1's pod, newer than the snapshot,
     * depends on x0 (no pod either): it is held by its own annotation. */
    world_init(&w, "Running");
    add_batch_pod(&w, "x2", "chain", "x2", "x1");
    s = snap(&w, now);
    const char *pod = "{\"metadata\":{\"name\":\"x1\",\"namespace\":\"batch\",\"uid\":\"u-x1\","
                      "\"resourceVersion\":\"9\",\"labels\":{\"dagsched.io/job\":\"chain\","
                      "\"dagsched.io/task\":\"x1\"},\"annotations\":{\"dagsched.io/depends-on\":"
                      "\"x0\"}},\"spec\":{}}";
    char *body = body_for(pod, "\"kwok-node-0\",\"kwok-node-1\"");
    out = run(ext_handle_filter, s, body, strlen(body), now, 200, &o);
    assert_non_null(strstr(out, "\"NodeNames\":[]"));
    assert_non_null(strstr(out, "waiting for upstream tasks: x0"));
    assert_int_equal(o.pod_class, EXT_POD_BLOCKED);
    ext_outcome_clear(&o);
    free(out);
    free(body);
    ext_snapshot_unref(s);
    world_free(&w);
}

static void test_empty_nodes(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Succeeded");
    ext_snapshot *s = snap(&w, 0);
    ext_outcome o;
    char *out = run_file(ext_handle_filter, s, "filter_empty.json", 0, 200, &o);
    assert_string_equal(out, "{\"Nodes\":null,\"NodeNames\":[],\"FailedNodes\":{},"
                             "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    free(out);
    out = run_file(ext_handle_prioritize, s, "filter_empty.json", 0, 200, &o);
    assert_string_equal(out, "[]");
    free(out);
    ext_snapshot_unref(s);
    world_free(&w);
}

/* Victims: report-a (evictable, ran long) and report-b (started 40 s ago) on kwok-node-0, which
 * they fill; a kube-system pod on kwok-node-1. Room frees for a preemptor in 2 h at the earliest
 * (report-a's end). */
static void add_victims_sched(world *w, const char *victim_a_owner, const char *victim_b_sched)
{
    add_pod(w, &(fx_pod_spec){.owner_kind = victim_a_owner,
                              .ns = "batch",
                              .name = "report-a",
                              .uid = "uid-victim-a",
                              .job = "report",
                              .task = "a",
                              .runtime = "6h", /* at speed 2: 59 min done, 2 h left, the
                                                * first room to free: evicting it pays */
                              .node = "kwok-node-0",
                              .phase = "Running",
                              .cpu = "4",
                              .mem = "1Gi",
                              .created = "2026-11-22T10:00:00Z",
                              .started = "2026-11-22T10:00:00Z",
                              .extra_label_key = "tier",
                              .extra_label_value = "batch"});
    add_pod(w, &(fx_pod_spec){.ns = "batch",
                              .name = "report-b",
                              .uid = "uid-victim-b",
                              .job = "report",
                              .task = "b",
                              .runtime = "6h",
                              .node = "kwok-node-0",
                              .phase = "Running",
                              .cpu = "3800m",
                              .mem = "1Gi",
                              .created = "2026-11-22T10:58:00Z",
                              .started = "2026-11-22T10:58:00Z",
                              .scheduler = victim_b_sched});
    add_pod(w, &(fx_pod_spec){.ns = "kube-system",
                              .name = "dns",
                              .uid = "uid-victim-c",
                              .node = "kwok-node-1",
                              .phase = "Running",
                              .cpu = "7800m",
                              .mem = "1Gi",
                              .created = "2026-11-22T09:00:00Z",
                              .started = "2026-11-22T09:00:00Z"});
}

static void add_victims_owned(world *w, const char *victim_a_owner)
{
    add_victims_sched(w, victim_a_owner, NULL);
}

static void add_victims(world *w)
{
    add_victims_owned(w, NULL);
}

/* The preempt verb's world: the victims, and kwok-node-2's last 200m taken by a pod outside any
 * DAG, whose end is unknown, so that no node has room for the preemptor now. */
/* The victims (report-b of scheduler victim_b_sched: NULL for dagsched) and a kube-system pod. */
static void add_preempt_world_sched(world *w, const char *victim_b_sched)
{
    add_victims_sched(w, NULL, victim_b_sched);
    add_pod(w, &(fx_pod_spec){.ns = "kube-system",
                              .name = "logs",
                              .uid = "uid-logs",
                              .node = "kwok-node-2",
                              .phase = "Running",
                              .cpu = "200m",
                              .mem = "1Gi",
                              .created = "2026-11-22T09:00:00Z",
                              .started = "2026-11-22T09:00:00Z"});
}

static void add_preempt_world(world *w)
{
    add_preempt_world_sched(w, NULL);
}

/* A victim whose owner would not recreate it without failing is never evicted
 * (lib/owner_retry.h): a bare pod, a Job's pod (the extender does not watch Jobs). */
static void test_preempt_owner(void **state)
{
    (void)state;
    const char *owners[] = {"", "Job", "SomeOperatorKind"};
    for (size_t k = 0; k < sizeof owners / sizeof owners[0]; k++) {
        world w;
        world_init(&w, "Succeeded");
        add_victims_owned(&w, owners[k]);
        add_pod(&w, &(fx_pod_spec){.ns = "kube-system",
                                   .name = "logs",
                                   .uid = "uid-logs",
                                   .node = "kwok-node-2",
                                   .phase = "Running",
                                   .cpu = "200m",
                                   .mem = "1Gi",
                                   .created = "2026-11-22T09:00:00Z",
                                   .started = "2026-11-22T09:00:00Z"});
        double now = at("2026-11-22T10:58:40Z");
        ext_snapshot *s = snap(&w, now);
        ext_outcome o;
        char *out = run_file(ext_handle_preempt, s, "preempt_meta.json", now, 200, &o);
        assert_null(strstr(out, "uid-victim-a"));
        assert_int_equal(o.n_victims_kept, 0);
        assert_int_equal(o.victims_refused[DS_VICTIM_NOT_EVICTABLE], 2);
        free(out);
        ext_snapshot_unref(s);
        world_free(&w);
    }
}

/* A victim of another scheduler did not opt in: dagsched does not judge it (report-b, 40 s old,
 * would be too young for minRunTime as dagsched's), kube-scheduler's choice stands. */
static void test_preempt_other_scheduler_victim(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Succeeded");
    add_preempt_world_sched(&w, "default-scheduler");
    double now = at("2026-11-22T10:58:40Z");
    ext_snapshot *s = snap(&w, now);
    ext_outcome o;
    ctx_scheduler = "dagsched";
    char *out = run_file(ext_handle_preempt, s, "preempt_meta.json", now, 200, &o);
    ctx_scheduler = NULL;
    assert_string_equal(out, "{\"NodeNameToMetaVictims\":{\"kwok-node-0\":{\"Pods\":[{\"UID\":"
                             "\"uid-victim-a\"},{\"UID\":\"uid-victim-b\"}],"
                             "\"NumPDBViolations\":1}}}");
    assert_int_equal(o.victims_refused[DS_VICTIM_TOO_YOUNG], 0);
    free(out);
    ext_snapshot_unref(s);
    world_free(&w);
}

static void test_preempt(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Succeeded");
    add_preempt_world(&w);
    /* 10:58:40: transform has 80 s left for 90 s of work: urgent (t_allow <= 30 s). */
    double now = at("2026-11-22T10:58:40Z");
    ext_snapshot *s = snap(&w, now);
    ext_outcome o;
    char *out = run_file(ext_handle_preempt, s, "preempt_meta.json", now, 200, &o);
    assert_string_equal(out, "{\"NodeNameToMetaVictims\":{\"kwok-node-0\":{\"Pods\":[{\"UID\":"
                             "\"uid-victim-a\"}],\"NumPDBViolations\":1}}}");
    assert_string_equal(o.preemptor_mode, "urgent");
    assert_int_equal(o.n_victims_in, 3);
    assert_int_equal(o.n_victims_kept, 1);
    assert_int_equal(o.n_nodes_kept, 1);
    assert_int_equal(o.victims_refused[DS_VICTIM_TOO_YOUNG], 1);
    assert_int_equal(o.victims_refused[DS_VICTIM_NOT_EVICTABLE], 1);
    free(out);

    /* NodeNameToVictims with full Pods (nodeCacheCapable: false). */
    out = run_file(ext_handle_preempt, s, "preempt_full.json", now, 200, &o);
    assert_string_equal(out, "{\"NodeNameToMetaVictims\":{\"kwok-node-0\":{\"Pods\":[{\"UID\":"
                             "\"uid-victim-a\"}],\"NumPDBViolations\":0}}}");
    free(out);

    /* A victim the snapshot does not know, or not on the node named, is never evicted. */
    const char *pod = "{\"metadata\":{\"name\":\"web\",\"namespace\":\"default\",\"uid\":\"u-web\","
                      "\"resourceVersion\":\"1\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                      "\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}";
    char body[1024];
    snprintf(body, sizeof body,
             "{\"Pod\":%s,\"NodeNameToMetaVictims\":{\"kwok-node-1\":{\"Pods\":[{\"UID\":"
             "\"uid-victim-a\"}]},\"ghost\":{\"Pods\":[{\"UID\":\"x\"}]},\"kwok-node-0\":{"
             "\"Pods\":[{\"UID\":\"nope\"},{\"UID\":\"uid-victim-a\"}]}}}",
             pod);
    out = run(ext_handle_preempt, s, body, strlen(body), now, 200, &o);
    assert_string_equal(out, "{\"NodeNameToMetaVictims\":{\"kwok-node-0\":{\"Pods\":[{\"UID\":"
                             "\"uid-victim-a\"}],\"NumPDBViolations\":0}}}");
    assert_string_equal(o.preemptor_mode, "outside-dag");
    assert_int_equal(o.victims_refused[DS_VICTIM_UNKNOWN], 3);
    free(out);
    ext_snapshot_unref(s);
    world_free(&w);
}

/* The exchange rule on the preempt verb: with kwok-node-2 empty as the snapshot sees it (kube-
 * scheduler's view may lag behind), evicting report-a would save nothing. */
static void test_preempt_room_frees_anyway(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Succeeded");
    add_victims(&w);
    for (size_t i = 0; i < w.n_pods; i++)
        if (strcmp(w.pods[i]->meta.name, "filler") == 0) {
            kube_obj_unref(&w.pods[i]->meta);
            w.pods[i] = w.pods[--w.n_pods];
            break;
        }
    double now = at("2026-11-22T10:58:40Z");
    ext_snapshot *s = snap(&w, now);
    ext_outcome o;
    char *out = run_file(ext_handle_preempt, s, "preempt_meta.json", now, 200, &o);
    assert_string_equal(out, "{\"NodeNameToMetaVictims\":{}}");
    assert_string_equal(o.preemptor_mode, "urgent");
    assert_int_equal(o.victims_refused[DS_VICTIM_NO_PAYOFF], 1);
    free(out);
    ext_snapshot_unref(s);
    world_free(&w);
}

/* Who may preempt whom, and lost deadlines, on the preempt verb (lib/preempt_rules.h). The
 * preemptor (batch/etl-transform, Kubernetes priority 0) is offered report-a (batch) on
 * kwok-node-0 and report-c of namespace "other" (priority 0) on kwok-node-1. */
static void test_preempt_rules(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Succeeded");
    add_preempt_world(&w);
    add_pod(&w, &(fx_pod_spec){.ns = "other",
                               .name = "report-c",
                               .uid = "uid-victim-d",
                               .job = "report",
                               .task = "a",
                               .runtime = "4h",
                               .node = "kwok-node-0",
                               .phase = "Running",
                               .cpu = "100m",
                               .mem = "64Mi",
                               .created = "2026-11-22T10:00:00Z",
                               .started = "2026-11-22T10:00:00Z"});
    /* The recorded request's Pod, offered report-a and report-c, both on the fast kwok-node-0. */
    size_t n;
    char *rec = tu_read_data("preempt_meta.json", &n);
    char *cut = strstr(rec, ",\"NodeNameToMetaVictims\"");
    assert_non_null(cut);
    *cut = '\0';
    char req[8192];
    int len = snprintf(req, sizeof req,
                       "%s,\"NodeNameToMetaVictims\":{\"kwok-node-0\":{\"Pods\":[{\"UID\":"
                       "\"uid-victim-a\"},{\"UID\":\"uid-victim-d\"}],\"NumPDBViolations\":0}}}",
                       rec);
    free(rec);
    assert_true(len > 0 && (size_t)len < sizeof req);
    double now = at("2026-11-22T10:58:40Z");
    const char *only_a = "{\"NodeNameToMetaVictims\":{\"kwok-node-0\":{\"Pods\":[{\"UID\":"
                         "\"uid-victim-a\"}],\"NumPDBViolations\":0}}}";
    /* Default policy: report-c is in another namespace, which the policy does not trust. */
    ext_snapshot *s = snap(&w, now);
    ext_outcome o;
    char *out = run(ext_handle_preempt, s, req, (size_t)len, now, 200, &o);
    assert_string_equal(out, only_a);
    assert_string_equal(o.preemptor_mode, "urgent");
    assert_int_equal(o.victims_refused[DS_VICTIM_CROSS_NAMESPACE], 1);
    assert_int_equal(o.victims_refused[DS_VICTIM_UNKNOWN], 0);
    free(out);
    ext_snapshot_unref(s);
    /* batch trusted, but equal Kubernetes priority: still refused; allowed without the
     * strictly-higher rule. */
    w.policy.cross_ns_trusted.n = 1;
    strcpy(w.policy.cross_ns_trusted.name[0], "batch");
    s = snap(&w, now);
    out = run(ext_handle_preempt, s, req, (size_t)len, now, 200, &o);
    assert_int_equal(o.victims_refused[DS_VICTIM_CROSS_NAMESPACE], 1);
    free(out);
    ext_snapshot_unref(s);
    w.policy.cross_ns_require_higher = false;
    s = snap(&w, now);
    out = run(ext_handle_preempt, s, req, (size_t)len, now, 200, &o);
    assert_int_equal(o.victims_refused[DS_VICTIM_CROSS_NAMESPACE], 0);
    assert_int_equal(o.n_victims_kept, 2);
    free(out);
    ext_snapshot_unref(s);
    /* 11:05, five minutes after the deadline: still urgent, but no eviction can save it. */
    now = at("2026-11-22T11:05:00Z");
    s = snap(&w, now);
    out = run(ext_handle_preempt, s, req, (size_t)len, now, 200, &o);
    assert_string_equal(out, "{\"NodeNameToMetaVictims\":{}}");
    assert_string_equal(o.preemptor_mode, "urgent");
    assert_int_equal(o.victims_refused[DS_VICTIM_UNSAVABLE], 2);
    assert_int_equal(o.n_victims_kept, 0);
    free(out);
    ext_snapshot_unref(s);
    world_free(&w);
}

/* spec.preemption.namespaceSelector on the preempt verb: the kept victim (report-a, namespace
 * batch) stays only while its namespace is known and its labels match; with a podSelector too,
 * the pod must match both. */
static void test_preempt_namespace_selector(void **state)
{
    (void)state;
    world w;
    world_init(&w, "Succeeded");
    add_preempt_world(&w);
    double now = at("2026-11-22T10:58:40Z");
    const char *kept = "{\"NodeNameToMetaVictims\":{\"kwok-node-0\":{\"Pods\":[{\"UID\":"
                       "\"uid-victim-a\"}],\"NumPDBViolations\":1}}}";
    const char *none = "{\"NodeNameToMetaVictims\":{}}";
    struct {
        const char *ns_label_value; /* label team on namespace batch; NULL: no such label;
                                     * "-": namespace batch unknown */
        const char *ns_sel;         /* namespaceSelector team=...; NULL: none */
        const char *pod_sel;        /* podSelector tier=...; NULL: none */
        const char *want;
        size_t not_evictable; /* victims refused as not evictable (kube-system's dns always) */
    } cases[] = {
        {"-", NULL, NULL, kept, 1},       /* no selector: unknown namespaces do not matter */
        {"-", "ml", NULL, none, 3},       /* namespace not seen: not opted in */
        {NULL, "ml", NULL, none, 3},      /* namespace without the label */
        {"web", "ml", NULL, none, 3},     /* another value */
        {"ml", "ml", NULL, kept, 1},      /* selected (report-b: too young, not counted) */
        {"ml", "ml", "batch", kept, 2},   /* both match (report-a is labelled tier=batch) */
        {"ml", "ml", "service", none, 3}, /* namespace matches, pods do not */
        {"web", "ml", "batch", none, 3},  /* report-a matches, its namespace does not */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (size_t i = 0; i < w.n_namespaces; i++)
            kube_obj_unref(&w.namespaces[i]->meta);
        w.n_namespaces = 0;
        w.namespaces[w.n_namespaces++] = fx_namespace("kube-system", NULL, NULL);
        if (strcmp(cases[k].ns_label_value ? cases[k].ns_label_value : "", "-") != 0)
            w.namespaces[w.n_namespaces++] = fx_namespace(
                "batch", cases[k].ns_label_value ? "team" : NULL, cases[k].ns_label_value);
        memset(&w.policy.opt_in_namespace_selector, 0, sizeof w.policy.opt_in_namespace_selector);
        memset(&w.policy.opt_in_selector, 0, sizeof w.policy.opt_in_selector);
        if (cases[k].ns_sel != NULL) {
            w.policy.opt_in_namespace_selector.n = 1;
            strcpy(w.policy.opt_in_namespace_selector.key[0], "team");
            strcpy(w.policy.opt_in_namespace_selector.value[0], cases[k].ns_sel);
        }
        if (cases[k].pod_sel != NULL) {
            w.policy.opt_in_selector.n = 1;
            strcpy(w.policy.opt_in_selector.key[0], "tier");
            strcpy(w.policy.opt_in_selector.value[0], cases[k].pod_sel);
        }
        ext_snapshot *s = snap(&w, now);
        assert_int_equal(s->n_namespaces, w.n_namespaces);
        ext_outcome o;
        char *out = run_file(ext_handle_preempt, s, "preempt_meta.json", now, 200, &o);
        if (strcmp(out, cases[k].want) != 0)
            fail_msg("case %zu: got %s", k, out);
        assert_int_equal(o.victims_refused[DS_VICTIM_NOT_EVICTABLE], cases[k].not_evictable);
        free(out);
        ext_snapshot_unref(s);
    }
    ext_snapshot *s = snap(&w, now);
    assert_null(ext_snapshot_namespace(s, "default"));
    assert_null(ext_snapshot_namespace(s, NULL));
    const kube_namespace *batch_ns = ext_snapshot_namespace(s, "batch");
    assert_non_null(batch_ns);
    assert_string_equal(kube_meta_label(&batch_ns->meta, "team"), "web");
    ext_snapshot_unref(s);
    world_free(&w);
}

static void expect_400(verb_fn fn, const char *body, size_t len, const char *msg)
{
    world w;
    world_init(&w, "Running");
    ext_snapshot *s = snap(&w, 0);
    ext_outcome o;
    char *out = run(fn, s, body, len, 0, 400, &o);
    assert_int_equal(o.kind, EXT_BAD_REQUEST);
    assert_string_equal(o.error, msg);
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "Error")), msg);
    json_decref(j);
    free(out);
    ext_snapshot_unref(s);
    world_free(&w);
}

static void test_malformed_bodies(void **state)
{
    (void)state;
    expect_400(ext_handle_filter, "", 0, "request body is empty");
    expect_400(ext_handle_filter, "{\"Pod\":{}", 9,
               "invalid JSON at byte 9: unexpected end of input inside an object or array");
    expect_400(ext_handle_prioritize, "{\"NodeNames\":[]}", 16, "Pod: missing");
    expect_400(ext_handle_preempt, "[1]", 3, "request: expected a JSON object (got array)");
    const char *nospec = "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\","
                         "\"resourceVersion\":\"1\"}},\"NodeNames\":[]}";
    expect_400(ext_handle_filter, nospec, strlen(nospec), "Pod: pod n/p: spec: missing");
    const char *badq = "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\","
                       "\"resourceVersion\":\"1\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                       "\"resources\":{\"requests\":{\"cpu\":\"lots\"}}}]}},\"NodeNames\":[]}";
    ext_ctx c = ctx();
    ext_reply r;
    ext_outcome o;
    world w;
    world_init(&w, "Running");
    ext_snapshot *s = snap(&w, 0);
    /* A Pod past its metadata that dagsched cannot read is no bad request: it is answered as a
     * pod outside any DAG job (kube/objects.h, pod_over_bounds), naming the field when it carries
     * dagsched metadata. */
    ext_handle_filter(&c, s, badq, strlen(badq), 0, &r, &o);
    assert_int_equal(r.status, 200);
    assert_int_equal(o.pod_class, EXT_POD_OUTSIDE);
    free(r.body);
    ext_outcome_clear(&o);
    const char *badq_dag =
        "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"n\",\"resourceVersion\":\"1\","
        "\"labels\":{\"dagsched.io/job\":\"j\",\"dagsched.io/task\":\"t\"}},\"spec\":{"
        "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"lots\"}}}]}},"
        "\"NodeNames\":[\"kwok-node-0\"]}";
    ext_handle_filter(&c, s, badq_dag, strlen(badq_dag), 0, &r, &o);
    assert_int_equal(r.status, 200);
    assert_int_equal(o.pod_class, EXT_POD_INVALID_POD);
    assert_non_null(strstr(o.note, "spec.containers[0].resources.requests.cpu"));
    assert_non_null(strstr(r.body, "\"NodeNames\":[\"kwok-node-0\"]"));
    free(r.body);
    ext_outcome_clear(&o);

    /* Oversized for the configured limit. */
    c.limits.max_body = 100;
    size_t len;
    char *body = tu_read_data("filter_names.json", &len);
    ext_handle_filter(&c, s, body, len, 0, &r, &o);
    assert_int_equal(r.status, 400);
    char want[128];
    snprintf(want, sizeof want, "JSON document larger than 100 bytes (got %zu)", len);
    assert_string_equal(o.error, want);
    free(r.body);
    free(body);
    ext_snapshot_unref(s);
    world_free(&w);
}

/* Bodies recorded from kube-scheduler v1.32: the Pods are not in the snapshot and go through the
 * Kubernetes object decoder, exactly as the scheduler sent them. */
static void test_recorded_bodies(void **state)
{
    (void)state;
    ds_policy pol;
    ds_policy_defaults(&pol);
    const kube_node *nodes[] = {fx_node("dag-1", "8", "32Gi", "1"),
                                fx_node("dag-2", "8", "32Gi", "1"),
                                fx_node("pre-1", "2", "4Gi", "1")};
    const kube_pod *pods[] = {fx_pod(&(fx_pod_spec){.ns = "batch",
                                                    .name = "filler",
                                                    .uid = "71e8637a-2219-4365-be68-eecbae97bf78",
                                                    .node = "pre-1",
                                                    .phase = "Running",
                                                    .cpu = "1500m",
                                                    .mem = "1Gi",
                                                    .created = "2026-11-22T04:46:48Z",
                                                    .started = "2026-11-22T04:46:49Z",
                                                    .priority_class = "dagsched-test-low"})};
    ext_build_input in = {.nodes = nodes,
                          .n_nodes = 3,
                          .pods = pods,
                          .n_pods = 1,
                          .policy = &pol,
                          .policy_generation = 1};
    double now = at("2026-11-22T04:46:55Z");
    in.now = now;
    ext_snapshot *s;
    ds_err err;
    assert_int_equal(ext_snapshot_build(&in, &s, &err), 0);

    ext_outcome o;
    char *out = run_file(ext_handle_filter, s, "recorded_filter_names.json", now, 200, &o);
    assert_string_equal(out,
                        "{\"Nodes\":null,\"NodeNames\":[\"dag-1\",\"dag-2\"],\"FailedNodes\":{},"
                        "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    assert_int_equal(o.pod_class, EXT_POD_DAG); /* a root task, by its own annotations */
    assert_string_equal(o.pod_name, "etl-extract");
    free(out);
    out = run_file(ext_handle_filter, s, "recorded_filter_nodelist.json", now, 200, &o);
    json_error_t je;
    json_t *res = json_loads(out, 0, &je);
    assert_non_null(res);
    assert_int_equal(json_array_size(json_object_get(json_object_get(res, "Nodes"), "items")), 2);
    json_decref(res);
    free(out);

    /* The filler started 6 s ago: too young under the default minRunTime of 60 s. */
    out = run_file(ext_handle_preempt, s, "recorded_preempt_meta.json", now, 200, &o);
    assert_string_equal(out, "{\"NodeNameToMetaVictims\":{}}");
    assert_int_equal(o.victims_refused[DS_VICTIM_TOO_YOUNG], 1);
    free(out);
    ext_snapshot_unref(s);

    /* With minRunTime 0 it may go, and freeing its 1500m makes room for the 1-cpu pod. */
    pol.preemption.min_run_s = 0;
    assert_int_equal(ext_snapshot_build(&in, &s, &err), 0);
    const char *files[] = {"recorded_preempt_meta.json", "recorded_preempt_full.json"};
    for (int f = 0; f < 2; f++) {
        out = run_file(ext_handle_preempt, s, files[f], now, 200, &o);
        assert_string_equal(out,
                            "{\"NodeNameToMetaVictims\":{\"pre-1\":{\"Pods\":[{\"UID\":"
                            "\"71e8637a-2219-4365-be68-eecbae97bf78\"}],\"NumPDBViolations\":0}}}");
        assert_string_equal(o.pod_name, "urgent");
        free(out);
    }
    ext_snapshot_unref(s);
    for (int i = 0; i < 3; i++)
        kube_obj_unref(&nodes[i]->meta);
    kube_obj_unref(&pods[0]->meta);
}

/* A node without cpu and memory (allocatable 0, as a node that reports nothing yet) next to a full
 * one: Eq. 1 gives it 0, and its speed is the reference 1.0, as the controller has it. */
static void test_zero_node_speed_is_reference(void **state)
{
    (void)state;
    ds_policy pol;
    ds_policy_defaults(&pol);
    const kube_node *nodes[] = {fx_node("full", "8", "32Gi", NULL),
                                fx_node("empty", "0", "0", NULL)};
    ext_build_input in = {.nodes = nodes, .n_nodes = 2, .policy = &pol, .policy_generation = 1};
    ext_snapshot *s;
    ds_err err;
    assert_int_equal(ext_snapshot_build(&in, &s, &err), 0);
    assert_true(ext_snapshot_node(s, "full")->view.speed == 1.0);
    assert_true(ext_snapshot_node(s, "empty")->view.speed == 1.0);
    ext_snapshot_unref(s);
    for (int i = 0; i < 2; i++)
        kube_obj_unref(&nodes[i]->meta);
}

/* The request's Pod is decoded with the snapshot policy's gpuResourceNames, as the cached pods
 * are: with example.com/gpu listed, a pod asking for one does not fit a node without GPUs. */
static void test_request_pod_uses_policy_gpu_names(void **state)
{
    (void)state;
    ds_policy pol;
    ds_policy_defaults(&pol);
    pol.gpu_resource_names.n = 1;
    snprintf(pol.gpu_resource_names.name[0], sizeof pol.gpu_resource_names.name[0], "%s",
             "example.com/gpu");
    const kube_node *nodes[] = {fx_node("cpu-1", "8", "32Gi", NULL)};
    ext_build_input in = {.nodes = nodes, .n_nodes = 1, .policy = &pol, .policy_generation = 2};
    ext_snapshot *s;
    ds_err err;
    assert_int_equal(ext_snapshot_build(&in, &s, &err), 0);
    const char *pod = "{\"metadata\":{\"name\":\"train\",\"namespace\":\"ml\",\"uid\":\"u-t\","
                      "\"resourceVersion\":\"3\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                      "\"image\":\"x\",\"resources\":{\"requests\":{\"cpu\":\"1\","
                      "\"example.com/gpu\":\"1\"}}}]}}";
    char *body = body_for(pod, "\"cpu-1\"");
    ext_outcome o;
    char *out = run(ext_handle_filter, s, body, strlen(body), 0, 200, &o);
    assert_string_equal(out, "{\"Nodes\":null,\"NodeNames\":[],\"FailedNodes\":{\"cpu-1\":"
                             "\"dagsched: insufficient gpu (requested 1, free 0)\"},"
                             "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    free(out);
    free(body);
    ext_outcome_clear(&o);
    ext_snapshot_unref(s);
    kube_obj_unref(&nodes[0]->meta);
}

static void test_floor(void **state)
{
    (void)state;
    ext_ctx c = ctx();
    size_t len;
    char *body = tu_read_data("filter_names.json", &len);
    ext_reply r;
    ext_outcome o;
    ext_handle_floor_filter(&c, body, len, &r, &o);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{\"Nodes\":null,\"NodeNames\":[\"kwok-node-0\",\"kwok-node-1\","
                                "\"kwok-node-2\"],\"FailedNodes\":{},"
                                "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    free(r.body);
    ext_handle_floor_prioritize(&c, body, len, &r, &o);
    assert_string_equal(r.body, "[{\"Host\":\"kwok-node-0\",\"Score\":5},{\"Host\":\"kwok-node-1\","
                                "\"Score\":5},{\"Host\":\"kwok-node-2\",\"Score\":5}]");
    free(r.body);
    free(body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_ready),
        cmocka_unit_test(test_zero_node_speed_is_reference),
        cmocka_unit_test(test_request_pod_uses_policy_gpu_names),
        cmocka_unit_test(test_blocked_task_both_casings),
        cmocka_unit_test(test_live_caches_ahead_of_snapshot),
        cmocka_unit_test(test_runnable_deadline_and_fit),
        cmocka_unit_test(test_outside_dag_and_unknown_nodes),
        cmocka_unit_test(test_packing_prefers_complementary_node),
        cmocka_unit_test(test_pod_unknown_to_snapshot),
        cmocka_unit_test(test_invalid_job_holds_dependents),
        cmocka_unit_test(test_upstream_not_created_yet),
        cmocka_unit_test(test_over_limit_annotation_passes_through),
        cmocka_unit_test(test_empty_nodes),
        cmocka_unit_test(test_preempt),
        cmocka_unit_test(test_preempt_owner),
        cmocka_unit_test(test_filter_held_room),
        cmocka_unit_test(test_filter_gang_hold),
        cmocka_unit_test(test_filter_upcoming_room),
        cmocka_unit_test(test_filter_upcoming_siblings_share_the_freed_room),
        cmocka_unit_test(test_other_scheduler_outside_dag),
        cmocka_unit_test(test_preempt_other_scheduler_victim),
        cmocka_unit_test(test_preempt_namespace_selector),
        cmocka_unit_test(test_preempt_rules),
        cmocka_unit_test(test_preempt_room_frees_anyway),
        cmocka_unit_test(test_malformed_bodies),
        cmocka_unit_test(test_recorded_bodies),
        cmocka_unit_test(test_floor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
