/* test_model_input.c: the job model's observations of decoded pods, batch Jobs' metadata and
 * JobGraph ConfigMaps, and node speeds (kube/model_input.h), as the extender and the controller
 * both build their job model from them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kube_test_util.h"
#include "model_input.h"

static kube_meta *decode(kube_kind kind, const char *text)
{
    kube_meta *m = ktest_decode(kind, text);
    if (m == NULL)
        fail_msg("cannot decode the test object");
    return m;
}

static void test_pod_obs(void **state)
{
    (void)state;
    kube_pod *p = (kube_pod *)decode(
        KUBE_KIND_POD,
        "{\"metadata\":{\"name\":\"etl-b\",\"namespace\":\"batch\",\"uid\":\"u-2\","
        "\"resourceVersion\":\"7\",\"creationTimestamp\":\"2026-11-22T10:00:00Z\","
        "\"labels\":{\"dagsched.io/job\":\"etl\",\"dagsched.io/task\":\"b\"},"
        "\"annotations\":{\"dagsched.io/depends-on\":\"a\",\"dagsched.io/runtime\":\"90s\","
        "\"dagsched.io/deadline\":\"2026-11-22T12:00:00Z\",\"dagsched.io/deadline-after\":\"2h\"}},"
        "\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"resources\":{\"requests\":"
        "{\"cpu\":\"1500m\",\"memory\":\"1Gi\"}}}]},"
        "\"status\":{\"phase\":\"Succeeded\",\"startTime\":\"2026-11-22T10:01:00Z\","
        "\"containerStatuses\":[{\"state\":{\"terminated\":{\"finishedAt\":"
        "\"2026-11-22T10:02:30Z\"}}}]}}");
    ds_pod_obs o;
    kube_pod_obs(p, 2.5, &o);
    assert_string_equal(o.ns, "batch");
    assert_string_equal(o.name, "etl-b");
    assert_string_equal(o.uid, "u-2");
    assert_string_equal(o.job_label, "etl");
    assert_null(o.argo_workflow);
    assert_string_equal(o.task, "b");
    assert_string_equal(o.depends_on, "a");
    assert_string_equal(o.runtime, "90s");
    assert_string_equal(o.deadline, "2026-11-22T12:00:00Z");
    assert_string_equal(o.deadline_after, "2h");
    assert_int_equal(o.phase, DS_PHASE_SUCCEEDED);
    assert_true(o.bound);
    /* 2026-11-22T10:00:00Z = 1795341600 */
    assert_true(o.created_at == 1795341600.0);
    assert_true(o.started_at == 1795341660.0);
    assert_true(o.finished_at == 1795341750.0);
    assert_true(o.node_speed == 2.5);
    assert_int_equal(o.request.v[DS_RES_CPU], 1500);
    assert_int_equal(o.request.v[DS_RES_MEMORY], 1073741824);
    kube_obj_unref(&p->meta);

    /* A pending pod without node, times or uid. */
    p = (kube_pod *)decode(KUBE_KIND_POD,
                           "{\"metadata\":{\"name\":\"x\",\"namespace\":\"a\",\"resourceVersion\":"
                           "\"1\",\"labels\":{\"workflows.argoproj.io/workflow\":\"wf\"}},"
                           "\"spec\":{\"nodeName\":\"\"},\"status\":{\"phase\":\"Unknown\"}}");
    kube_pod_obs(p, 1.0, &o);
    assert_string_equal(o.uid, "");
    assert_null(o.job_label);
    assert_string_equal(o.argo_workflow, "wf");
    assert_null(o.task);
    assert_null(o.depends_on);
    assert_int_equal(o.phase, DS_PHASE_UNKNOWN);
    assert_false(o.bound);
    assert_true(isnan(o.created_at));
    assert_true(isnan(o.started_at));
    assert_true(isnan(o.finished_at));
    kube_obj_unref(&p->meta);

    assert_int_equal(kube_model_phase(KUBE_POD_PENDING), DS_PHASE_PENDING);
    assert_int_equal(kube_model_phase(KUBE_POD_RUNNING), DS_PHASE_RUNNING);
    assert_int_equal(kube_model_phase(KUBE_POD_FAILED), DS_PHASE_FAILED);
}

/* A pod whose dagsched metadata is beyond dagsched's bounds (here a 70,000-byte runtime
 * annotation) is observed outside any DAG job, although its labels are kept. */
static void test_pod_obs_dagsched_error(void **state)
{
    (void)state;
    size_t len = 70000 + 512;
    char *text = malloc(len);
    assert_non_null(text);
    int at = snprintf(text, len,
                      "{\"metadata\":{\"name\":\"etl-c\",\"namespace\":\"batch\",\"uid\":\"u-3\","
                      "\"resourceVersion\":\"7\",\"creationTimestamp\":\"2026-11-22T10:00:00Z\","
                      "\"labels\":{\"dagsched.io/job\":\"etl\",\"dagsched.io/task\":\"c\"},"
                      "\"annotations\":{\"dagsched.io/depends-on\":\"a\","
                      "\"dagsched.io/runtime\":\"");
    memset(text + at, '9', 70000);
    snprintf(text + at + 70000, len - (size_t)at - 70000, "s\"}},\"spec\":{}}");
    kube_pod *p = (kube_pod *)decode(KUBE_KIND_POD, text);
    free(text);
    assert_string_equal(p->meta.dagsched_error,
                        "annotation dagsched.io/runtime: 70001 bytes, limit 65536");
    assert_string_equal(kube_meta_label(&p->meta, "dagsched.io/job"), "etl");
    ds_pod_obs o;
    kube_pod_obs(p, 1.0, &o);
    assert_string_equal(o.name, "etl-c");
    assert_null(o.job_label);
    assert_null(o.argo_workflow);
    assert_null(o.task);
    assert_null(o.depends_on);
    assert_null(o.runtime);
    assert_int_equal(o.phase, DS_PHASE_PENDING);
    assert_true(o.created_at == 1795341600.0);
    kube_obj_unref(&p->meta);
}

static void test_job_meta_obs(void **state)
{
    (void)state;
    kube_job *j = (kube_job *)decode(
        KUBE_KIND_JOB, "{\"metadata\":{\"name\":\"etl-c\",\"namespace\":\"batch\",\"uid\":\"j-3\","
                       "\"resourceVersion\":\"4\",\"creationTimestamp\":\"2026-11-22T10:00:00Z\","
                       "\"labels\":{\"dagsched.io/job\":\"etl\",\"dagsched.io/task\":\"c\"}},"
                       "\"spec\":{\"suspend\":true}}");
    ds_pod_obs o;
    memset(&o, 0xff, sizeof o); /* every field is set */
    kube_meta_obs(&j->meta, &o);
    assert_string_equal(o.name, "etl-c");
    assert_string_equal(o.job_label, "etl");
    assert_string_equal(o.task, "c");
    assert_int_equal(o.phase, DS_PHASE_PENDING);
    assert_false(o.bound);
    assert_true(o.created_at == 1795341600.0);
    assert_true(isnan(o.started_at) && isnan(o.finished_at));
    assert_true(o.node_speed == 1.0);
    assert_int_equal(o.request.v[DS_RES_CPU], 0);
    kube_obj_unref(&j->meta);
}

static void test_graph_obs(void **state)
{
    (void)state;
    kube_configmap *cm = (kube_configmap *)decode(
        KUBE_KIND_CONFIGMAP,
        "{\"metadata\":{\"name\":\"etl\",\"namespace\":\"batch\",\"resourceVersion\":\"2\","
        "\"creationTimestamp\":\"2026-11-22T10:00:00Z\"},"
        "\"data\":{\"notes\":\"x\",\"graph.yaml\":\"tasks: []\\n\"}}");
    ds_graph_obs g;
    kube_graph_obs(cm, &g);
    assert_string_equal(g.ns, "batch");
    assert_string_equal(g.name, "etl");
    assert_string_equal(g.yaml, "tasks: []\n");
    assert_int_equal(g.len, 10);
    assert_true(g.created_at == 1795341600.0);
    kube_obj_unref(&cm->meta);

    cm = (kube_configmap *)decode(KUBE_KIND_CONFIGMAP,
                                  "{\"metadata\":{\"name\":\"g\",\"namespace\":\"b\","
                                  "\"resourceVersion\":\"2\"},\"data\":{\"other\":\"x\"}}");
    kube_graph_obs(cm, &g);
    assert_string_equal(g.yaml, "");
    assert_int_equal(g.len, 0);
    assert_true(isnan(g.created_at));
    kube_obj_unref(&cm->meta);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pod_obs),
        cmocka_unit_test(test_pod_obs_dagsched_error),
        cmocka_unit_test(test_job_meta_obs),
        cmocka_unit_test(test_graph_obs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
