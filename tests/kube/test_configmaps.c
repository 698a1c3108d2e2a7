/* test_configmaps.c: the ConfigMap objects dagsched writes (kube/configmaps.h): their shape,
 * the conditional replace's resourceVersion, refused incomplete pairs, and reading a key back
 * from a ConfigMap decoded as the informers decode it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "configmaps.h"

static const char *const labels[] = {"app.kubernetes.io/managed-by", "dagsched-controller"};
static const char *const data[] = {"ledger.tsv", "a\tb\n", "tasks.tsv", ""};

static void test_object_shape(void **state)
{
    (void)state;
    kube_cm_spec s = {.ns = "dagsched-system",
                      .name = "ledger",
                      .labels = labels,
                      .n_labels = 1,
                      .data = data,
                      .n_data = 2};
    ds_err err = {{0}};
    json_t *cm = kube_cm_object(&s, &err);
    assert_non_null(cm);
    assert_string_equal(json_string_value(json_object_get(cm, "apiVersion")), "v1");
    assert_string_equal(json_string_value(json_object_get(cm, "kind")), "ConfigMap");
    json_t *meta = json_object_get(cm, "metadata");
    assert_string_equal(json_string_value(json_object_get(meta, "name")), "ledger");
    assert_string_equal(json_string_value(json_object_get(meta, "namespace")), "dagsched-system");
    assert_null(json_object_get(meta, "resourceVersion")); /* no precondition */
    assert_string_equal(json_string_value(json_object_get(json_object_get(meta, "labels"),
                                                          "app.kubernetes.io/managed-by")),
                        "dagsched-controller");
    json_t *d = json_object_get(cm, "data");
    assert_int_equal(json_object_size(d), 2);
    assert_string_equal(json_string_value(json_object_get(d, "ledger.tsv")), "a\tb\n");
    assert_string_equal(json_string_value(json_object_get(d, "tasks.tsv")), "");
    json_decref(cm);

    s.resource_version = "42";
    cm = kube_cm_object(&s, &err);
    assert_non_null(cm);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(cm, "metadata"), "resourceVersion")),
        "42");
    json_decref(cm);
}

static void test_refuses_incomplete_input(void **state)
{
    (void)state;
    const char *const half[] = {"key", NULL};
    kube_cm_spec s = {.ns = "a", .name = "b", .data = half, .n_data = 1};
    ds_err err = {{0}};
    assert_null(kube_cm_object(&s, &err));
    assert_non_null(strstr(err.msg, "data pair 0 is incomplete"));
    const char *const bad_utf8[] = {"key", "\xff\xfe"};
    s.data = bad_utf8;
    assert_null(kube_cm_object(&s, &err));
    assert_non_null(strstr(err.msg, "not a valid UTF-8"));
    s.ns = NULL;
    assert_null(kube_cm_object(&s, &err));
    assert_non_null(strstr(err.msg, "namespace and name are required"));
}

static void test_value_of_a_decoded_configmap(void **state)
{
    (void)state;
    json_t *j = json_loads("{\"metadata\":{\"name\":\"h\",\"namespace\":\"n\","
                           "\"resourceVersion\":\"7\"},"
                           "\"data\":{\"history.tsv\":\"x\\t1\\n\",\"other\":\"y\"}}",
                           0, NULL);
    assert_non_null(j);
    kube_meta *m = NULL;
    ds_err err = {{0}};
    assert_int_equal(kube_obj_decode(KUBE_KIND_CONFIGMAP, j, NULL, &m, &err), 0);
    json_decref(j);
    const kube_configmap *cm = (const kube_configmap *)m;
    assert_string_equal(kube_cm_value(cm, "history.tsv"), "x\t1\n");
    assert_string_equal(kube_cm_value(cm, "other"), "y");
    assert_null(kube_cm_value(cm, "missing"));
    assert_null(kube_cm_value(NULL, "history.tsv"));
    assert_string_equal(cm->meta.resource_version, "7");
    kube_obj_unref(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_object_shape),
        cmocka_unit_test(test_refuses_incomplete_input),
        cmocka_unit_test(test_value_of_a_decoded_configmap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
