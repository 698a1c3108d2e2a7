/* test_log.c: the fields of log lines (kube_log_f): JSON keys and escaping, fields left out when
 * NULL or empty, the key=value suffix of text lines, and the cut of long values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "log.h"

/* One line logged with fields in the given format, the timestamp skipped: JSON lines from
 * "level" on, text lines from the level on. The caller frees it. */
static char *one_line(kube_log_format fmt, const kube_log_fields *f, const char *msg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *sink = open_memstream(&text, &len);
    assert_non_null(sink);
    kube_log_setup(KUBE_LOG_INFO, fmt, sink);
    KLOG_INFO_F("evict", f, "%s", msg);
    kube_log_setup(KUBE_LOG_INFO, KUBE_LOG_TEXT, NULL);
    fclose(sink);
    assert_non_null(text);
    /* {"ts":"2026-01-02T03:04:05.678Z", is 33 characters; "2026-01-02T03:04:05.678Z " 25. */
    size_t skip = fmt == KUBE_LOG_JSON ? 33 : 25;
    assert_true(len > skip);
    assert_int_equal(text[len - 1], '\n');
    assert_ptr_equal(strchr(text, '\n'), text + len - 1); /* one line */
    char *out = strdup(text + skip);
    assert_non_null(out);
    free(text);
    return out;
}

static void test_json_fields(void **state)
{
    (void)state;
    char *l = one_line(KUBE_LOG_JSON,
                       KLOG_FIELDS(.pod = "train-0", .ns = "team-a", .job = "etl", .task = "train",
                                   .node = "gpu-1", .reason = "deadline"),
                       "evicted");
    assert_string_equal(l, "\"level\":\"info\",\"component\":\"evict\",\"msg\":\"evicted\","
                           "\"pod\":\"train-0\",\"namespace\":\"team-a\",\"job\":\"etl\","
                           "\"task\":\"train\",\"node\":\"gpu-1\",\"reason\":\"deadline\"}\n");
    free(l);
}

static void test_json_missing_fields_left_out(void **state)
{
    (void)state;
    /* NULL and "" both leave the key out; no fields at all is exactly kube_log's line. */
    char *l = one_line(KUBE_LOG_JSON, KLOG_FIELDS(.pod = "p", .job = "", .node = NULL), "m");
    assert_string_equal(
        l, "\"level\":\"info\",\"component\":\"evict\",\"msg\":\"m\",\"pod\":\"p\"}\n");
    free(l);
    l = one_line(KUBE_LOG_JSON, NULL, "m");
    assert_string_equal(l, "\"level\":\"info\",\"component\":\"evict\",\"msg\":\"m\"}\n");
    free(l);
    l = one_line(KUBE_LOG_JSON, KLOG_FIELDS(0), "m");
    assert_string_equal(l, "\"level\":\"info\",\"component\":\"evict\",\"msg\":\"m\"}\n");
    free(l);
}

static void test_json_escaping(void **state)
{
    (void)state;
    char *l = one_line(KUBE_LOG_JSON,
                       KLOG_FIELDS(.reason = "no \"room\"\non node\\1\x01", .ns = "a\tb"), "m");
    assert_string_equal(l, "\"level\":\"info\",\"component\":\"evict\",\"msg\":\"m\","
                           "\"namespace\":\"a\\tb\","
                           "\"reason\":\"no \\\"room\\\"\\non node\\\\1\\u0001\"}\n");
    free(l);
}

/* A decoder reads every field back, whatever the value holds, and long values are cut. */
static void test_json_decodes(void **state)
{
    (void)state;
    char big[3 * KUBE_LOG_MAX_FIELD];
    for (size_t i = 0; i + 1 < sizeof big; i++)
        big[i] = (char)(i % 3 == 0 ? '"' : i % 3 == 1 ? '\n' : 'x');
    big[sizeof big - 1] = '\0';
    char msg[2 * KUBE_LOG_MAX_MSG];
    memset(msg, '\\', sizeof msg - 1);
    msg[sizeof msg - 1] = '\0';
    char *l = one_line(
        KUBE_LOG_JSON,
        KLOG_FIELDS(.pod = big, .ns = big, .job = big, .task = big, .node = big, .reason = "r\x1f"),
        msg);
    char *doc = malloc(strlen(l) + 2);
    assert_non_null(doc);
    doc[0] = '{';
    strcpy(doc + 1, l);
    json_error_t e;
    json_t *j = json_loads(doc, 0, &e);
    if (j == NULL)
        fail_msg("not JSON: %s", e.text);
    const char *keys[] = {"pod", "namespace", "job", "task", "node"};
    for (size_t k = 0; k < 5; k++) {
        const char *v = json_string_value(json_object_get(j, keys[k]));
        assert_non_null(v);
        assert_int_equal(strlen(v), KUBE_LOG_MAX_FIELD);
        assert_memory_equal(v, big, KUBE_LOG_MAX_FIELD);
    }
    assert_string_equal(json_string_value(json_object_get(j, "reason")), "r\x1f");
    assert_int_equal(strlen(json_string_value(json_object_get(j, "msg"))), KUBE_LOG_MAX_MSG - 1);
    json_decref(j);
    free(doc);
    free(l);
}

static void test_text_suffix(void **state)
{
    (void)state;
    char *l = one_line(KUBE_LOG_TEXT,
                       KLOG_FIELDS(.pod = "train-0", .ns = "team-a", .node = "",
                                   .reason = "no room \"now\"\nx=1\\"),
                       "evicted");
    assert_string_equal(l, "INFO  evict: evicted pod=train-0 namespace=team-a "
                           "reason=\"no room \\\"now\\\" x=1\\\\\"\n");
    free(l);
    l = one_line(KUBE_LOG_TEXT, NULL, "plain");
    assert_string_equal(l, "INFO  evict: plain\n");
    free(l);
}

static void test_level_filter(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *sink = open_memstream(&text, &len);
    assert_non_null(sink);
    kube_log_setup(KUBE_LOG_WARN, KUBE_LOG_JSON, sink);
    KLOG_INFO_F("x", KLOG_FIELDS(.pod = "p"), "hidden");
    KLOG_DEBUG_F("x", KLOG_FIELDS(.pod = "p"), "hidden");
    KLOG_ERROR_F("x", KLOG_FIELDS(.pod = "p"), "shown");
    kube_log_setup(KUBE_LOG_INFO, KUBE_LOG_TEXT, NULL);
    fclose(sink);
    assert_non_null(strstr(text, "\"level\":\"error\""));
    assert_null(strstr(text, "hidden"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_fields),   cmocka_unit_test(test_json_missing_fields_left_out),
        cmocka_unit_test(test_json_escaping), cmocka_unit_test(test_json_decodes),
        cmocka_unit_test(test_text_suffix),   cmocka_unit_test(test_level_filter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
