/* test_admission.c: unit tests of the admission webhook (extender/admission.h): which pods are
 * gated (scheduler name set, unset, default-scheduler with and without the rewrite; kube-system,
 * the install namespace, bound pods), the exact JSONPatch for pods without gates, with other
 * gates and already gated (idempotent), base64, and the AdmissionReview answers: malformed
 * reviews get 400, non-Pod kinds and non-CREATE operations are allowed unchanged, huge and deeply
 * nested bodies are refused without harm. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "admission.h"

static const ext_adm_opts OPTS = {
    .scheduler_name = "dagsched", .install_namespace = "dagsched-system", .max_body = 1 << 20};

/* A review of a Pod CREATE in namespace ns with the given spec members (JSON text inside {}). */
static char *review(const char *ns, const char *spec)
{
    size_t cap = strlen(spec) + 1024;
    char *s = malloc(cap);
    assert_non_null(s);
    int n = snprintf(s, cap,
                     "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                     "\"request\":{\"uid\":\"705ab4f5-6393-11e8-b7cc-42010a800002\","
                     "\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},"
                     "\"resource\":{\"group\":\"\",\"version\":\"v1\",\"resource\":\"pods\"},"
                     "\"namespace\":\"%s\",\"operation\":\"CREATE\","
                     "\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                     "{\"generateName\":\"etl-a-\",\"namespace\":\"%s\"},"
                     "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]%s%s}}}}",
                     ns, ns, spec[0] != '\0' ? "," : "", spec);
    assert_true(n > 0 && (size_t)n < cap);
    return s;
}

/* The decoded JSONPatch of a 200 answer ("" when it has none), after checking the envelope. */
static void answer(const char *body_in, ext_adm_opts o, ext_adm_result want, const char *patch)
{
    ext_adm_reply r;
    ext_adm_review(&o, body_in, strlen(body_in), &r);
    assert_non_null(r.body);
    assert_int_equal(r.status, 200);
    assert_true(r.json);
    assert_string_equal(ext_adm_result_name(r.result), ext_adm_result_name(want));
    json_error_t je;
    json_t *j = json_loadb(r.body, r.len, 0, &je);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "apiVersion")), "admission.k8s.io/v1");
    assert_string_equal(json_string_value(json_object_get(j, "kind")), "AdmissionReview");
    json_t *resp = json_object_get(j, "response");
    assert_string_equal(json_string_value(json_object_get(resp, "uid")),
                        "705ab4f5-6393-11e8-b7cc-42010a800002");
    assert_true(json_is_true(json_object_get(resp, "allowed")));
    json_t *pt = json_object_get(resp, "patch");
    if (patch == NULL) {
        assert_null(pt);
        assert_null(json_object_get(resp, "patchType"));
    } else {
        assert_string_equal(json_string_value(json_object_get(resp, "patchType")), "JSONPatch");
        char want_b64[1024];
        assert_true(ext_adm_base64((const unsigned char *)patch, strlen(patch), want_b64,
                                   sizeof want_b64) > 0);
        assert_string_equal(json_string_value(pt), want_b64);
    }
    json_decref(j);
    free(r.body);
}

static void check(const char *ns, const char *spec, ext_adm_opts o, ext_adm_result want,
                  const char *patch)
{
    char *b = review(ns, spec);
    answer(b, o, want, patch);
    free(b);
}

#define ADD_ARRAY                                                                                  \
    "{\"op\":\"add\",\"path\":\"/spec/schedulingGates\",\"value\":[{\"name\":\"dagsched.io/"       \
    "dependencies\"}]}"
#define APPEND                                                                                     \
    "{\"op\":\"add\",\"path\":\"/spec/schedulingGates/-\",\"value\":{\"name\":\"dagsched.io/"      \
    "dependencies\"}}"
#define SET_SCHED "{\"op\":\"add\",\"path\":\"/spec/schedulerName\",\"value\":\"dagsched\"}"

static void test_base64(void **state)
{
    (void)state;
    char out[16];
    assert_int_equal(ext_adm_base64((const unsigned char *)"", 0, out, sizeof out), 0);
    assert_string_equal(out, "");
    assert_int_equal(ext_adm_base64((const unsigned char *)"f", 1, out, sizeof out), 4);
    assert_string_equal(out, "Zg==");
    assert_int_equal(ext_adm_base64((const unsigned char *)"fo", 2, out, sizeof out), 4);
    assert_string_equal(out, "Zm8=");
    assert_int_equal(ext_adm_base64((const unsigned char *)"foobar", 6, out, sizeof out), 8);
    assert_string_equal(out, "Zm9vYmFy");
    const unsigned char hi[] = {0xfb, 0xff, 0xbf};
    assert_int_equal(ext_adm_base64(hi, 3, out, sizeof out), 4);
    assert_string_equal(out, "+/+/");
    assert_int_equal(ext_adm_base64((const unsigned char *)"foobar", 6, out, 8), -1); /* NUL */
}

/* The patch for a dagsched pod: the array created when absent (or null), appended to when other
 * gates exist, nothing when our gate is there (a retry or a reinvocation). */
static void test_gate_patch(void **state)
{
    (void)state;
    const char *sched = "\"schedulerName\":\"dagsched\"";
    check("etl", sched, OPTS, EXT_ADM_GATED, "[" ADD_ARRAY "]");
    check("etl", "\"schedulerName\":\"dagsched\",\"schedulingGates\":null", OPTS, EXT_ADM_GATED,
          "[" ADD_ARRAY "]");
    check("etl", "\"schedulerName\":\"dagsched\",\"schedulingGates\":[]", OPTS, EXT_ADM_GATED,
          "[" APPEND "]");
    check("etl",
          "\"schedulerName\":\"dagsched\",\"schedulingGates\":[{\"name\":\"example.com/q\"}]", OPTS,
          EXT_ADM_GATED, "[" APPEND "]");
    check("etl",
          "\"schedulerName\":\"dagsched\",\"schedulingGates\":[{\"name\":\"example.com/q\"},"
          "{\"name\":\"dagsched.io/dependencies\"}]",
          OPTS, EXT_ADM_GATED, NULL);
    /* A gate named like ours only ignoring case is another gate. */
    check("etl",
          "\"schedulerName\":\"dagsched\",\"schedulingGates\":[{\"name\":\"DAGSCHED.io/"
          "dependencies\"}]",
          OPTS, EXT_ADM_GATED, "[" APPEND "]");
    /* Another scheduler name given by flag. */
    ext_adm_opts o = OPTS;
    o.scheduler_name = "batch-sched";
    check("etl", "\"schedulerName\":\"batch-sched\"", o, EXT_ADM_GATED, "[" ADD_ARRAY "]");
    check("etl", sched, o, EXT_ADM_IGNORED, NULL);
}

/* Pods left alone: other schedulers (unset, default-scheduler, another name, a prefix of ours),
 * kube-system, the install namespace, bound pods. */
static void test_not_managed(void **state)
{
    (void)state;
    check("etl", "", OPTS, EXT_ADM_IGNORED, NULL);
    check("etl", "\"schedulerName\":\"default-scheduler\"", OPTS, EXT_ADM_IGNORED, NULL);
    check("etl", "\"schedulerName\":\"dagsched2\"", OPTS, EXT_ADM_IGNORED, NULL);
    check("etl", "\"schedulerName\":\"dag\"", OPTS, EXT_ADM_IGNORED, NULL);
    check("etl", "\"schedulerName\":\"\"", OPTS, EXT_ADM_IGNORED, NULL);
    check("kube-system", "\"schedulerName\":\"dagsched\"", OPTS, EXT_ADM_IGNORED, NULL);
    check("dagsched-system", "\"schedulerName\":\"dagsched\"", OPTS, EXT_ADM_IGNORED, NULL);
    check("etl", "\"schedulerName\":\"dagsched\",\"nodeName\":\"node-1\"", OPTS, EXT_ADM_IGNORED,
          NULL);
    /* An empty nodeName is no binding. */
    check("etl", "\"schedulerName\":\"dagsched\",\"nodeName\":\"\"", OPTS, EXT_ADM_GATED,
          "[" ADD_ARRAY "]");
    /* A scheduler name over 253 bytes is not ours even when it starts like it. */
    char big[400], spec[500];
    memset(big, 'd', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    memcpy(big, "dagsched", 8);
    snprintf(spec, sizeof spec, "\"schedulerName\":\"%s\"", big);
    ext_adm_opts o = OPTS;
    o.set_scheduler_name = true;
    check("etl", spec, o, EXT_ADM_IGNORED, NULL);
}

/* With the rewrite (the /mutate-pods/set-scheduler-name route): empty or default-scheduler pods
 * become dagsched pods and are gated in one patch; other schedulers and excluded namespaces
 * are untouched. */
static void test_set_scheduler_name(void **state)
{
    (void)state;
    ext_adm_opts o = OPTS;
    o.set_scheduler_name = true;
    check("etl", "", o, EXT_ADM_GATED, "[" SET_SCHED "," ADD_ARRAY "]");
    check("etl", "\"schedulerName\":\"default-scheduler\"", o, EXT_ADM_GATED,
          "[" SET_SCHED "," ADD_ARRAY "]");
    check("etl",
          "\"schedulerName\":\"default-scheduler\",\"schedulingGates\":[{\"name\":\"dagsched.io/"
          "dependencies\"}]",
          o, EXT_ADM_GATED, "[" SET_SCHED "]");
    check("etl", "\"schedulerName\":\"dagsched\"", o, EXT_ADM_GATED, "[" ADD_ARRAY "]");
    check("etl", "\"schedulerName\":\"volcano\"", o, EXT_ADM_IGNORED, NULL);
    check("kube-system", "", o, EXT_ADM_IGNORED, NULL);
    check("dagsched-system", "", o, EXT_ADM_IGNORED, NULL);
}

/* Well-formed reviews of other kinds, subresources and operations: allowed, no patch. */
static void test_other_reviews(void **state)
{
    (void)state;
    const char *pod_update =
        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
        "\"uid\":\"705ab4f5-6393-11e8-b7cc-42010a800002\",\"kind\":{\"group\":\"\",\"version\":"
        "\"v1\",\"kind\":\"Pod\"},\"operation\":\"UPDATE\",\"namespace\":\"etl\",\"object\":{"
        "\"spec\":{\"schedulerName\":\"dagsched\"}}}}";
    answer(pod_update, OPTS, EXT_ADM_IGNORED, NULL);
    const char *deploy =
        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
        "\"uid\":\"705ab4f5-6393-11e8-b7cc-42010a800002\",\"kind\":{\"group\":\"apps\","
        "\"version\":\"v1\",\"kind\":\"Deployment\"},\"operation\":\"CREATE\",\"namespace\":"
        "\"etl\",\"object\":{\"spec\":{\"schedulerName\":\"dagsched\"}}}}";
    answer(deploy, OPTS, EXT_ADM_IGNORED, NULL);
    const char *binding =
        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
        "\"uid\":\"705ab4f5-6393-11e8-b7cc-42010a800002\",\"kind\":{\"group\":\"\",\"version\":"
        "\"v1\",\"kind\":\"Pod\"},\"subResource\":\"binding\",\"operation\":\"CREATE\","
        "\"namespace\":\"etl\",\"object\":{\"spec\":{\"schedulerName\":\"dagsched\"}}}}";
    answer(binding, OPTS, EXT_ADM_IGNORED, NULL);
    /* A Pod CREATE without its object cannot be acted on: 400. */
    const char *no_obj =
        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
        "\"uid\":\"u1\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},"
        "\"operation\":\"CREATE\",\"namespace\":\"etl\"}}";
    ext_adm_reply r;
    ext_adm_review(&OPTS, no_obj, strlen(no_obj), &r);
    assert_int_equal(r.status, 400);
    assert_int_equal(r.result, EXT_ADM_ERROR);
    assert_string_equal(r.body, "dagsched: AdmissionReview: request.object: missing or not an "
                                "object for a Pod CREATE\n");
    free(r.body);
}

static void bad(const char *body, size_t len, const char *msg)
{
    ext_adm_reply r;
    ext_adm_review(&OPTS, body, len, &r);
    assert_int_equal(r.status, 400);
    assert_false(r.json);
    assert_int_equal(r.result, EXT_ADM_ERROR);
    assert_string_equal(ext_adm_result_name(r.result), "error");
    assert_non_null(r.body);
    assert_string_equal(r.error, msg);
    free(r.body);
}

/* Malformed reviews: HTTP 400 naming what is wrong (the API server applies failurePolicy). */
static void test_malformed(void **state)
{
    (void)state;
    bad("", 0, "AdmissionReview: request body is empty");
    bad("[1]", 3, "AdmissionReview: expected a JSON object");
    const char *v1beta1 = "{\"apiVersion\":\"admission.k8s.io/v1beta1\",\"kind\":"
                          "\"AdmissionReview\",\"request\":{\"uid\":\"u\"}}";
    bad(v1beta1, strlen(v1beta1),
        "AdmissionReview: expected apiVersion admission.k8s.io/v1 and kind AdmissionReview (set "
        "admissionReviewVersions: [v1])");
    const char *no_req = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\"}";
    bad(no_req, strlen(no_req), "AdmissionReview: request: missing or not an object");
    const char *no_uid = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                         "\"request\":{\"operation\":\"CREATE\"}}";
    const char *uid_msg =
        "AdmissionReview: request.uid: missing, empty, not a string or over 128 bytes";
    bad(no_uid, strlen(no_uid), uid_msg);
    const char *num_uid = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                          "\"request\":{\"uid\":7}}";
    bad(num_uid, strlen(num_uid), uid_msg);
    char long_uid[400];
    char u[200];
    memset(u, 'a', sizeof u - 1);
    u[sizeof u - 1] = '\0';
    snprintf(long_uid, sizeof long_uid,
             "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
             "\"request\":{\"uid\":\"%s\"}}",
             u);
    bad(long_uid, strlen(long_uid), uid_msg);
    bad("{\"apiVersion\":", 14,
        "AdmissionReview: invalid JSON at byte 14: unexpected end of input, expected a value");
}

/* Nesting beyond the bound and bodies beyond max_body are refused (400) without recursion. */
static void test_huge_and_deep(void **state)
{
    (void)state;
    size_t depth = 100000;
    char *deep = malloc(2 * depth + 1);
    assert_non_null(deep);
    memset(deep, '[', depth);
    memset(deep + depth, ']', depth);
    deep[2 * depth] = '\0';
    ext_adm_reply r;
    ext_adm_review(&OPTS, deep, 2 * depth, &r);
    assert_int_equal(r.status, 400);
    assert_non_null(strstr(r.error, "nested deeper than 100"));
    free(r.body);
    free(deep);

    /* A real review padded past max_body (the HTTP server answers 413 first; here the scanner's
     * own bound holds). */
    ext_adm_opts small = OPTS;
    small.max_body = 1024;
    char *b = review("etl", "\"schedulerName\":\"dagsched\"");
    size_t n = strlen(b) + 2000;
    char *big = malloc(n + 1);
    assert_non_null(big);
    memcpy(big, b, strlen(b));
    memset(big + strlen(b), ' ', n - strlen(b));
    big[n] = '\0';
    ext_adm_review(&small, big, n, &r);
    assert_int_equal(r.status, 400);
    assert_int_equal(r.result, EXT_ADM_ERROR);
    free(r.body);
    /* The same pod within bounds, with many other gates and deep (allowed) nesting elsewhere. */
    free(big);
    free(b);
    char spec[8192];
    size_t k = (size_t)snprintf(spec, sizeof spec,
                                "\"schedulerName\":\"dagsched\",\"x\":[[[[[[[[[[1]]]]]]]]]],"
                                "\"schedulingGates\":[");
    for (int i = 0; i < 200; i++)
        k += (size_t)snprintf(spec + k, sizeof spec - k, "%s{\"name\":\"g%d\"}", i ? "," : "", i);
    snprintf(spec + k, sizeof spec - k, "]");
    check("etl", spec, OPTS, EXT_ADM_GATED, "[" APPEND "]");
}

/* Our gate after 10,000 other gates (the API server accepts any number): found, so no second
 * one is appended (the API server would refuse the pod: a duplicate gate). Without it, appended. */
static void test_gate_among_many(void **state)
{
    (void)state;
    size_t cap = 10001 * 24 + 256, k = 0;
    char *spec = malloc(cap);
    assert_non_null(spec);
    k += (size_t)snprintf(spec, cap, "\"schedulerName\":\"dagsched\",\"schedulingGates\":[");
    for (int i = 0; i < 10000; i++)
        k += (size_t)snprintf(spec + k, cap - k, "%s{\"name\":\"g%d\"}", i ? "," : "", i);
    size_t at = k;
    snprintf(spec + k, cap - k, ",{\"name\":\"dagsched.io/dependencies\"}]");
    check("etl", spec, OPTS, EXT_ADM_GATED, NULL);
    snprintf(spec + at, cap - at, "]");
    check("etl", spec, OPTS, EXT_ADM_GATED, "[" APPEND "]");
    free(spec);
}

/* A uid with a NUL cannot be echoed whole: 400, never a truncated uid. */
static void test_uid_with_nul(void **state)
{
    (void)state;
    const char *b = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                    "\"request\":{\"uid\":\"abc\\u0000def\",\"kind\":{\"group\":\"\","
                    "\"version\":\"v1\",\"kind\":\"Pod\"},\"operation\":\"CREATE\","
                    "\"namespace\":\"etl\",\"object\":{\"metadata\":{\"name\":\"p\"},"
                    "\"spec\":{\"schedulerName\":\"dagsched\"}}}}";
    ext_adm_reply r;
    ext_adm_review(&OPTS, b, strlen(b), &r);
    assert_int_equal(r.status, 400);
    assert_int_equal(r.result, EXT_ADM_ERROR);
    assert_string_equal(r.error, "AdmissionReview: request.uid: contains a NUL character");
    assert_null(strstr(r.body, "\"uid\":\"abc\""));
    free(r.body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base64),        cmocka_unit_test(test_gate_patch),
        cmocka_unit_test(test_not_managed),   cmocka_unit_test(test_set_scheduler_name),
        cmocka_unit_test(test_other_reviews), cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_huge_and_deep), cmocka_unit_test(test_gate_among_many),
        cmocka_unit_test(test_uid_with_nul),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
