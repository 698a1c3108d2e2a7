/* test_objects.c: decoding of cached objects (pod requests as the scheduler computes them, node
 * allocatable and readiness, ConfigMap data, PDB selectors, Job status, Namespace labels), their
 * bounds and error messages, and the cache with its indexes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "kutil.h"
#include "objects.h"

static const char *const gpus[] = {"nvidia.com/gpu"};
static const kube_decode_opts dopts = {.gpu_names = gpus, .n_gpu_names = 1};

static kube_meta *decode_ok(kube_kind kind, const char *text)
{
    json_error_t jerr;
    json_t *j = json_loads(text, JSON_ALLOW_NUL, &jerr);
    if (j == NULL)
        fail_msg("bad test JSON: %s", jerr.text);
    kube_meta *m = NULL;
    ds_err err = {{0}};
    if (kube_obj_decode(kind, j, &dopts, &m, &err) != 0)
        fail_msg("decode: %s", err.msg);
    json_decref(j);
    return m;
}

static void decode_fails(kube_kind kind, const char *text, const char *message)
{
    json_error_t jerr;
    json_t *j = json_loads(text, JSON_ALLOW_NUL, &jerr);
    if (j == NULL)
        fail_msg("bad test JSON: %s", jerr.text);
    kube_meta *m = NULL;
    ds_err err = {{0}};
    assert_int_equal(kube_obj_decode(kind, j, &dopts, &m, &err), -1);
    assert_null(m);
    assert_string_equal(err.msg, message);
    json_decref(j);
}

/* A pod that fails its full decoding after its metadata (pod_over_bounds in objects.c): it still
 * decodes, identified, without its placement constraints, with dagsched_error `why` (NULL: none,
 * for a pod without dagsched metadata or gate). */
static kube_pod *decode_degraded(const char *text, const char *why)
{
    kube_pod *p = (kube_pod *)decode_ok(KUBE_KIND_POD, text);
    assert_non_null(p->meta.name);
    assert_non_null(p->meta.ns);
    assert_int_equal(p->n_tolerations, 0);
    assert_int_equal(p->n_node_selector, 0);
    assert_null(p->job_key);
    assert_null(p->task_name);
    if (why == NULL)
        assert_null(p->meta.dagsched_error);
    else
        assert_string_equal(p->meta.dagsched_error, why);
    return p;
}

static const char *const pod_json =
    "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"etl-a\",\"namespace\":\"batch\",\"uid\":\"u-1\","
    "\"resourceVersion\":\"42\",\"creationTimestamp\":\"2026-11-22T10:00:00Z\","
    "\"deletionTimestamp\":\"2026-11-22T10:05:00Z\","
    "\"labels\":{\"dagsched.io/job\":\"etl\",\"dagsched.io/task\":\"a\",\"app\":\"x\"},"
    "\"annotations\":{\"dagsched.io/runtime\":\"90s\",\"other.io/big\":\"ignored\"},"
    "\"ownerReferences\":[{\"kind\":\"ReplicaSet\",\"name\":\"not-controller\",\"uid\":\"r\"},"
    "{\"kind\":\"Job\",\"name\":\"etl-a\",\"uid\":\"j-1\",\"controller\":true}]},"
    "\"spec\":{\"nodeName\":\"n1\",\"priorityClassName\":\"batch-low\",\"priority\":-5,"
    "\"schedulingGates\":[{\"name\":\"dagsched.io/dependencies\"},{\"name\":\"other\"}],"
    "\"containers\":["
    "{\"name\":\"c1\",\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":\"1Gi\","
    "\"ephemeral-storage\":\"1Gi\",\"hugepages-2Mi\":\"2Mi\"},\"limits\":{\"cpu\":\"8\"}}},"
    "{\"name\":\"c2\",\"resources\":{\"requests\":{\"cpu\":\"250m\",\"memory\":\"256Mi\","
    "\"nvidia.com/gpu\":\"1\"}}}],"
    "\"initContainers\":["
    "{\"name\":\"i1\",\"resources\":{\"requests\":{\"cpu\":\"2\",\"memory\":\"512Mi\"}}},"
    "{\"name\":\"s1\",\"restartPolicy\":\"Always\",\"resources\":{\"requests\":"
    "{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}},"
    "{\"name\":\"i2\",\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"3Gi\"}}}],"
    "\"overhead\":{\"cpu\":\"50m\",\"memory\":\"10Mi\"}},"
    "\"status\":{\"phase\":\"Running\",\"startTime\":\"2026-11-22T10:01:00Z\"}}";

static void test_pod(void **state)
{
    (void)state;
    kube_meta *m = decode_ok(KUBE_KIND_POD, pod_json);
    kube_pod *p = (kube_pod *)m;
    assert_int_equal(m->kind, KUBE_KIND_POD);
    assert_string_equal(m->ns, "batch");
    assert_string_equal(m->name, "etl-a");
    assert_string_equal(m->uid, "u-1");
    assert_string_equal(m->resource_version, "42");
    assert_true(m->creation_ts == 1795341600.0);
    assert_true(m->deleting);
    assert_int_equal(m->n_labels, 3);
    assert_string_equal(kube_meta_label(m, "app"), "x");
    assert_int_equal(m->n_annotations, 1);
    assert_string_equal(kube_meta_annotation(m, "dagsched.io/runtime"), "90s");
    assert_null(kube_meta_annotation(m, "other.io/big"));
    assert_string_equal(p->node_name, "n1");
    assert_int_equal(p->phase, KUBE_POD_RUNNING);
    assert_true(p->start_time == 1795341660.0);
    assert_string_equal(p->priority_class, "batch-low");
    assert_true(p->has_priority);
    assert_int_equal(p->priority, -5);
    assert_int_equal(p->n_gates, 2);
    assert_string_equal(p->gates[0], "dagsched.io/dependencies");
    assert_string_equal(p->gates[1], "other");
    assert_string_equal(p->owner_kind, "Job");
    assert_string_equal(p->owner_name, "etl-a");
    assert_string_equal(p->owner_uid, "j-1");
    assert_string_equal(p->job_key, "etl");
    assert_string_equal(p->task_name, "a");
    /* containers: cpu 750m, mem 1Gi+256Mi; sidecar s1 adds 100m/64Mi -> 850m, 1344Mi;
     * init max: i1 = 2000m/512Mi, i2 with the sidecar = 1100m/3Gi+64Mi;
     * max -> 2000m, 3136Mi; + overhead 50m/10Mi -> 2050m, 3146Mi = 3298820096 bytes. */
    assert_int_equal(p->requests.v[DS_RES_CPU], 2050);
    assert_int_equal(p->requests.v[DS_RES_MEMORY], 3298820096LL);
    assert_int_equal(p->requests.v[DS_RES_EPHEMERAL], 1073741824LL);
    assert_int_equal(p->requests.v[DS_RES_GPU], 1);
    /* One allocation holding everything: the strings live inside it. */
    assert_true((const char *)m->name > (const char *)m &&
                (const char *)m->name < (const char *)m + m->alloc_bytes);
    assert_true((const char *)p->gates > (const char *)m &&
                (const char *)p->gates < (const char *)m + m->alloc_bytes);
    const kube_meta *r = kube_obj_ref(m);
    kube_obj_unref(m);
    assert_string_equal(r->name, "etl-a");
    kube_obj_unref(r);
}

static void test_pod_minimal_and_argo(void **state)
{
    (void)state;
    kube_meta *m = decode_ok(
        KUBE_KIND_POD,
        "{\"metadata\":{\"name\":\"w\",\"namespace\":\"a\",\"resourceVersion\":\"1\","
        "\"labels\":{\"workflows.argoproj.io/workflow\":\"wf1\"}},\"spec\":{\"containers\":[]}}");
    kube_pod *p = (kube_pod *)m;
    assert_null(p->node_name);
    assert_int_equal(p->phase, KUBE_POD_PENDING);
    assert_false(p->has_priority);
    assert_string_equal(p->job_key, "wf1");
    assert_null(p->task_name);
    assert_null(p->owner_kind);
    assert_null(m->uid);
    assert_false(m->deleting);
    assert_true(ds_res_is_zero(&p->requests));
    kube_obj_unref(m);
}

/* Scheduling facts the controller reads: PodScheduled=False/Unschedulable, container finish
 * times, the mirror annotation, node selector and tolerations; node taints. */
static void test_pod_node_scheduling_facts(void **state)
{
    (void)state;
    kube_meta *m =
        decode_ok(KUBE_KIND_POD,
                  "{\"metadata\":{\"name\":\"w\",\"namespace\":\"a\",\"resourceVersion\":\"1\","
                  "\"annotations\":{\"kubernetes.io/config.mirror\":\"x\"}},"
                  "\"spec\":{\"containers\":[],\"nodeSelector\":{\"zone\":\"b\"},"
                  "\"tolerations\":[{\"key\":\"gpu\",\"operator\":\"Equal\",\"value\":\"true\","
                  "\"effect\":\"NoSchedule\"},{\"operator\":\"Exists\"}]},"
                  "\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":\"PodScheduled\","
                  "\"status\":\"False\",\"reason\":\"Unschedulable\","
                  "\"lastTransitionTime\":\"2026-11-22T10:00:05Z\"}],"
                  "\"containerStatuses\":[{\"state\":{\"terminated\":{\"finishedAt\":"
                  "\"2026-11-22T10:00:07Z\"}}},{\"state\":{\"terminated\":{\"finishedAt\":"
                  "\"2026-11-22T10:00:09Z\"}}}]}}");
    kube_pod *p = (kube_pod *)m;
    assert_true(p->unschedulable);
    assert_true(p->unschedulable_since == 1795341605.0);
    assert_true(p->finished_at == 1795341609.0);
    assert_true(p->mirror);
    assert_int_equal(p->n_node_selector, 1);
    assert_string_equal(p->node_selector[0].key, "zone");
    assert_string_equal(p->node_selector[0].value, "b");
    assert_int_equal(p->n_tolerations, 2);
    assert_string_equal(p->tolerations[0].key, "gpu");
    assert_false(p->tolerations[0].op_exists);
    assert_string_equal(p->tolerations[0].value, "true");
    assert_string_equal(p->tolerations[0].effect, "NoSchedule");
    assert_null(p->tolerations[1].key);
    assert_true(p->tolerations[1].op_exists);
    assert_null(p->tolerations[1].effect);
    kube_obj_unref(m);

    /* Scheduled: not unschedulable. */
    m = decode_ok(KUBE_KIND_POD,
                  "{\"metadata\":{\"name\":\"w\",\"namespace\":\"a\",\"resourceVersion\":\"1\"},"
                  "\"spec\":{\"containers\":[]},\"status\":{\"conditions\":[{\"type\":"
                  "\"PodScheduled\",\"status\":\"True\"}]}}");
    assert_false(((kube_pod *)m)->unschedulable);
    assert_false(((kube_pod *)m)->mirror);
    kube_obj_unref(m);
    kube_obj_unref(&decode_degraded(
                        "{\"metadata\":{\"name\":\"w\",\"namespace\":\"a\",\"resourceVersion\":"
                        "\"1\",\"labels\":{\"dagsched.io/job\":\"j\"}},\"spec\":{\"containers\":[],"
                        "\"tolerations\":[{\"key\":\"k\",\"operator\":\"Gt\"}]}}",
                        "spec.tolerations[0].operator: must be Exists or Equal (got \"Gt\")")
                        ->meta);

    m = decode_ok(KUBE_KIND_NODE,
                  "{\"metadata\":{\"name\":\"n1\",\"resourceVersion\":\"1\"},\"spec\":{\"taints\":"
                  "[{\"key\":\"gpu\",\"value\":\"true\",\"effect\":\"NoSchedule\"},"
                  "{\"key\":\"node.kubernetes.io/not-ready\",\"effect\":\"NoExecute\"}]}}");
    kube_node *n = (kube_node *)m;
    assert_int_equal(n->n_taints, 2);
    assert_string_equal(n->taints[0].key, "gpu");
    assert_string_equal(n->taints[0].value, "true");
    assert_string_equal(n->taints[0].effect, "NoSchedule");
    assert_null(n->taints[1].value);
    assert_string_equal(n->taints[1].effect, "NoExecute");
    kube_obj_unref(m);
}

static void test_pod_errors(void **state)
{
    (void)state;
    decode_fails(KUBE_KIND_POD, "[]", "pod: not a JSON object");
    decode_fails(KUBE_KIND_POD, "{\"spec\":{}}", "pod: metadata: missing");
    decode_fails(KUBE_KIND_POD, "{\"metadata\":{\"namespace\":\"a\"}}",
                 "pod: metadata.name: missing");
    decode_fails(KUBE_KIND_POD, "{\"metadata\":{\"name\":\"p\",\"resourceVersion\":\"1\"}}",
                 "pod p: metadata.namespace: missing");
    /* Past its metadata a pod is never rejected: decoded far enough to be left alone. */
    kube_pod *p = decode_degraded(
        "{\"metadata\":{\"name\":\"p\",\"namespace\":\"a\",\"resourceVersion\":\"1\","
        "\"labels\":{\"dagsched.io/job\":\"j\"}},\"spec\":{\"containers\":[{\"resources\":"
        "{\"requests\":{\"cpu\":\"lots\"}}}]}}",
        "spec.containers[0].resources.requests.cpu: quantity \"lots\": unexpected 'l' at offset 0 "
        "(expected e.g. \"100m\", \"1.5\", \"2Gi\" or \"1e3\")");
    assert_int_equal(p->requests.v[DS_RES_CPU], 0); /* unknown: takes no room */
    kube_obj_unref(&p->meta);
    decode_fails(KUBE_KIND_POD,
                 "{\"metadata\":{\"name\":\"p\",\"namespace\":\"a\",\"resourceVersion\":\"1\","
                 "\"labels\":{\"k\":7}},\"spec\":{}}",
                 "pod a/p: metadata.labels[\"k\"]: must be a string");
    decode_fails(KUBE_KIND_POD,
                 "{\"metadata\":{\"name\":\"p\",\"namespace\":\"a\",\"resourceVersion\":\"1\","
                 "\"creationTimestamp\":\"yesterday\"},\"spec\":{}}",
                 "pod a/p: metadata.creationTimestamp: timestamp \"yesterday\": expected RFC "
                 "3339 form YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)");
    /* Without dagsched metadata or gate, nothing is said of it. */
    kube_obj_unref(
        &decode_degraded("{\"metadata\":{\"name\":\"p\",\"namespace\":\"a\",\"resourceVersion\":"
                         "\"1\"},\"spec\":{\"priority\":\"high\"}}",
                         NULL)
             ->meta);
    /* No spec at all: nothing to go by. */
    decode_fails(KUBE_KIND_POD,
                 "{\"metadata\":{\"name\":\"p\",\"namespace\":\"a\",\"resourceVersion\":\"1\"}}",
                 "pod a/p: spec: missing");
}

/* An object's JSON with the given labels and annotations (JSON map bodies, without braces) and
 * a pod spec requesting 1 cpu; kind "Pod" or "Job". malloc'd. */
static char *with_meta(const char *kind, const char *labels, const char *annotations)
{
    size_t len = strlen(labels) + strlen(annotations) + 512;
    char *t = malloc(len);
    assert_non_null(t);
    snprintf(t, len,
             "{\"kind\":\"%s\",\"metadata\":{\"name\":\"p\",\"namespace\":\"a\",\"uid\":\"u\","
             "\"resourceVersion\":\"1\",\"labels\":{%s},\"annotations\":{%s}},"
             "\"spec\":{\"schedulingGates\":[{\"name\":\"dagsched.io/dependencies\"}],"
             "\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}",
             kind, labels, annotations);
    return t;
}

/* n map entries "<prefix><i>":"<value>" separated by commas. malloc'd. */
static char *entries(const char *prefix, int n, const char *value)
{
    size_t len = (size_t)n * (strlen(prefix) + strlen(value) + 16) + 1;
    char *t = malloc(len);
    assert_non_null(t);
    size_t at = 0;
    t[0] = '\0';
    for (int i = 0; i < n; i++)
        at +=
            (size_t)snprintf(t + at, len - at, "%s\"%s%d\":\"%s\"", i ? "," : "", prefix, i, value);
    return t;
}

/* A string of n copies of "a,". malloc'd. */
static char *long_list(size_t n)
{
    char *t = malloc(2 * n + 1);
    assert_non_null(t);
    for (size_t i = 0; i < n; i++)
        memcpy(t + 2 * i, "a,", 2);
    t[2 * n] = '\0';
    return t;
}

/* Decode a pod (or Job) that must decode; check its dagsched_error (NULL: none). */
static kube_meta *decode_meta_case(const char *kind_name, const char *labels,
                                   const char *annotations, const char *dagsched_error)
{
    char *t = with_meta(kind_name, labels, annotations);
    kube_meta *m = decode_ok(strcmp(kind_name, "Job") == 0 ? KUBE_KIND_JOB : KUBE_KIND_POD, t);
    free(t);
    if (dagsched_error == NULL)
        assert_null(m->dagsched_error);
    else
        assert_string_equal(m->dagsched_error, dagsched_error);
    return m;
}

/* Labels and dagsched.io/ annotations beyond dagsched's bounds, which the API server accepts: the
 * pod is still decoded, without the map concerned, outside any DAG job, with the reason. */
static void test_pod_dagsched_over_limits(void **state)
{
    (void)state;
    const char *dag = "\"dagsched.io/job\":\"etl\",\"dagsched.io/task\":\"b\",\"app\":\"x\"";
    /* A depends-on of 200 KiB (the API server accepts 256 KiB of annotations). */
    char *dep = long_list(102400);
    size_t alen = strlen(dep) + 128;
    char *ann = malloc(alen);
    assert_non_null(ann);
    snprintf(ann, alen, "\"dagsched.io/runtime\":\"1m\",\"dagsched.io/depends-on\":\"%s\"", dep);
    kube_meta *m = decode_meta_case("Pod", dag, ann,
                                    "annotation dagsched.io/depends-on: 204800 bytes, "
                                    "limit 65536");
    kube_pod *p = (kube_pod *)m;
    assert_null(p->job_key);
    assert_null(p->task_name);
    assert_int_equal(m->n_annotations, 0);
    assert_int_equal(m->n_labels, 3); /* labels are within their bounds: kept */
    assert_string_equal(kube_meta_label(m, "app"), "x");
    assert_int_equal(p->requests.v[DS_RES_CPU], 1000);
    assert_int_equal(p->n_gates, 1);
    kube_obj_unref(m);
    /* The same on a batch Job. */
    m = decode_meta_case("Job", dag, ann,
                         "annotation dagsched.io/depends-on: 204800 bytes, limit 65536");
    assert_int_equal(m->n_annotations, 0);
    kube_obj_unref(m);
    free(ann);
    free(dep);

    /* 257 labels, one of them dagsched's. */
    char *many = entries("l", KUBE_OBJ_MAX_LABELS, "v");
    size_t llen = strlen(many) + 64;
    char *labels = malloc(llen);
    assert_non_null(labels);
    snprintf(labels, llen, "%s,\"dagsched.io/job\":\"etl\"", many);
    m = decode_meta_case("Pod", labels, "\"dagsched.io/runtime\":\"1m\"", "257 labels, limit 256");
    assert_int_equal(m->n_labels, 0);
    assert_null(((kube_pod *)m)->job_key);
    kube_obj_unref(m);
    /* 257 labels on a pod without dagsched metadata: decoded without labels, no error. */
    snprintf(labels, llen, "%s,\"app\":\"x\"", many);
    m = decode_meta_case("Pod", labels, "\"other.io/a\":\"b\"", NULL);
    assert_int_equal(m->n_labels, 0);
    kube_obj_unref(m);
    free(labels);
    free(many);

    /* 257 dagsched.io/ annotations. */
    many = entries("dagsched.io/x", KUBE_OBJ_MAX_ANNOTATIONS + 1, "v");
    m = decode_meta_case("Pod", "", many, "257 dagsched.io/ annotations, limit 256");
    kube_obj_unref(m);
    free(many);
    /* Five annotations of 60,000 bytes: each within 64 KiB, 300,050 bytes in all. */
    char *v = malloc(60001);
    assert_non_null(v);
    memset(v, 'x', 60000);
    v[60000] = '\0';
    many = entries("dagsched.io/x", 5, v);
    m = decode_meta_case("Pod", dag, many,
                         "dagsched.io/ annotations: 300070 bytes in all, limit 262144");
    kube_obj_unref(m);
    free(many);
    free(v);
    /* A NUL character in a value. */
    m = decode_meta_case("Pod", dag, "\"dagsched.io/runtime\":\"1m\\u0000\"",
                         "annotation dagsched.io/runtime: contains a NUL character");
    kube_obj_unref(m);
    /* Annotations without the dagsched.io/ prefix are not dagsched's: no bound applies. */
    v = malloc(200001);
    assert_non_null(v);
    memset(v, 'x', 200000);
    v[200000] = '\0';
    many = entries("other.io/x", 1, v);
    m = decode_meta_case("Pod", dag, many, NULL);
    assert_string_equal(((kube_pod *)m)->job_key, "etl");
    kube_obj_unref(m);
    free(many);
    free(v);

    /* Other kinds still reject what is beyond the bounds; so do maps of the wrong shape. */
    many = entries("l", KUBE_OBJ_MAX_LABELS + 1, "v");
    size_t nlen = strlen(many) + 256;
    char *node = malloc(nlen);
    assert_non_null(node);
    snprintf(node, nlen,
             "{\"metadata\":{\"name\":\"n\",\"resourceVersion\":\"1\",\"labels\":{%s}}}", many);
    decode_fails(KUBE_KIND_NODE, node,
                 "node n: metadata.labels: too many entries (got 257, limit 256)");
    free(node);
    free(many);
    decode_fails(KUBE_KIND_POD,
                 "{\"metadata\":{\"name\":\"p\",\"namespace\":\"a\",\"resourceVersion\":\"1\","
                 "\"annotations\":{\"dagsched.io/runtime\":7}},\"spec\":{}}",
                 "pod a/p: metadata.annotations[\"dagsched.io/runtime\"]: must be a string");
}

/* A pod with the given spec.affinity JSON (or none). */
static kube_pod *pod_with_affinity(const char *affinity)
{
    size_t len = (affinity ? strlen(affinity) : 0) + 256;
    char *text = malloc(len);
    assert_non_null(text);
    snprintf(text, len,
             "{\"metadata\":{\"name\":\"w\",\"namespace\":\"a\",\"resourceVersion\":\"1\"},"
             "\"spec\":{\"containers\":[]%s%s}}",
             affinity ? ",\"affinity\":" : "", affinity ? affinity : "");
    kube_pod *p = (kube_pod *)decode_ok(KUBE_KIND_POD, text);
    free(text);
    return p;
}

static const char *label_of(const void *ctx, const char *key)
{
    const kube_kv *kv = ctx;
    for (; kv->key != NULL; kv++)
        if (strcmp(kv->key, key) == 0)
            return kv->value;
    return NULL;
}

static void test_pod_required_affinity(void **state)
{
    (void)state;
    kube_pod *p = pod_with_affinity(
        "{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
        "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"pool\",\"operator\":\"In\","
        "\"values\":[\"fast\",\"gpu\"]},{\"key\":\"gen\",\"operator\":\"Gt\",\"values\":[\"3\"]}]},"
        "{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\","
        "\"values\":[\"n9\"]}]}]},"
        "\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":1,\"preference\":"
        "{\"matchExpressions\":[{\"key\":\"x\",\"operator\":\"Exists\"}]}}]}}");
    assert_true(p->has_required_affinity);
    assert_null(p->affinity_error);
    const ds_node_selector *sel = &p->required_affinity;
    assert_int_equal(sel->n_terms, 2);
    assert_int_equal(sel->terms[0].n_match_expressions, 2);
    assert_int_equal(sel->terms[0].n_match_fields, 0);
    assert_string_equal(sel->terms[0].match_expressions[0].key, "pool");
    assert_int_equal(sel->terms[0].match_expressions[0].op, DS_NSEL_IN);
    assert_int_equal(sel->terms[0].match_expressions[0].n_values, 2);
    assert_string_equal(sel->terms[0].match_expressions[0].values[1], "gpu");
    assert_int_equal(sel->terms[0].match_expressions[1].op, DS_NSEL_GT);
    assert_string_equal(sel->terms[0].match_expressions[1].values[0], "3");
    assert_int_equal(sel->terms[1].n_match_expressions, 0);
    assert_int_equal(sel->terms[1].n_match_fields, 1);
    assert_string_equal(sel->terms[1].match_fields[0].key, "metadata.name");
    assert_string_equal(sel->terms[1].match_fields[0].values[0], "n9");
    /* Everything lives in the object's single allocation. */
    const char *base = (const char *)p, *end = base + p->meta.alloc_bytes;
    const char *k = sel->terms[0].match_expressions[1].values[0];
    assert_true(k >= base && k < end);
    assert_true((const char *)sel->terms >= base && (const char *)sel->terms < end);
    /* Matching: term 0 on a fast gen-4 node, term 1 on node n9, neither elsewhere. */
    const kube_kv fast4[] = {{"pool", "fast"}, {"gen", "4"}, {NULL, NULL}};
    const kube_kv fast3[] = {{"pool", "fast"}, {"gen", "3"}, {NULL, NULL}};
    ds_nsel_node a = {.name = "n1", .label = label_of, .ctx = fast4};
    ds_nsel_node b = {.name = "n1", .label = label_of, .ctx = fast3};
    ds_nsel_node c = {.name = "n9", .label = label_of, .ctx = fast3};
    assert_true(ds_node_selector_matches(sel, &a));
    assert_false(ds_node_selector_matches(sel, &b));
    assert_true(ds_node_selector_matches(sel, &c));
    kube_obj_unref(&p->meta);

    /* Absent at every level, or only preferred: no required affinity. */
    const char *none[] = {
        NULL,
        "null",
        "{}",
        "{\"nodeAffinity\":null}",
        "{\"podAntiAffinity\":{}}",
        "{\"nodeAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[]}}"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        p = pod_with_affinity(none[i]);
        assert_false(p->has_required_affinity);
        assert_null(p->affinity_error);
        assert_int_equal(p->required_affinity.n_terms, 0);
        kube_obj_unref(&p->meta);
    }
    /* Present without terms (or with a null term): valid, and matches no node. */
    p = pod_with_affinity("{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
                          "{\"nodeSelectorTerms\":[null]}}}");
    assert_true(p->has_required_affinity);
    assert_null(p->affinity_error);
    assert_int_equal(p->required_affinity.n_terms, 1);
    assert_false(ds_node_selector_matches(&p->required_affinity, &a));
    kube_obj_unref(&p->meta);
    p = pod_with_affinity(
        "{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":{}}}");
    assert_true(p->has_required_affinity);
    assert_null(p->affinity_error);
    assert_int_equal(p->required_affinity.n_terms, 0);
    kube_obj_unref(&p->meta);
}

/* A malformed or over-limit affinity: the pod still decodes, its affinity matches no node and
 * the reason names the field. */
static void affinity_invalid(const char *affinity, const char *message)
{
    kube_pod *p = pod_with_affinity(affinity);
    assert_true(p->has_required_affinity);
    assert_non_null(p->affinity_error);
    assert_string_equal(p->affinity_error, message);
    assert_int_equal(p->required_affinity.n_terms, 0);
    assert_null(p->required_affinity.terms);
    kube_obj_unref(&p->meta);
}

#define REQ_PREFIX "{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
#define REQ_PATH   "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"

static void test_pod_affinity_invalid(void **state)
{
    (void)state;
    affinity_invalid("[]", "spec.affinity: must be an object");
    affinity_invalid("{\"nodeAffinity\":7}", "spec.affinity.nodeAffinity: must be an object");
    affinity_invalid(REQ_PREFIX "\"x\"}}",
                     "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: "
                     "must be an object");
    affinity_invalid(REQ_PREFIX "{\"nodeSelectorTerms\":{}}}}",
                     REQ_PATH ".nodeSelectorTerms: must be a list");
    affinity_invalid(REQ_PREFIX "{\"nodeSelectorTerms\":[7]}}}",
                     REQ_PATH ".nodeSelectorTerms[0]: must be an object");
    affinity_invalid(REQ_PREFIX "{\"nodeSelectorTerms\":[{\"matchExpressions\":[7]}]}}}",
                     REQ_PATH ".nodeSelectorTerms[0].matchExpressions[0]: must be an object");
    affinity_invalid(REQ_PREFIX "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"k\","
                                "\"operator\":\"Equals\",\"values\":[\"v\"]}]}]}}}",
                     REQ_PATH ".nodeSelectorTerms[0].matchExpressions[0].operator: must be In, "
                              "NotIn, Exists, DoesNotExist, Gt or Lt (got \"Equals\")");
    affinity_invalid(REQ_PREFIX "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{"
                                "\"operator\":\"Exists\"}]}]}}}",
                     REQ_PATH ".nodeSelectorTerms[0].matchExpressions[0].key: missing");
    affinity_invalid(REQ_PREFIX "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"k\","
                                "\"operator\":\"In\",\"values\":[1]}]}]}}}",
                     REQ_PATH ".nodeSelectorTerms[0].matchExpressions[0].values[0]: must be a "
                              "string of at most 1024 bytes without NUL");
    affinity_invalid(REQ_PREFIX "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"k\","
                                "\"operator\":\"In\",\"values\":\"v\"}]}]}}}",
                     REQ_PATH ".nodeSelectorTerms[0].matchExpressions[0].values: must be a list");
    /* Shapes Kubernetes refuses, found by the library's check. */
    affinity_invalid(REQ_PREFIX "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"k\","
                                "\"operator\":\"Exists\"}]},{\"matchExpressions\":[{\"key\":"
                                "\"gen\",\"operator\":\"Lt\",\"values\":[\"ten\"]}]}]}}}",
                     REQ_PATH ".nodeSelectorTerms[1].matchExpressions[0].values[0]: must be a "
                              "base-10 integer with operator Lt (got \"ten\")");
    affinity_invalid(REQ_PREFIX "{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":"
                                "\"metadata.name\",\"operator\":\"Exists\"}]}]}}}",
                     REQ_PATH ".nodeSelectorTerms[0].matchFields[0].operator: must be In or "
                              "NotIn (got Exists)");
    /* Over the limits: 65 terms, 65 expressions in a term, 1025 values. */
    char big[40000];
    size_t n = (size_t)snprintf(big, sizeof big, REQ_PREFIX "{\"nodeSelectorTerms\":[");
    for (int i = 0; i <= DS_NSEL_MAX_TERMS; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "%s{}", i ? "," : "");
    snprintf(big + n, sizeof big - n, "]}}}");
    affinity_invalid(big, REQ_PATH ".nodeSelectorTerms: too many (got 65, limit 64)");
    n = (size_t)snprintf(big, sizeof big,
                         REQ_PREFIX "{\"nodeSelectorTerms\":[{\"matchExpressions\":[");
    for (int i = 0; i <= DS_NSEL_MAX_REQS; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "%s{\"key\":\"k\",\"operator\":\"Exists\"}",
                              i ? "," : "");
    snprintf(big + n, sizeof big - n, "]}]}}}");
    affinity_invalid(big, REQ_PATH ".nodeSelectorTerms[0].matchExpressions: too many (got 65, "
                                   "limit 64)");
    n = (size_t)snprintf(big, sizeof big,
                         REQ_PREFIX "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":"
                                    "\"k\",\"operator\":\"In\",\"values\":[");
    for (int i = 0; i <= DS_NSEL_MAX_VALUES; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "%s\"v%d\"", i ? "," : "", i);
    snprintf(big + n, sizeof big - n, "]}]}]}}}");
    affinity_invalid(big, REQ_PATH ".nodeSelectorTerms[0].matchExpressions[0].values: too many "
                                   "(got 1025, limit 1024)");
    /* Five terms of 1000 values: each within the limits, too many in all. */
    n = (size_t)snprintf(big, sizeof big, REQ_PREFIX "{\"nodeSelectorTerms\":[");
    for (int t = 0; t < 5; t++) {
        n += (size_t)snprintf(big + n, sizeof big - n,
                              "%s{\"matchExpressions\":[{\"key\":\"k\",\"operator\":\"In\","
                              "\"values\":[",
                              t ? "," : "");
        for (int i = 0; i < 1000; i++)
            n += (size_t)snprintf(big + n, sizeof big - n, "%s\"v\"", i ? "," : "");
        n += (size_t)snprintf(big + n, sizeof big - n, "]}]}");
    }
    snprintf(big + n, sizeof big - n, "]}}}");
    affinity_invalid(big, REQ_PATH ": too many values in all (limit 4096)");
}

static void test_node_cm_pdb_job(void **state)
{
    (void)state;
    kube_meta *m = decode_ok(
        KUBE_KIND_NODE,
        "{\"metadata\":{\"name\":\"kwok-0\",\"resourceVersion\":\"9\",\"labels\":"
        "{\"dagsched.io/speed\":\"1.5\"}},\"spec\":{\"unschedulable\":true},"
        "\"status\":{\"allocatable\":{\"cpu\":\"31500m\",\"memory\":\"128Gi\",\"pods\":\"110\","
        "\"nvidia.com/gpu\":\"4\",\"ephemeral-storage\":\"100G\"},"
        "\"conditions\":[{\"type\":\"MemoryPressure\",\"status\":\"False\"},"
        "{\"type\":\"Ready\",\"status\":\"True\"}]}}");
    kube_node *nd = (kube_node *)m;
    assert_null(m->ns);
    assert_true(nd->unschedulable);
    assert_true(nd->ready);
    assert_int_equal(nd->allocatable.v[DS_RES_CPU], 31500);
    assert_int_equal(nd->allocatable.v[DS_RES_MEMORY], 137438953472LL);
    assert_int_equal(nd->allocatable.v[DS_RES_EPHEMERAL], 100000000000LL);
    assert_int_equal(nd->allocatable.v[DS_RES_GPU], 4);
    kube_obj_unref(m);

    m = decode_ok(KUBE_KIND_CONFIGMAP,
                  "{\"metadata\":{\"name\":\"g\",\"namespace\":\"a\",\"resourceVersion\":\"3\","
                  "\"labels\":{\"dagsched.io/kind\":\"JobGraph\"}},"
                  "\"data\":{\"graph.yaml\":\"tasks: []\\n\",\"x\":\"\"}}");
    kube_configmap *cm = (kube_configmap *)m;
    assert_int_equal(cm->n_data, 2);
    assert_string_equal(cm->data[0].key, "graph.yaml");
    assert_string_equal(cm->data[0].value, "tasks: []\n");
    kube_obj_unref(m);

    m = decode_ok(KUBE_KIND_PDB,
                  "{\"metadata\":{\"name\":\"b\",\"namespace\":\"a\",\"resourceVersion\":\"5\","
                  "\"generation\":3},\"spec\":{\"minAvailable\":1,\"selector\":{\"matchLabels\":"
                  "{\"app\":\"x\"},\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\","
                  "\"values\":[\"a\",\"b\"]},{\"key\":\"canary\",\"operator\":"
                  "\"DoesNotExist\"}]}},\"status\":{\"disruptionsAllowed\":0,\"currentHealthy\":"
                  "1,\"desiredHealthy\":1,\"expectedPods\":1,\"observedGeneration\":2}}");
    kube_pdb *b = (kube_pdb *)m;
    assert_int_equal(b->n_match_labels, 1);
    assert_int_equal(b->n_match_expressions, 2);
    assert_int_equal(b->match_expressions[0].n_values, 2);
    assert_string_equal(b->match_expressions[0].values[1], "b");
    assert_int_equal(b->generation, 3);
    assert_int_equal(b->observed_generation, 2);
    assert_int_equal(b->current_healthy, 1);
    kube_meta *pod = decode_ok(KUBE_KIND_POD, "{\"metadata\":{\"name\":\"p\",\"namespace\":\"a\","
                                              "\"resourceVersion\":\"1\",\"labels\":{\"app\":\"x\","
                                              "\"tier\":\"b\"}},\"spec\":{}}");
    assert_true(kube_pdb_selects(b, pod));
    kube_obj_unref(pod);
    pod = decode_ok(KUBE_KIND_POD, "{\"metadata\":{\"name\":\"p\",\"namespace\":\"a\","
                                   "\"resourceVersion\":\"1\",\"labels\":{\"app\":\"x\","
                                   "\"tier\":\"b\",\"canary\":\"1\"}},\"spec\":{}}");
    assert_false(kube_pdb_selects(b, pod));
    kube_obj_unref(pod);
    kube_obj_unref(m);
    decode_fails(KUBE_KIND_PDB,
                 "{\"metadata\":{\"name\":\"b\",\"namespace\":\"a\",\"resourceVersion\":\"5\"},"
                 "\"spec\":{\"selector\":{\"matchExpressions\":[{\"key\":\"k\",\"operator\":"
                 "\"Near\"}]}}}",
                 "poddisruptionbudget a/b: spec.selector.matchExpressions[0].operator: unknown "
                 "(got \"Near\")");

    m = decode_ok(KUBE_KIND_JOB,
                  "{\"metadata\":{\"name\":\"j\",\"namespace\":\"a\",\"resourceVersion\":\"8\"},"
                  "\"spec\":{\"suspend\":true,\"parallelism\":2,\"template\":{\"spec\":"
                  "{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":"
                  "\"1500m\",\"memory\":\"1Gi\"}}}]}}},\"status\":{\"active\":1,"
                  "\"conditions\":[{\"type\":\"Complete\",\"status\":\"True\"}]}}");
    kube_job *j = (kube_job *)m;
    assert_true(j->pod_request.v[DS_RES_CPU] == 1500);
    assert_true(j->pod_request.v[DS_RES_MEMORY] == (int64_t)1 << 30);
    assert_true(j->suspend);
    assert_int_equal(j->parallelism, 2);
    assert_int_equal(j->completions, -1);
    assert_int_equal(j->active, 1);
    assert_true(j->finished);
    kube_obj_unref(m);
}

static kube_meta *make_pod(const char *ns, const char *name, const char *node, const char *job,
                           int rv)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\",\"resourceVersion\":\"%d\""
             "%s%s%s},\"spec\":{%s%s%s}}",
             name, ns, rv, job ? ",\"labels\":{\"dagsched.io/job\":\"" : "", job ? job : "",
             job ? "\"}" : "", node ? "\"nodeName\":\"" : "", node ? node : "", node ? "\"" : "");
    return decode_ok(KUBE_KIND_POD, text);
}

/* A Namespace keeps its name and labels (cluster-scoped: no metadata.namespace); spec and status
 * are not kept, and its labels are bounded like any object's. */
static void test_namespace(void **state)
{
    (void)state;
    assert_string_equal(kube_kind_name(KUBE_KIND_NAMESPACE), "namespace");
    assert_string_equal(kube_kind_api_prefix(KUBE_KIND_NAMESPACE), "/api/v1");
    assert_string_equal(kube_kind_resource(KUBE_KIND_NAMESPACE), "namespaces");
    assert_false(kube_kind_namespaced(KUBE_KIND_NAMESPACE));
    assert_true(kube_kind_namespaced(KUBE_KIND_POD));

    kube_meta *m = decode_ok(
        KUBE_KIND_NAMESPACE,
        "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"ml-batch\","
        "\"uid\":\"ns-1\",\"resourceVersion\":\"77\",\"creationTimestamp\":\"2026-11-22T10:00:"
        "00Z\","
        "\"labels\":{\"kubernetes.io/metadata.name\":\"ml-batch\",\"dagsched.io/preemption\":"
        "\"enabled\"},\"annotations\":{\"owner\":\"team-ml\"}},"
        "\"spec\":{\"finalizers\":[\"kubernetes\"]},\"status\":{\"phase\":\"Active\"}}");
    assert_int_equal(m->kind, KUBE_KIND_NAMESPACE);
    assert_null(m->ns);
    assert_string_equal(m->name, "ml-batch");
    assert_string_equal(m->resource_version, "77");
    assert_int_equal(m->n_labels, 2);
    assert_string_equal(kube_meta_label(m, "dagsched.io/preemption"), "enabled");
    assert_string_equal(kube_meta_label(m, "kubernetes.io/metadata.name"), "ml-batch");
    assert_null(kube_meta_label(m, "owner"));
    assert_int_equal(m->n_annotations, 0); /* only dagsched.io/ annotations are kept */
    assert_false(m->deleting);
    /* One small allocation: the struct, two label pairs and the strings. */
    assert_true(m->alloc_bytes < 512);
    kube_obj_unref(m);

    /* Terminating, no labels at all (a namespace created before the automatic name label). */
    m = decode_ok(KUBE_KIND_NAMESPACE, "{\"metadata\":{\"name\":\"old\",\"resourceVersion\":\"5\","
                                       "\"deletionTimestamp\":\"2026-11-22T10:05:00Z\"},"
                                       "\"status\":{\"phase\":\"Terminating\"}}");
    assert_int_equal(m->n_labels, 0);
    assert_true(m->deleting);
    kube_obj_unref(m);

    decode_fails(KUBE_KIND_NAMESPACE, "{\"metadata\":{\"resourceVersion\":\"1\"}}",
                 "namespace: metadata.name: missing");
    decode_fails(KUBE_KIND_NAMESPACE, "{\"metadata\":{\"name\":\"a\"}}",
                 "namespace a: metadata.resourceVersion: missing");
    decode_fails(KUBE_KIND_NAMESPACE,
                 "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\",\"labels\":[\"x\"]}}",
                 "namespace a: metadata.labels: must be a map of strings");
    decode_fails(KUBE_KIND_NAMESPACE,
                 "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\",\"labels\":{\"team\":"
                 "true}}}",
                 "namespace a: metadata.labels[\"team\"]: must be a string");

    /* Cached by name (no namespace). */
    kube_cache *c = kube_cache_new(KUBE_KIND_NAMESPACE);
    assert_non_null(c);
    m = decode_ok(KUBE_KIND_NAMESPACE,
                  "{\"metadata\":{\"name\":\"ml\",\"resourceVersion\":\"1\",\"labels\":"
                  "{\"team\":\"ml\"}}}");
    const kube_meta *old = NULL;
    assert_int_equal(kube_cache_put(c, m, &old), 0);
    assert_null(old);
    const kube_meta *got = kube_cache_get(c, NULL, "ml");
    assert_non_null(got);
    assert_string_equal(kube_meta_label(got, "team"), "ml");
    kube_obj_unref(got);
    assert_null(kube_cache_get(c, NULL, "other"));
    kube_cache_free(c);
}

static void test_cache_indexes(void **state)
{
    (void)state;
    kube_cache *c = kube_cache_new(KUBE_KIND_POD);
    assert_non_null(c);
    const kube_meta *old;
    assert_int_equal(kube_cache_put(c, make_pod("a", "p1", "n1", "j", 1), &old), 0);
    assert_null(old);
    assert_int_equal(kube_cache_put(c, make_pod("a", "p2", "n1", "j", 2), &old), 0);
    assert_int_equal(kube_cache_put(c, make_pod("b", "p1", NULL, "j", 3), &old), 0);
    assert_int_equal(kube_cache_size(c), 3);
    kube_obj_list l;
    assert_int_equal(kube_cache_by_index(c, KUBE_INDEX_POD_NODE, "n1", &l), 0);
    assert_int_equal(l.n, 2);
    kube_obj_list_free(&l);
    assert_int_equal(kube_cache_by_index(c, KUBE_INDEX_POD_JOB, "a/j", &l), 0);
    assert_int_equal(l.n, 2);
    kube_obj_list_free(&l);
    assert_int_equal(kube_cache_by_index(c, KUBE_INDEX_POD_JOB, "b/j", &l), 0);
    assert_int_equal(l.n, 1);
    kube_obj_list_free(&l);
    /* A reader's reference survives an update. */
    const kube_meta *held = kube_cache_get(c, "a", "p1");
    assert_string_equal(held->resource_version, "1");
    assert_int_equal(kube_cache_put(c, make_pod("a", "p1", "n2", "j", 4), &old), 0);
    assert_ptr_equal(old, held);
    kube_obj_unref(old);
    assert_string_equal(((const kube_pod *)held)->node_name, "n1");
    kube_obj_unref(held);
    assert_int_equal(kube_cache_by_index(c, KUBE_INDEX_POD_NODE, "n1", &l), 0);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.items[0]->name, "p2");
    kube_obj_list_free(&l);
    assert_int_equal(kube_cache_by_index(c, KUBE_INDEX_POD_NODE, "n2", &l), 0);
    assert_int_equal(l.n, 1);
    kube_obj_list_free(&l);
    kube_cache_remove(c, "a", "p2", &old);
    assert_non_null(old);
    kube_obj_unref(old);
    kube_cache_remove(c, "a", "p2", &old);
    assert_null(old);
    assert_int_equal(kube_cache_by_index(c, KUBE_INDEX_POD_NODE, "n1", &l), 0);
    assert_int_equal(l.n, 0);
    kube_obj_list_free(&l);
    assert_null(kube_cache_get(c, "a", "p2"));
    assert_int_equal(kube_cache_size(c), 2);
    kube_cache_free(c);
}

static void test_cache_many(void **state)
{
    (void)state;
    kube_cache *c = kube_cache_new(KUBE_KIND_POD);
    assert_non_null(c);
    enum { N = 3000 };
    char name[32], node[32];
    const kube_meta *old;
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "p%d", i);
        snprintf(node, sizeof node, "n%d", i % 17);
        assert_int_equal(kube_cache_put(c, make_pod("ns", name, node, NULL, i + 1), &old), 0);
    }
    /* Remove every third one (exercises backward-shift deletion). */
    for (int i = 0; i < N; i += 3) {
        snprintf(name, sizeof name, "p%d", i);
        kube_cache_remove(c, "ns", name, &old);
        assert_non_null(old);
        kube_obj_unref(old);
    }
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "p%d", i);
        const kube_meta *m = kube_cache_get(c, "ns", name);
        if (i % 3 == 0) {
            assert_null(m);
        } else {
            assert_non_null(m);
            assert_string_equal(m->name, name);
            kube_obj_unref(m);
        }
    }
    assert_int_equal(kube_cache_size(c), N - N / 3);
    size_t total = 0;
    for (int k = 0; k < 17; k++) {
        kube_obj_list l;
        snprintf(node, sizeof node, "n%d", k);
        assert_int_equal(kube_cache_by_index(c, KUBE_INDEX_POD_NODE, node, &l), 0);
        total += l.n;
        kube_obj_list_free(&l);
    }
    assert_int_equal(total, N - N / 3);
    kube_obj_list all;
    assert_int_equal(kube_cache_list(c, &all), 0);
    assert_int_equal(all.n, N - N / 3);
    kube_obj_list_free(&all);
    kube_cache_free(c);
}

typedef struct race {
    kube_cache *c;
    atomic_bool stop;
    long reads;
} race;

static void *reader(void *arg)
{
    race *r = arg;
    while (!atomic_load(&r->stop)) {
        const kube_meta *m = kube_cache_get(r->c, "ns", "hot");
        if (m != NULL) {
            /* The snapshot stays valid and self-consistent. */
            if (strcmp(m->name, "hot") != 0)
                abort();
            kube_obj_unref(m);
        }
        kube_obj_list l;
        if (kube_cache_by_index(r->c, KUBE_INDEX_POD_NODE, "n1", &l) == 0)
            kube_obj_list_free(&l);
        r->reads++;
    }
    return NULL;
}

static void test_cache_concurrent(void **state)
{
    (void)state;
    race r = {.c = kube_cache_new(KUBE_KIND_POD)};
    atomic_init(&r.stop, false);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, reader, &r), 0);
    for (int i = 0; i < 2000; i++) {
        const kube_meta *old;
        assert_int_equal(
            kube_cache_put(r.c, make_pod("ns", "hot", i % 2 ? "n1" : "n2", "j", i + 1), &old), 0);
        kube_obj_unref(old);
        if (i % 10 == 0) {
            kube_cache_remove(r.c, "ns", "hot", &old);
            kube_obj_unref(old);
        }
    }
    atomic_store(&r.stop, true);
    pthread_join(t, NULL);
    assert_true(r.reads > 0);
    kube_cache_free(r.c);
}

/* ---- every bound of a pod (the property of pod_over_bounds) ---- */

/* Growable text for building large pods. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void tput(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tput(text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s != NULL ? t->s + t->len : NULL, t->s != NULL ? t->cap - t->len : 0,
                          fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if (t->s != NULL && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        t->cap = (t->cap + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
}

/* n copies of `item` (with %d for the index), comma-separated. */
static void trepeat(text *t, int n, const char *item)
{
    for (int i = 0; i < n; i++) {
        if (i > 0)
            tput(t, ",");
        tput(t, item, i);
    }
}

/* A string of n 'x'. */
static char *xs(size_t n)
{
    char *x = malloc(n + 1);
    assert_non_null(x);
    memset(x, 'x', n);
    x[n] = '\0';
    return x;
}

typedef enum {
    F_TOLERATIONS,
    F_NODE_SELECTOR,
    F_GATES,
    F_CONTAINERS,
    F_INIT_CONTAINERS,
    F_TOLERATION_KEY,
    F_SELECTOR_VALUE,
    F_GATE_NAME,
    F_AFFINITY_TERMS,
    F_LABELS,
    F_OWNER_KIND,
    F_N
} field;

/* A gated pod of a DAG job with field f at its bound plus `over` (0: at the bound). */
static char *pod_with(field f, int over)
{
    text t = {0};
    tput(&t, "{\"metadata\":{\"name\":\"big\",\"namespace\":\"a\",\"uid\":\"u-big\","
             "\"resourceVersion\":\"7\",\"labels\":{\"dagsched.io/job\":\"j\","
             "\"dagsched.io/task\":\"t\"");
    if (f == F_LABELS) {
        tput(&t, ",");
        trepeat(&t, KUBE_OBJ_MAX_LABELS - 2 + over, "\"l%d\":\"v\"");
    }
    tput(&t, "}");
    if (f == F_OWNER_KIND) {
        char *k = xs(253 + (size_t)over);
        tput(&t, ",\"ownerReferences\":[{\"kind\":\"%s\",\"name\":\"o\",\"controller\":true}]", k);
        free(k);
    }
    tput(&t, "},\"spec\":{\"nodeName\":\"\",\"schedulingGates\":[{\"name\":\"dagsched.io/"
             "dependencies\"}");
    if (f == F_GATES) {
        tput(&t, ",");
        trepeat(&t, KUBE_OBJ_MAX_LIST - 1 + over, "{\"name\":\"g%d\"}");
    }
    if (f == F_GATE_NAME) {
        char *g = xs(317 + (size_t)over);
        tput(&t, ",{\"name\":\"%s\"}", g);
        free(g);
    }
    tput(&t, "],\"containers\":[{\"resources\":{\"requests\":{\"cpu\":\"2\"}}}");
    if (f == F_CONTAINERS) {
        tput(&t, ",");
        trepeat(&t, KUBE_OBJ_MAX_LIST - 1 + over, "{\"name\":\"c%d\"}");
    }
    tput(&t, "]");
    if (f == F_INIT_CONTAINERS) {
        tput(&t, ",\"initContainers\":[");
        trepeat(&t, KUBE_OBJ_MAX_LIST + over, "{\"name\":\"i%d\"}");
        tput(&t, "]");
    }
    if (f == F_TOLERATIONS) {
        tput(&t, ",\"tolerations\":[");
        trepeat(&t, KUBE_OBJ_MAX_LIST + over, "{\"key\":\"k%d\",\"operator\":\"Exists\"}");
        tput(&t, "]");
    }
    if (f == F_TOLERATION_KEY) {
        char *k = xs(317 + (size_t)over);
        tput(&t, ",\"tolerations\":[{\"key\":\"%s\",\"operator\":\"Exists\"}]", k);
        free(k);
    }
    if (f == F_NODE_SELECTOR) {
        tput(&t, ",\"nodeSelector\":{");
        trepeat(&t, KUBE_OBJ_MAX_LABELS + over, "\"s%d\":\"v\"");
        tput(&t, "}");
    }
    if (f == F_SELECTOR_VALUE) {
        char *v = xs(KUBE_OBJ_MAX_STR + (size_t)over);
        tput(&t, ",\"nodeSelector\":{\"zone\":\"%s\"}", v);
        free(v);
    }
    if (f == F_AFFINITY_TERMS) {
        tput(&t, ",\"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuring"
                 "Execution\":{\"nodeSelectorTerms\":[");
        trepeat(&t, DS_NSEL_MAX_TERMS + over,
                "{\"matchExpressions\":[{\"key\":\"z%d\",\"operator\":\"Exists\"}]}");
        tput(&t, "]}}}");
    }
    tput(&t, "},\"status\":{\"phase\":\"Pending\"}}");
    return t.s;
}

static const char *const field_path[F_N] = {"spec.tolerations",
                                            "spec.nodeSelector",
                                            "spec.schedulingGates",
                                            "spec.containers",
                                            "spec.initContainers",
                                            "spec.tolerations[0].key",
                                            "spec.nodeSelector",
                                            "spec.schedulingGates[1].name",
                                            "nodeSelectorTerms",
                                            "labels",
                                            "metadata.ownerReferences[0].kind"};

/* Every bounded field of a pod, at its bound and one past it: at the bound the pod is a task of
 * its job; past it, it is still decoded and identified, keeps dagsched's gate (and says it has
 * others), is outside any DAG job, and dagsched_error names the field and the limit. */
static void test_pod_over_every_bound(void **state)
{
    (void)state;
    for (int f = 0; f < F_N; f++) {
        for (int over = 0; over <= 1; over++) {
            char *t = pod_with((field)f, over);
            kube_pod *p = (kube_pod *)decode_ok(KUBE_KIND_POD, t);
            free(t);
            assert_string_equal(p->meta.name, "big");
            assert_string_equal(p->meta.ns, "a");
            assert_string_equal(p->meta.uid, "u-big");
            assert_int_equal(p->phase, KUBE_POD_PENDING);
            assert_true(p->n_gates >= 1);
            assert_string_equal(p->gates[0], DS_GATE_DEPENDENCIES);
            if (over == 0) {
                if (p->meta.dagsched_error != NULL)
                    fail_msg("field %s at its bound: %s", field_path[f], p->meta.dagsched_error);
                assert_string_equal(p->job_key, "j");
                assert_int_equal(p->requests.v[DS_RES_CPU], 2000);
            } else {
                if (p->meta.dagsched_error == NULL)
                    fail_msg("field %s over its bound: no dagsched_error", field_path[f]);
                if (strstr(p->meta.dagsched_error, field_path[f]) == NULL ||
                    strstr(p->meta.dagsched_error, "limit") == NULL)
                    fail_msg("field %s: dagsched_error \"%s\" does not name it and its limit",
                             field_path[f], p->meta.dagsched_error);
                assert_null(p->job_key);
                assert_null(p->task_name);
                if (f == F_GATES || f == F_GATE_NAME) {
                    assert_int_equal(p->n_gates, 2);
                    assert_string_equal(p->gates[1], KUBE_GATE_OTHERS);
                }
            }
            kube_obj_unref(&p->meta);
        }
    }
}

/* kube_obj_list_append moves the references: dst holds both lists' objects in order, src is
 * empty, and each object is released once (ASan's leak check) by freeing dst. */
static void test_obj_list_append(void **state)
{
    (void)state;
    kube_obj_list a = {0}, b = {0}, none = {0};
    const kube_meta *pa[1], *pb[2];
    pa[0] = make_pod("n", "a", NULL, NULL, 1);
    pb[0] = make_pod("n", "b", NULL, NULL, 1);
    pb[1] = make_pod("n", "c", NULL, NULL, 1);
    a.items = malloc(sizeof pa);
    b.items = malloc(sizeof pb);
    assert_non_null(a.items);
    assert_non_null(b.items);
    memcpy(a.items, pa, sizeof pa);
    memcpy(b.items, pb, sizeof pb);
    a.n = 1;
    b.n = 2;
    assert_int_equal(kube_obj_list_append(&a, &none), 0);
    assert_int_equal(a.n, 1);
    assert_int_equal(kube_obj_list_append(&a, &b), 0);
    assert_int_equal(a.n, 3);
    assert_int_equal(b.n, 0);
    assert_null(b.items);
    assert_string_equal(a.items[0]->name, "a");
    assert_string_equal(a.items[2]->name, "c");
    assert_int_equal(kube_obj_list_append(&none, &a), 0);
    assert_int_equal(none.n, 3);
    kube_obj_list_free(&none);
    kube_obj_list_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pod),
        cmocka_unit_test(test_obj_list_append),
        cmocka_unit_test(test_pod_minimal_and_argo),
        cmocka_unit_test(test_pod_errors),
        cmocka_unit_test(test_pod_dagsched_over_limits),
        cmocka_unit_test(test_pod_over_every_bound),
        cmocka_unit_test(test_pod_node_scheduling_facts),
        cmocka_unit_test(test_pod_required_affinity),
        cmocka_unit_test(test_pod_affinity_invalid),
        cmocka_unit_test(test_node_cm_pdb_job),
        cmocka_unit_test(test_namespace),
        cmocka_unit_test(test_cache_indexes),
        cmocka_unit_test(test_cache_many),
        cmocka_unit_test(test_cache_concurrent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
