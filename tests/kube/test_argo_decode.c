/* test_argo_decode.c: decoding of Argo Workflows (kube/argo_decode.h through kube_obj_decode) and
 * of Argo's node annotations on pods: the fields lib/argo_wf.h reads, what is not supported
 * (compressed or offloaded node status, wrong types) and the size of the copy kept for a
 * Workflow of 10,000 nodes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argo_decode.h"
#include "model_input.h"
#include "objects.h"

static const kube_decode_opts dopts = {0};

static const kube_workflow *decode_wf(const char *text)
{
    json_error_t jerr;
    json_t *j = json_loads(text, 0, &jerr);
    if (j == NULL)
        fail_msg("bad test JSON: %s", jerr.text);
    kube_meta *m = NULL;
    ds_err err = {{0}};
    if (kube_obj_decode(KUBE_KIND_WORKFLOW, j, &dopts, &m, &err) != 0)
        fail_msg("decode: %s", err.msg);
    json_decref(j);
    return (const kube_workflow *)m;
}

/* The diamond, partly run: extract succeeded, clean is a Retry node with two attempts. */
static const char *const wf_json =
    "{\"apiVersion\":\"argoproj.io/v1alpha1\",\"kind\":\"Workflow\","
    "\"metadata\":{\"name\":\"etl\",\"namespace\":\"wf\",\"uid\":\"w-1\",\"resourceVersion\":\"7\","
    "\"creationTimestamp\":\"2026-11-22T10:00:00Z\","
    "\"annotations\":{\"dagsched.io/deadline-after\":\"10m\",\"other\":\"x\"}},"
    "\"spec\":{\"entrypoint\":\"main\",\"templates\":["
    "{\"name\":\"main\",\"dag\":{\"tasks\":["
    "{\"name\":\"extract\",\"template\":\"work\"},"
    "{\"name\":\"clean\",\"template\":\"work\",\"dependencies\":[\"extract\"]},"
    "{\"name\":\"enrich\",\"template\":\"work\",\"depends\":\"extract.Succeeded\","
    "\"withItems\":[1,2]},"
    "{\"name\":\"load\",\"templateRef\":{\"name\":\"lib\",\"template\":\"load\"},"
    "\"depends\":\"clean && enrich\"}]}},"
    "{\"name\":\"seq\",\"steps\":[[{\"name\":\"a\",\"template\":\"work\"}],"
    "[{\"name\":\"b\",\"template\":\"work\"},{\"name\":\"c\",\"template\":\"wait\"}]]},"
    "{\"name\":\"wait\",\"suspend\":{}},"
    "{\"name\":\"work\",\"metadata\":{\"annotations\":{\"dagsched.io/runtime\":\"90s\"}},"
    "\"container\":{\"image\":\"busybox\",\"command\":[\"sleep\"],\"args\":[\"2\"]}}]},"
    "\"status\":{\"phase\":\"Running\",\"nodes\":{"
    "\"etl-1\":{\"id\":\"etl-1\",\"name\":\"etl.extract\",\"type\":\"Pod\",\"phase\":\"Succeeded\","
    "\"startedAt\":\"2026-11-22T10:00:01Z\",\"finishedAt\":\"2026-11-22T10:00:04Z\","
    "\"estimatedDuration\":3},"
    "\"etl-2\":{\"id\":\"etl-2\",\"name\":\"etl.clean\",\"type\":\"Retry\",\"phase\":\"Running\","
    "\"children\":[\"etl-3\",\"etl-4\"],\"startedAt\":\"2026-11-22T10:00:05Z\"},"
    "\"etl-3\":{\"id\":\"etl-3\",\"name\":\"etl.clean(0)\",\"type\":\"Pod\",\"phase\":\"Failed\"},"
    "\"etl-4\":{\"id\":\"etl-4\",\"name\":\"etl.clean(1)\",\"type\":\"Pod\",\"phase\":\"Pending\"}"
    "}}}";

static const ds_wf_template *tmpl(const ds_wf_obs *o, const char *name)
{
    for (size_t i = 0; i < o->n_templates; i++)
        if (strcmp(o->templates[i].name, name) == 0)
            return &o->templates[i];
    fail_msg("no template %s", name);
    return NULL;
}

static void test_workflow_fields(void **state)
{
    (void)state;
    const kube_workflow *w = decode_wf(wf_json);
    ds_wf_obs o;
    kube_workflow_obs(w, &o);
    assert_null(o.decode_error);
    assert_string_equal(o.name, "etl");
    assert_string_equal(o.ns, "wf");
    assert_string_equal(o.entrypoint, "main");
    assert_string_equal(o.deadline_after, "10m");
    assert_null(o.deadline);
    assert_null(o.runtime);
    assert_int_equal(o.n_templates, 4);
    const ds_wf_template *main_t = tmpl(&o, "main");
    assert_int_equal(main_t->kind, DS_WF_TMPL_DAG);
    assert_int_equal(main_t->n_steps, 4);
    assert_int_equal(main_t->steps[1].n_dependencies, 1);
    assert_string_equal(main_t->steps[1].dependencies[0], "extract");
    assert_string_equal(main_t->steps[2].depends, "extract.Succeeded");
    assert_true(main_t->steps[2].fan_out);
    assert_false(main_t->steps[1].fan_out);
    assert_true(main_t->steps[3].template_ref);
    const ds_wf_template *seq = tmpl(&o, "seq");
    assert_int_equal(seq->kind, DS_WF_TMPL_STEPS);
    assert_int_equal(seq->n_steps, 3);
    assert_int_equal(seq->steps[0].group, 0);
    assert_int_equal(seq->steps[2].group, 1);
    assert_int_equal(tmpl(&o, "wait")->kind, DS_WF_TMPL_NOPOD);
    assert_int_equal(tmpl(&o, "work")->kind, DS_WF_TMPL_POD);
    assert_string_equal(tmpl(&o, "work")->runtime, "90s");
    assert_int_equal(o.n_nodes, 4);
    const ds_wf_node *retry = NULL;
    for (size_t i = 0; i < o.n_nodes; i++)
        if (strcmp(o.nodes[i].id, "etl-2") == 0)
            retry = &o.nodes[i];
    assert_non_null(retry);
    assert_string_equal(retry->name, "etl.clean");
    assert_string_equal(retry->type, "Retry");
    assert_int_equal(retry->phase, DS_WF_NODE_RUNNING);
    assert_int_equal(retry->n_children, 2);
    assert_string_equal(retry->children[1], "etl-4");
    assert_true(isnan(retry->finished_at));
    assert_true(isnan(retry->estimated_duration_s));

    /* Expanding it: templateRef is refused with the step named. */
    ds_wf_job j;
    ds_err e = {{0}};
    assert_int_equal(ds_wf_expand(&o, &j, &e), -1);
    assert_string_equal(
        e.msg, "template \"main\", step \"load\": templateRef is not supported by dagsched");
    ds_wf_job_free(&j);
    kube_obj_unref(&w->meta);
}

static void expect_decode_error(const char *text, const char *msg)
{
    const kube_workflow *w = decode_wf(text);
    assert_non_null(w->argo->obs.decode_error);
    assert_string_equal(w->argo->obs.decode_error, msg);
    kube_obj_unref(&w->meta);
}

static void test_unsupported_status_and_bad_types(void **state)
{
    (void)state;
    expect_decode_error(
        "{\"metadata\":{\"name\":\"big\",\"namespace\":\"wf\",\"resourceVersion\":\"1\"},"
        "\"spec\":{\"entrypoint\":\"main\",\"templates\":[]},"
        "\"status\":{\"compressedNodes\":\"H4sIAAAA\"}}",
        "status.compressedNodes: compressed node status is not supported");
    expect_decode_error(
        "{\"metadata\":{\"name\":\"big\",\"namespace\":\"wf\",\"resourceVersion\":\"1\"},"
        "\"spec\":{\"entrypoint\":\"main\",\"templates\":[]},"
        "\"status\":{\"offloadNodeStatusVersion\":\"fnv:1\"}}",
        "status.offloadNodeStatusVersion: offloaded node status is not supported");
    expect_decode_error(
        "{\"metadata\":{\"name\":\"w\",\"namespace\":\"wf\",\"resourceVersion\":\"1\"},"
        "\"spec\":{\"entrypoint\":\"main\",\"templates\":[{\"name\":\"main\",\"dag\":{\"tasks\":"
        "[{\"name\":\"a\",\"template\":\"x\",\"depends\":7}]}}]}}",
        "templates[0].dag.tasks[0].depends: must be a string");
}

static void test_pod_node_annotations(void **state)
{
    (void)state;
    json_error_t jerr;
    json_t *j = json_loads(
        "{\"metadata\":{\"name\":\"etl-work-1\",\"namespace\":\"wf\",\"uid\":\"p-1\","
        "\"resourceVersion\":\"3\",\"labels\":{\"workflows.argoproj.io/workflow\":\"etl\"},"
        "\"annotations\":{\"workflows.argoproj.io/node-id\":\"etl-4\","
        "\"workflows.argoproj.io/node-name\":\"etl.clean(1)\"}},"
        "\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"busybox\"}]}}",
        0, &jerr);
    assert_non_null(j);
    kube_meta *m = NULL;
    ds_err err = {{0}};
    assert_int_equal(kube_obj_decode(KUBE_KIND_POD, j, &dopts, &m, &err), 0);
    json_decref(j);
    const kube_pod *p = (const kube_pod *)m;
    assert_string_equal(p->argo_node_id, "etl-4");
    assert_string_equal(p->argo_node_name, "etl.clean(1)");
    assert_string_equal(p->job_key, "etl");
    ds_pod_obs o;
    kube_pod_obs(p, 1.0, &o);
    assert_string_equal(o.argo_node_id, "etl-4");
    assert_string_equal(o.argo_node_name, "etl.clean(1)");
    kube_obj_unref(m);
}

/* A fan-out of 10,000 items (10,003 nodes, as Argo names them): the copy kept is bounded. */
#define FAN     10000
#define MAX_MIB 4

static void test_ten_thousand_nodes(void **state)
{
    (void)state;
    size_t cap = 512 + (size_t)FAN * 200;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t n = (size_t)snprintf(
        buf, cap,
        "{\"metadata\":{\"name\":\"fan\",\"namespace\":\"wf\",\"resourceVersion\":\"1\"},"
        "\"spec\":{\"entrypoint\":\"main\",\"templates\":[{\"name\":\"main\",\"dag\":{\"tasks\":["
        "{\"name\":\"a\",\"template\":\"w\"},{\"name\":\"b\",\"template\":\"w\",\"depends\":\"a\","
        "\"withParam\":\"{{tasks.a.outputs.result}}\"},{\"name\":\"c\",\"template\":\"w\","
        "\"depends\":\"b\"}]}},{\"name\":\"w\",\"container\":{\"image\":\"busybox\"}}]},"
        "\"status\":{\"nodes\":{\"fan-a\":{\"id\":\"fan-a\",\"name\":\"fan.a\",\"type\":\"Pod\","
        "\"phase\":\"Succeeded\"},\"fan-b\":{\"id\":\"fan-b\",\"name\":\"fan.b\","
        "\"type\":\"TaskGroup\",\"phase\":\"Running\",\"children\":[");
    for (size_t i = 0; i < FAN; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s\"fan-%zu\"", i ? "," : "", 1000000000 + i);
    n += (size_t)snprintf(buf + n, cap - n, "]}");
    for (size_t i = 0; i < FAN; i++)
        n += (size_t)snprintf(buf + n, cap - n,
                              ",\"fan-%zu\":{\"id\":\"fan-%zu\",\"name\":\"fan.b(%zu:%zu)\","
                              "\"type\":\"Pod\",\"phase\":\"Pending\","
                              "\"startedAt\":\"2026-11-22T10:00:01Z\"}",
                              1000000000 + i, 1000000000 + i, i, i);
    n += (size_t)snprintf(buf + n, cap - n, "}}}");
    assert_true(n < cap);
    const kube_workflow *w = decode_wf(buf);
    free(buf);
    ds_wf_obs o;
    kube_workflow_obs(w, &o);
    assert_null(o.decode_error);
    assert_int_equal(o.n_nodes, FAN + 2);
    print_message("a Workflow of %d nodes keeps %zu bytes (%.0f per node)\n", FAN + 2,
                  w->argo->bytes, (double)w->argo->bytes / (FAN + 2));
    assert_true(w->argo->bytes < (size_t)MAX_MIB * 1024 * 1024);
    ds_wf_job j;
    ds_err e = {{0}};
    assert_int_equal(ds_wf_expand(&o, &j, &e), 0);
    assert_int_equal(j.n_tasks, FAN + 2);
    ds_wf_job_free(&j);
    kube_obj_unref(&w->meta);
}

/* A template's retryStrategy (limit as a number, a string, an expression, absent; retryPolicy)
 * and each node's templateName: what tells whether an evicted pod's node is run again. */
static void test_retry_strategy(void **state)
{
    (void)state;
    const kube_workflow *w = decode_wf(
        "{\"metadata\":{\"name\":\"r\",\"namespace\":\"wf\",\"uid\":\"w-2\","
        "\"resourceVersion\":\"1\"},\"spec\":{\"entrypoint\":\"a\",\"templates\":["
        "{\"name\":\"a\",\"retryStrategy\":{\"limit\":3,\"retryPolicy\":\"Always\"},"
        "\"container\":{}},"
        "{\"name\":\"b\",\"retryStrategy\":{\"limit\":\"2\",\"retryPolicy\":\"OnError\"},"
        "\"container\":{}},"
        "{\"name\":\"c\",\"retryStrategy\":{\"limit\":\"{{inputs.parameters.n}}\","
        "\"retryPolicy\":\"Always\"},\"container\":{}},"
        "{\"name\":\"d\",\"retryStrategy\":{\"limit\":4},\"container\":{}},"
        "{\"name\":\"e\",\"retryStrategy\":{\"retryPolicy\":\"Always\"},\"container\":{}},"
        "{\"name\":\"f\",\"container\":{}}]},"
        "\"status\":{\"nodes\":{\"r-1\":{\"id\":\"r-1\",\"name\":\"r\",\"type\":\"Pod\","
        "\"templateName\":\"a\"}}}}");
    ds_wf_obs o;
    kube_workflow_obs(w, &o);
    assert_int_equal(tmpl(&o, "a")->retry_limit, 3);
    assert_true(tmpl(&o, "a")->retries_errors);
    assert_int_equal(tmpl(&o, "b")->retry_limit, 2);
    assert_true(tmpl(&o, "b")->retries_errors);
    assert_int_equal(tmpl(&o, "c")->retry_limit, 0); /* an expression: unknown, none counted */
    assert_int_equal(tmpl(&o, "d")->retry_limit, 4);
    assert_false(tmpl(&o, "d")->retries_errors); /* OnFailure, the default */
    assert_int_equal(tmpl(&o, "e")->retry_limit, DS_WF_RETRY_UNLIMITED);
    assert_int_equal(tmpl(&o, "f")->retry_limit, DS_WF_NO_RETRY);
    assert_string_equal(o.nodes[0].template_name, "a");
    assert_int_equal(ds_wf_retries_left(&o, "r-1"), 3);
    kube_obj_unref(&w->meta);
}

/* A pod template's request, before its pod exists: its container (or script) plus sidecars and
 * containerSet containers, against its largest init container; unknown when it states none or a
 * quantity cannot be read (the Workflow stays valid: the pod is judged by the API server). */
static void test_template_requests(void **state)
{
    (void)state;
    const kube_workflow *w = decode_wf(
        "{\"metadata\":{\"name\":\"q\",\"namespace\":\"wf\",\"uid\":\"w-3\","
        "\"resourceVersion\":\"1\"},\"spec\":{\"entrypoint\":\"a\",\"templates\":["
        "{\"name\":\"a\",\"container\":{\"resources\":{\"requests\":{\"cpu\":\"4\","
        "\"memory\":\"1Gi\"}}},\"sidecars\":[{\"resources\":{\"requests\":{\"cpu\":\"500m\"}}}]},"
        "{\"name\":\"b\",\"script\":{\"resources\":{\"requests\":{\"cpu\":\"1\"}}},"
        "\"initContainers\":[{\"resources\":{\"requests\":{\"cpu\":\"3\"}}}]},"
        "{\"name\":\"c\",\"containerSet\":{\"containers\":[{\"resources\":{\"requests\":"
        "{\"cpu\":\"1\"}}},{\"resources\":{\"requests\":{\"cpu\":\"2\"}}}]}},"
        "{\"name\":\"d\",\"container\":{\"resources\":{\"requests\":{\"cpu\":\"lots\"}}}},"
        "{\"name\":\"e\",\"container\":{}},"
        "{\"name\":\"f\",\"suspend\":{}}]}}");
    ds_wf_obs o;
    kube_workflow_obs(w, &o);
    assert_null(o.decode_error);
    assert_true(tmpl(&o, "a")->has_request);
    assert_int_equal(tmpl(&o, "a")->request.v[DS_RES_CPU], 4500);
    assert_int_equal(tmpl(&o, "a")->request.v[DS_RES_MEMORY], 1024LL * 1024 * 1024);
    assert_int_equal(tmpl(&o, "b")->request.v[DS_RES_CPU], 3000); /* the init container */
    assert_int_equal(tmpl(&o, "c")->request.v[DS_RES_CPU], 3000);
    assert_false(tmpl(&o, "d")->has_request);
    assert_false(tmpl(&o, "e")->has_request);
    assert_false(tmpl(&o, "f")->has_request);
    ds_wf_job j;
    ds_err e = {{0}};
    assert_int_equal(ds_wf_expand(&o, &j, &e), 0);
    assert_int_equal(j.n_tasks, 1);
    assert_true(j.tasks[0].has_request);
    assert_int_equal(j.tasks[0].request.v[DS_RES_CPU], 4500);
    ds_wf_job_free(&j);
    kube_obj_unref(&w->meta);
}

/* The family of learned run times: the same for every run of the same work, however Argo
 * started it. */
static void expect_family(const char *meta, const char *spec, const char *want)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"apiVersion\":\"argoproj.io/v1alpha1\",\"kind\":\"Workflow\","
             "\"metadata\":{\"namespace\":\"wf\",\"uid\":\"w-9\",\"resourceVersion\":\"1\",%s},"
             "\"spec\":{\"entrypoint\":\"main\"%s}}",
             meta, spec);
    const kube_workflow *w = decode_wf(text);
    ds_wf_obs o;
    kube_workflow_obs(w, &o);
    assert_null(o.decode_error);
    if (want == NULL)
        assert_null(o.family);
    else
        assert_string_equal(o.family, want);
    kube_obj_unref(&w->meta);
}

static void test_family(void **state)
{
    (void)state;
    /* argo submit --from workflowtemplate/nightly */
    expect_family("\"name\":\"nightly-x1\",\"generateName\":\"nightly-\","
                  "\"labels\":{\"workflows.argoproj.io/workflow-template\":\"nightly\"}",
                  ",\"workflowTemplateRef\":{\"name\":\"nightly\"}", "nightly");
    /* A CronWorkflow's run: named <cron>-<unix time>, no generateName. */
    expect_family("\"name\":\"report-1764374400\","
                  "\"labels\":{\"workflows.argoproj.io/cron-workflow\":\"report\"}",
                  ",\"workflowTemplateRef\":{\"name\":\"report-tmpl\"}", "report");
    expect_family("\"name\":\"report-1764374400\","
                  "\"labels\":{\"workflows.argoproj.io/cron-workflow\":\"report\"}",
                  "", "report");
    /* kubectl create of a Workflow that references a template, with its own name */
    expect_family("\"name\":\"adhoc\"", ",\"workflowTemplateRef\":{\"name\":\"nightly\"}",
                  "nightly");
    expect_family("\"name\":\"etl-abcde\",\"generateName\":\"etl-\"", "", "etl-");
    expect_family("\"name\":\"once\"", "", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_workflow_fields),
        cmocka_unit_test(test_unsupported_status_and_bad_types),
        cmocka_unit_test(test_pod_node_annotations),
        cmocka_unit_test(test_ten_thousand_nodes),
        cmocka_unit_test(test_retry_strategy),
        cmocka_unit_test(test_template_requests),
        cmocka_unit_test(test_family),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
