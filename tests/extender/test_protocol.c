/* test_protocol.c: unit tests of the extender's JSON tokenizer and wire format: recorded
 * ExtenderArgs / ExtenderPreemptionArgs bodies in both key casings and both nodeCacheCapable
 * modes, empty node lists, malformed and oversized bodies, and the exact JSON of every result. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
#include "test_util.h"

static const js_limits LIM = {.max_depth = 8, .max_tokens = 1000, .max_len = 1 << 20};

static int parse_str(js_doc *d, const char *s, char *err)
{
    return js_parse(d, s, strlen(s), &LIM, err);
}

static void test_jscan_valid(void **state)
{
    (void)state;
    js_doc d;
    char err[JS_ERR_MAX];
    const char *s = " {\"a\": [1, -2.5e3, true, false, null, \"x\\ty\"], \"B\": {}, \"a\": 7} ";
    assert_int_equal(parse_str(&d, s, err), 0);
    assert_int_equal(d.t[0].type, JS_OBJECT);
    assert_int_equal(d.t[0].n, 3);
    assert_int_equal(d.t[0].next, d.n);
    /* Tokens: {, "a", [, 1, -2.5e3, true, false, null, "x\ty", "B", {}, "a", 7 */
    assert_int_equal(d.n, 13);
    assert_int_equal(d.t[2].type, JS_ARRAY);
    assert_int_equal(d.t[2].n, 6);
    assert_int_equal(d.t[2].next, 9);
    /* The last duplicate key wins, as in Go; lookup ignores ASCII case. */
    long v = js_obj_get(&d, 0, "A");
    assert_int_equal(v, 12);
    int64_t i;
    assert_int_equal(js_int64(&d, (size_t)v, &i), 0);
    assert_int_equal(i, 7);
    assert_int_equal(js_int64(&d, 4, &i), -1); /* -2.5e3 is not an integer literal */
    assert_int_equal(js_obj_get(&d, 0, "b"), 10);
    assert_int_equal(js_obj_get(&d, 0, "c"), -1);
    assert_int_equal(js_obj_get(&d, 2, "a"), -1); /* not an object */
    char out[16];
    assert_int_equal(js_str_decode(&d, 8, out, sizeof out), 3);
    assert_string_equal(out, "x\ty");
    assert_int_equal(js_str_decode(&d, 8, out, 3), -1); /* no room for the NUL */
    js_free(&d);

    /* A scalar document, and the empty containers. */
    assert_int_equal(parse_str(&d, "42", err), 0);
    assert_int_equal(d.n, 1);
    js_free(&d);
    assert_int_equal(parse_str(&d, "[[],{}]", err), 0);
    assert_int_equal(d.t[0].n, 2);
    assert_int_equal(d.t[1].next, 2);
    js_free(&d);
}

static void test_jscan_unicode(void **state)
{
    (void)state;
    js_doc d;
    char err[JS_ERR_MAX];
    /* U+00E9, U+20AC, U+1F600 as a surrogate pair, \/ and \". */
    const char *s = "[\"\\u00e9\\u20AC\\ud83d\\ude00x\\/\\\"\"]";
    assert_int_equal(parse_str(&d, s, err), 0);
    char out[64];
    long n = js_str_decode(&d, 1, out, sizeof out);
    assert_int_equal(n, 2 + 3 + 4 + 1 + 1 + 1);
    assert_memory_equal(out, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80x/\"", (size_t)n);
    assert_true(js_str_eq_fold(&d, 1, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80X/\""));
    js_free(&d);

    /* Lone surrogates are refused. */
    assert_int_equal(parse_str(&d, "[\"\\ud800x\"]", err), -1);
    assert_string_equal(err, "invalid JSON at byte 2: invalid \\u escape: high surrogate without a "
                             "low one");
    assert_int_equal(parse_str(&d, "[\"\\ud800\\u0041\"]", err), -1);
    assert_int_equal(parse_str(&d, "[\"\\ud800\"]", err), -1);
    assert_int_equal(parse_str(&d, "[\"x\\udc00\"]", err), -1);
    assert_string_equal(err, "invalid JSON at byte 3: invalid \\u escape: lone low surrogate");

    /* An escaped key still matches. */
    assert_int_equal(parse_str(&d, "{\"\\u0050od\": 1}", err), 0);
    assert_int_equal(js_obj_get(&d, 0, "pod"), 2);
    js_free(&d);
}

static void expect_error(const char *doc, const char *msg)
{
    js_doc d;
    char err[JS_ERR_MAX];
    assert_int_equal(js_parse(&d, doc, strlen(doc), &LIM, err), -1);
    assert_string_equal(err, msg);
    assert_null(d.t);
}

static void test_jscan_invalid(void **state)
{
    (void)state;
    expect_error("", "invalid JSON at byte 0: unexpected end of input, expected a value");
    expect_error("{", "invalid JSON at byte 1: expected a string as object key");
    expect_error("{\"a\" 1}", "invalid JSON at byte 5: expected ':' after an object key");
    expect_error("{\"a\":1,}", "invalid JSON at byte 7: expected a string as object key");
    expect_error("[1,]", "invalid JSON at byte 3: expected a value");
    expect_error("[1 2]", "invalid JSON at byte 3: expected ',' or ']' in an array");
    expect_error("{\"a\":1]", "invalid JSON at byte 6: expected ',' or '}' in an object");
    expect_error("[1", "invalid JSON at byte 2: unexpected end of input inside an object or array");
    expect_error("1 2", "invalid JSON at byte 2: unexpected data after the JSON value");
    expect_error("01", "invalid JSON at byte 1: unexpected data after the JSON value");
    expect_error("-", "invalid JSON at byte 1: invalid number");
    expect_error("1.", "invalid JSON at byte 2: invalid number: digits expected after '.'");
    expect_error("1e+", "invalid JSON at byte 3: invalid number: digits expected in the exponent");
    expect_error("tru", "invalid JSON at byte 0: invalid literal");
    expect_error("\"abc", "invalid JSON at byte 4: unterminated string");
    expect_error("\"a\nb\"", "invalid JSON at byte 2: control character in a string");
    expect_error("\"\\x\"", "invalid JSON at byte 1: invalid escape in a string");
    expect_error("\"\\u12g4\"", "invalid JSON at byte 1: invalid \\u escape");
    expect_error("\"\\u12\"", "invalid JSON at byte 1: truncated \\u escape");
    expect_error("\"\\", "invalid JSON at byte 1: unterminated string");
    expect_error("'a'", "invalid JSON at byte 0: expected a value");
    expect_error("\"a\xff\"", "invalid JSON at byte 2: invalid UTF-8 in a string");
    expect_error("\"\xed\xa0\x80\"", "invalid JSON at byte 1: invalid UTF-8 in a string");
    expect_error("\"\xc0\xaf\"", "invalid JSON at byte 1: invalid UTF-8 in a string");
    expect_error("\"\xe2\x82\"", "invalid JSON at byte 1: invalid UTF-8 in a string");
    expect_error("[[[[[[[[[1]]]]]]]]]", "JSON nested deeper than 8 levels at byte 8");
    /* NUL bytes inside the buffer are data errors, not terminators. */
    js_doc d;
    char err[JS_ERR_MAX];
    assert_int_equal(js_parse(&d, "[1]\0", 4, &LIM, err), -1);
    assert_string_equal(err, "invalid JSON at byte 3: unexpected data after the JSON value");

    js_limits few = LIM;
    few.max_tokens = 3;
    assert_int_equal(js_parse(&d, "[1,2,3]", 7, &few, err), -1);
    assert_string_equal(err, "JSON has more than 3 values at byte 5");
    few = LIM;
    few.max_len = 4;
    assert_int_equal(js_parse(&d, "[1,2]", 5, &few, err), -1);
    assert_string_equal(err, "JSON document larger than 4 bytes (got 5)");
}

static ext_limits limits(void)
{
    ext_limits l;
    ext_limits_default(&l);
    return l;
}

static void check_names(const ext_args *a)
{
    assert_int_equal(a->kind, EXT_NODES_NAMES);
    assert_int_equal(a->n_nodes, 3);
    assert_string_equal(a->names[0], "kwok-node-0");
    assert_string_equal(a->names[1], "kwok-node-1");
    assert_string_equal(a->names[2], "kwok-node-2");
    size_t pl;
    const char *pj = ext_pod_json(&a->doc, a->pod, &pl);
    assert_true(pj[0] == '{' && pj[pl - 1] == '}');
    json_error_t je;
    json_t *pod = json_loadb(pj, pl, 0, &je);
    assert_non_null(pod);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(pod, "metadata"), "name")),
        "etl-transform");
    json_decref(pod);
}

static void test_args_both_casings(void **state)
{
    (void)state;
    ext_limits l = limits();
    const char *files[] = {"filter_names.json", "filter_names_lower.json"};
    for (size_t f = 0; f < 2; f++) {
        size_t len;
        char *body = tu_read_data(files[f], &len);
        ext_args a;
        char err[EXT_ERR_MAX];
        assert_int_equal(ext_parse_args(body, len, &l, &a, err), 0);
        check_names(&a);
        ext_args_free(&a);
        free(body);
    }
}

static void test_filter_result_names(void **state)
{
    (void)state;
    ext_limits l = limits();
    size_t len;
    char *body = tu_read_data("filter_names.json", &len);
    ext_args a;
    char err[EXT_ERR_MAX];
    assert_int_equal(ext_parse_args(body, len, &l, &a, err), 0);
    ext_node_result r[3] = {{.pass = true},
                            {.pass = false,
                             .unresolvable = true,
                             .message = "dagsched: waiting for upstream tasks: extract, clean"},
                            {.pass = false, .message = "dagsched: insufficient \"cpu\""}};
    ds_bytebuf b;
    ext_out_init(&b, 0);
    ext_emit_filter(&b, &a, r, NULL);
    size_t n;
    char *out = ds_bytebuf_take(&b, &n);
    assert_string_equal(out, "{\"Nodes\":null,\"NodeNames\":[\"kwok-node-0\"],"
                             "\"FailedNodes\":{\"kwok-node-2\":\"dagsched: insufficient "
                             "\\\"cpu\\\"\"},\"FailedAndUnresolvableNodes\":{\"kwok-node-1\":"
                             "\"dagsched: waiting for upstream tasks: extract, clean\"},"
                             "\"Error\":\"\"}");
    assert_int_equal(n, strlen(out));
    free(out);

    int scores[3] = {10, 0, 7};
    ext_out_init(&b, 0);
    ext_emit_priorities(&b, &a, scores);
    out = ds_bytebuf_take(&b, &n);
    assert_string_equal(out, "[{\"Host\":\"kwok-node-0\",\"Score\":10},{\"Host\":\"kwok-node-1\","
                             "\"Score\":0},{\"Host\":\"kwok-node-2\",\"Score\":7}]");
    free(out);
    ext_args_free(&a);
    free(body);
}

static void test_empty_node_list(void **state)
{
    (void)state;
    ext_limits l = limits();
    size_t len;
    char *body = tu_read_data("filter_empty.json", &len);
    ext_args a;
    char err[EXT_ERR_MAX];
    assert_int_equal(ext_parse_args(body, len, &l, &a, err), 0);
    assert_int_equal(a.kind, EXT_NODES_NAMES);
    assert_int_equal(a.n_nodes, 0);
    ds_bytebuf b;
    ext_out_init(&b, 0);
    ext_emit_filter(&b, &a, NULL, NULL);
    size_t n;
    char *out = ds_bytebuf_take(&b, &n);
    assert_string_equal(out, "{\"Nodes\":null,\"NodeNames\":[],\"FailedNodes\":{},"
                             "\"FailedAndUnresolvableNodes\":{},\"Error\":\"\"}");
    free(out);
    ext_out_init(&b, 0);
    ext_emit_priorities(&b, &a, NULL);
    out = ds_bytebuf_take(&b, &n);
    assert_string_equal(out, "[]");
    free(out);
    ext_args_free(&a);
    free(body);

    /* Neither Nodes nor NodeNames. */
    const char *none = "{\"Pod\":{}}";
    assert_int_equal(ext_parse_args(none, strlen(none), &l, &a, err), 0);
    assert_int_equal(a.kind, EXT_NODES_ABSENT);
    assert_int_equal(a.n_nodes, 0);
    ext_args_free(&a);
}

static void test_node_list_mode(void **state)
{
    (void)state;
    ext_limits l = limits();
    size_t len;
    char *body = tu_read_data("filter_nodelist.json", &len);
    ext_args a;
    char err[EXT_ERR_MAX];
    assert_int_equal(ext_parse_args(body, len, &l, &a, err), 0);
    assert_int_equal(a.kind, EXT_NODES_LIST);
    assert_int_equal(a.n_nodes, 2);
    assert_string_equal(a.names[0], "kwok-node-0");
    assert_string_equal(a.names[1], "kwok-node-1");

    /* The passing Node is echoed verbatim in a NodeList. */
    ext_node_result r[2] = {{.pass = false, .message = "dagsched: too slow"}, {.pass = true}};
    ds_bytebuf b;
    ext_out_init(&b, 0);
    ext_emit_filter(&b, &a, r, NULL);
    size_t n;
    char *out = ds_bytebuf_take(&b, &n);
    json_error_t je;
    json_t *res = json_loadb(out, n, 0, &je);
    assert_non_null(res);
    json_t *items = json_object_get(json_object_get(res, "Nodes"), "items");
    assert_int_equal(json_array_size(items), 1);
    json_t *node = json_array_get(items, 0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(node, "metadata"), "name")),
        "kwok-node-1");
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(node, "status"), "allocatable"), "cpu")),
        "8");
    assert_true(json_is_null(json_object_get(res, "NodeNames")));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(res, "FailedNodes"), "kwok-node-0")),
        "dagsched: too slow");
    json_decref(res);
    free(out);
    ext_args_free(&a);
    free(body);
}

static void expect_args_error(const char *body, const char *msg)
{
    ext_limits l = limits();
    ext_args a;
    char err[EXT_ERR_MAX];
    assert_int_equal(ext_parse_args(body, strlen(body), &l, &a, err), -1);
    assert_string_equal(err, msg);
    ext_args_free(&a);
}

static void test_malformed_args(void **state)
{
    (void)state;
    expect_args_error("", "request body is empty");
    expect_args_error("[]", "request: expected a JSON object (got array)");
    expect_args_error("{\"Pod\":", "invalid JSON at byte 7: unexpected end of input, expected a "
                                   "value");
    expect_args_error("{\"NodeNames\":[]}", "Pod: missing");
    expect_args_error("{\"Pod\":null,\"NodeNames\":[]}", "Pod: missing");
    expect_args_error("{\"Pod\":\"x\",\"NodeNames\":[]}", "Pod: expected an object (got string)");
    expect_args_error("{\"Pod\":{},\"NodeNames\":{}}",
                      "NodeNames: expected an array of node names (got object)");
    expect_args_error("{\"Pod\":{},\"NodeNames\":[\"a\",1]}",
                      "NodeNames[1]: expected a string (got number)");
    expect_args_error("{\"Pod\":{},\"NodeNames\":[\"\"]}", "NodeNames[0]: not a valid node name");
    expect_args_error("{\"Pod\":{},\"NodeNames\":[\"a b\"]}",
                      "NodeNames[0]: not a valid node name");
    expect_args_error("{\"Pod\":{},\"NodeNames\":[\"a\\u0000\"]}",
                      "NodeNames[0]: not a valid node name");
    expect_args_error("{\"Pod\":{},\"Nodes\":[]}", "Nodes: expected a NodeList object (got array)");
    expect_args_error("{\"Pod\":{},\"Nodes\":{\"items\":{}}}",
                      "Nodes.items: expected an array (got object)");
    expect_args_error("{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{}}]}}",
                      "Nodes.items[0].metadata.name: missing");
    expect_args_error("{\"Pod\":{},\"Nodes\":{\"items\":[7]}}",
                      "Nodes.items[0]: expected a Node object (got number)");

    /* 254-character node name. */
    char body[400];
    char name[255];
    memset(name, 'a', 254);
    name[254] = '\0';
    snprintf(body, sizeof body, "{\"Pod\":{},\"NodeNames\":[\"%s\"]}", name);
    expect_args_error(body, "NodeNames[0]: not a valid node name");
    name[253] = '\0';
    snprintf(body, sizeof body, "{\"Pod\":{},\"NodeNames\":[\"%s\"]}", name);
    ext_limits l = limits();
    ext_args a;
    char err[EXT_ERR_MAX];
    assert_int_equal(ext_parse_args(body, strlen(body), &l, &a, err), 0);
    ext_args_free(&a);

    /* Too deep: 101 nested arrays inside the Pod. */
    char deep[400] = "{\"Pod\":{\"x\":";
    for (int i = 0; i < 101; i++)
        strcat(deep, "[");
    for (int i = 0; i < 101; i++)
        strcat(deep, "]");
    strcat(deep, "}}");
    expect_args_error(deep, "JSON nested deeper than 100 levels at byte 110");
}

static void test_limits(void **state)
{
    (void)state;
    ext_limits l = limits();
    l.max_nodes = 2;
    ext_args a;
    char err[EXT_ERR_MAX];
    const char *three = "{\"Pod\":{},\"NodeNames\":[\"a\",\"b\",\"c\"]}";
    assert_int_equal(ext_parse_args(three, strlen(three), &l, &a, err), -1);
    assert_string_equal(err, "NodeNames: at most 2 nodes (got 3)");
    ext_args_free(&a);
    l = limits();
    l.max_body = 20;
    assert_int_equal(ext_parse_args(three, strlen(three), &l, &a, err), -1);
    assert_string_equal(err, "JSON document larger than 20 bytes (got 36)");
    ext_args_free(&a);
}

static void test_preempt_meta(void **state)
{
    (void)state;
    ext_limits l = limits();
    size_t len;
    char *body = tu_read_data("preempt_meta.json", &len);
    ext_preempt_args a;
    char err[EXT_ERR_MAX];
    assert_int_equal(ext_parse_preempt_args(body, len, &l, &a, err), 0);
    assert_true(a.meta);
    assert_int_equal(a.n_nodes, 2);
    assert_string_equal(a.nodes[0].node, "kwok-node-0");
    assert_int_equal(a.nodes[0].n_pods, 2);
    assert_string_equal(a.nodes[0].uids[0], "uid-victim-a");
    assert_string_equal(a.nodes[0].uids[1], "uid-victim-b");
    assert_int_equal(a.nodes[0].pdb_violations, 1);
    assert_string_equal(a.nodes[1].node, "kwok-node-1");
    assert_string_equal(a.nodes[1].uids[0], "uid-victim-c");

    /* Keep node 0 with victim b only; drop node 1. PDB violations are capped by the kept count.
     */
    bool keep[2] = {true, false};
    bool k0[2] = {false, true}, k1[1] = {true};
    const bool *kept[2] = {k0, k1};
    ds_bytebuf b;
    ext_out_init(&b, 0);
    ext_emit_preemption(&b, &a, keep, kept);
    size_t n;
    char *out = ds_bytebuf_take(&b, &n);
    assert_string_equal(out, "{\"NodeNameToMetaVictims\":{\"kwok-node-0\":{\"Pods\":[{\"UID\":"
                             "\"uid-victim-b\"}],\"NumPDBViolations\":1}}}");
    free(out);
    keep[0] = false;
    ext_out_init(&b, 0);
    ext_emit_preemption(&b, &a, keep, kept);
    out = ds_bytebuf_take(&b, &n);
    assert_string_equal(out, "{\"NodeNameToMetaVictims\":{}}");
    free(out);
    ext_preempt_args_free(&a);
    free(body);
}

static void test_preempt_full_and_lower(void **state)
{
    (void)state;
    ext_limits l = limits();
    size_t len;
    char *body = tu_read_data("preempt_full.json", &len);
    ext_preempt_args a;
    char err[EXT_ERR_MAX];
    assert_int_equal(ext_parse_preempt_args(body, len, &l, &a, err), 0);
    assert_false(a.meta);
    assert_int_equal(a.n_nodes, 1);
    assert_int_equal(a.nodes[0].n_pods, 1);
    assert_string_equal(a.nodes[0].uids[0], "uid-victim-a");
    ext_preempt_args_free(&a);
    free(body);

    const char *lower =
        "{\"pod\":{},\"nodenametometavictims\":{\"n1\":{\"pods\":[{\"uid\":\"u1\"}],"
        "\"numpdbviolations\":2},\"n2\":null}}";
    assert_int_equal(ext_parse_preempt_args(lower, strlen(lower), &l, &a, err), 0);
    assert_true(a.meta);
    assert_int_equal(a.n_nodes, 2);
    assert_string_equal(a.nodes[0].uids[0], "u1");
    assert_int_equal(a.nodes[0].pdb_violations, 2);
    assert_int_equal(a.nodes[1].n_pods, 0);
    ext_preempt_args_free(&a);

    const char *none = "{\"Pod\":{}}";
    assert_int_equal(ext_parse_preempt_args(none, strlen(none), &l, &a, err), 0);
    assert_int_equal(a.n_nodes, 0);
    ext_preempt_args_free(&a);
}

static void expect_preempt_error(const char *body, const char *msg)
{
    ext_limits l = limits();
    ext_preempt_args a;
    char err[EXT_ERR_MAX];
    assert_int_equal(ext_parse_preempt_args(body, strlen(body), &l, &a, err), -1);
    assert_string_equal(err, msg);
    ext_preempt_args_free(&a);
}

static void test_preempt_malformed(void **state)
{
    (void)state;
    expect_preempt_error("{\"NodeNameToMetaVictims\":{}}", "Pod: missing");
    expect_preempt_error("{\"Pod\":{},\"NodeNameToMetaVictims\":[]}",
                         "NodeNameToMetaVictims: expected an object (got array)");
    expect_preempt_error("{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n 1\":{}}}",
                         "NodeNameToMetaVictims: key 0 is not a valid node name");
    expect_preempt_error("{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":7}}",
                         "NodeNameToMetaVictims[n1]: expected an object (got number)");
    expect_preempt_error("{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":{}}}}",
                         "NodeNameToMetaVictims[n1].Pods: expected an array (got object)");
    expect_preempt_error("{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[1]}}}",
                         "NodeNameToMetaVictims[n1].Pods: expected objects (got number)");
    expect_preempt_error("{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"Pods\":[{\"UID\":5}]}}}",
                         "NodeNameToMetaVictims[n1].Pods: UID: expected a string (got number)");
    expect_preempt_error(
        "{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"NumPDBViolations\":-1}}}",
        "NodeNameToMetaVictims[n1].NumPDBViolations: expected an integer >= 0");
    expect_preempt_error(
        "{\"Pod\":{},\"NodeNameToMetaVictims\":{\"n1\":{\"NumPDBViolations\":1.5}}}",
        "NodeNameToMetaVictims[n1].NumPDBViolations: expected an integer >= 0");
}

/* Bodies recorded from kube-scheduler v1.32 (tests/extender/data/recorded_*.json): a DAG root
 * task's filter call in both nodeCacheCapable modes, and a preemption for a high-priority pod. */
static void test_recorded_bodies(void **state)
{
    (void)state;
    ext_limits l = limits();
    char err[EXT_ERR_MAX];
    size_t len;
    char *body = tu_read_data("recorded_filter_names.json", &len);
    ext_args a;
    assert_int_equal(ext_parse_args(body, len, &l, &a, err), 0);
    assert_int_equal(a.kind, EXT_NODES_NAMES);
    assert_int_equal(a.n_nodes, 2);
    assert_string_equal(a.names[0], "dag-1");
    assert_string_equal(a.names[1], "dag-2");
    size_t pl;
    const char *pj = ext_pod_json(&a.doc, a.pod, &pl);
    json_error_t je;
    json_t *pod = json_loadb(pj, pl, 0, &je);
    assert_non_null(pod);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(pod, "metadata"), "name")),
        "etl-extract");
    json_decref(pod);
    ext_args_free(&a);
    free(body);

    body = tu_read_data("recorded_filter_nodelist.json", &len);
    assert_int_equal(ext_parse_args(body, len, &l, &a, err), 0);
    assert_int_equal(a.kind, EXT_NODES_LIST);
    assert_int_equal(a.n_nodes, 2);
    assert_string_equal(a.names[0], "dag-1");
    assert_string_equal(a.names[1], "dag-2");
    /* dag-1 fails: the result's NodeList holds dag-2's Node exactly as received. */
    ext_node_result r[2] = {{.pass = false, .message = "no"}, {.pass = true}};
    ds_bytebuf b;
    ext_out_init(&b, 0);
    ext_emit_filter(&b, &a, r, NULL);
    size_t n;
    char *out = ds_bytebuf_take(&b, &n);
    json_t *res = json_loadb(out, n, 0, &je);
    json_t *in = json_loadb(body, len, 0, &je);
    assert_non_null(res);
    assert_non_null(in);
    json_t *items = json_object_get(json_object_get(res, "Nodes"), "items");
    assert_int_equal(json_array_size(items), 1);
    assert_true(
        json_equal(json_array_get(items, 0),
                   json_array_get(json_object_get(json_object_get(in, "Nodes"), "items"), 1)));
    json_decref(res);
    json_decref(in);
    free(out);
    ext_args_free(&a);
    free(body);

    const char *files[] = {"recorded_preempt_meta.json", "recorded_preempt_full.json"};
    for (int f = 0; f < 2; f++) {
        body = tu_read_data(files[f], &len);
        ext_preempt_args p;
        assert_int_equal(ext_parse_preempt_args(body, len, &l, &p, err), 0);
        assert_int_equal(p.meta, f == 0);
        assert_int_equal(p.n_nodes, 1);
        assert_string_equal(p.nodes[0].node, "pre-1");
        assert_int_equal(p.nodes[0].n_pods, 1);
        assert_string_equal(p.nodes[0].uids[0], "71e8637a-2219-4365-be68-eecbae97bf78");
        assert_int_equal(p.nodes[0].pdb_violations, 0);
        ext_preempt_args_free(&p);
        free(body);
    }
}

static void test_json_string_escaping(void **state)
{
    (void)state;
    ds_bytebuf b;
    ext_out_init(&b, 0);
    ext_put_json_string(&b, "a\"b\\c\n\x01\xc3\xa9\xff\xed\xa0\x80");
    ext_emit_error(&b, "x");
    size_t n;
    char *out = ds_bytebuf_take(&b, &n);
    /* \xff and the encoded surrogate \xed\xa0\x80 (3 bytes) are invalid UTF-8: U+FFFD each
     * byte that cannot start a valid sequence. */
    assert_string_equal(out,
                        "\"a\\\"b\\\\c\\u000a\\u0001\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                        "\xef\xbf\xbd\"{\"Error\":\"x\"}");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jscan_valid),
        cmocka_unit_test(test_jscan_unicode),
        cmocka_unit_test(test_jscan_invalid),
        cmocka_unit_test(test_args_both_casings),
        cmocka_unit_test(test_filter_result_names),
        cmocka_unit_test(test_empty_node_list),
        cmocka_unit_test(test_node_list_mode),
        cmocka_unit_test(test_malformed_args),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_preempt_meta),
        cmocka_unit_test(test_preempt_full_and_lower),
        cmocka_unit_test(test_preempt_malformed),
        cmocka_unit_test(test_recorded_bodies),
        cmocka_unit_test(test_json_string_escaping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
