/* test_jobgraph.c: unit tests of the JobGraph document parser: a full document, deadlines, and
 * every kind of rejected input with its exact message (field path and reason). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dag.h"
#include "jobgraph.h"
#include "jobmodel_helpers.h"

#define HEAD "apiVersion: dagsched.io/v1alpha1\nkind: JobGraph\nmetadata: {name: etl}\n"

/* 2026-11-22T10:00:00Z */
#define DEADLINE_EPOCH 1795341600.0

static void test_full_document(void **state)
{
    (void)state;
    const char *y = "apiVersion: dagsched.io/v1alpha1\n"
                    "kind: JobGraph\n"
                    "metadata:\n"
                    "  name: etl\n"
                    "spec:\n"
                    "  deadline: \"2026-11-22T10:00:00Z\"\n"
                    "  tasks:\n"
                    "    - {name: extract, runtime: 90s}\n"
                    "    - name: transform\n"
                    "      runtime: 3m\n"
                    "      dependsOn: [extract]\n"
                    "    - name: load\n"
                    "      runtime: 1m30s\n"
                    "      dependsOn:\n"
                    "        - transform\n"
                    "        - extract\n";
    ds_jobgraph g;
    ds_err e = {{0}};
    assert_int_equal(ds_jobgraph_parse(y, strlen(y), &g, &e), 0);
    assert_string_equal(g.name, "etl");
    assert_int_equal(g.deadline_kind, DS_DEADLINE_ABSOLUTE);
    assert_double_near(g.deadline, DEADLINE_EPOCH, 0);
    assert_int_equal(g.n_tasks, 3);
    assert_string_equal(g.tasks[0].name, "extract");
    assert_double_near(g.tasks[0].runtime_s, 90, 0);
    assert_int_equal(g.tasks[0].n_depends_on, 0);
    assert_string_equal(g.tasks[1].name, "transform");
    assert_double_near(g.tasks[1].runtime_s, 180, 0);
    assert_int_equal(g.tasks[1].n_depends_on, 1);
    assert_string_equal(g.tasks[1].depends_on[0], "extract");
    assert_double_near(g.tasks[2].runtime_s, 90, 0);
    assert_int_equal(g.tasks[2].n_depends_on, 2);
    assert_string_equal(g.tasks[2].depends_on[0], "transform");
    assert_string_equal(g.tasks[2].depends_on[1], "extract");
    ds_jobgraph_free(&g);
    assert_null(g.tasks);
}

static void test_deadline_after_and_none(void **state)
{
    (void)state;
    const char *y = HEAD "spec:\n  deadlineAfter: 10m\n  tasks: [{name: a, runtime: \"0\"}]\n";
    ds_jobgraph g;
    ds_err e = {{0}};
    assert_int_equal(ds_jobgraph_parse(y, strlen(y), &g, &e), 0);
    assert_int_equal(g.deadline_kind, DS_DEADLINE_AFTER);
    assert_double_near(g.deadline, 600, 0);
    assert_double_near(g.tasks[0].runtime_s, 0, 0);
    ds_jobgraph_free(&g);

    y = HEAD "spec:\n  tasks: [{name: a, runtime: 1s, dependsOn: []}]\n";
    assert_int_equal(ds_jobgraph_parse(y, strlen(y), &g, &e), 0);
    assert_int_equal(g.deadline_kind, DS_DEADLINE_NONE);
    assert_int_equal(g.tasks[0].n_depends_on, 0);
    ds_jobgraph_free(&g);
}

/* Parse and expect failure with exactly `msg`; returns nothing, frees everything. */
static void expect_error(const char *yaml, size_t len, const char *msg, const char *name)
{
    ds_jobgraph g;
    ds_err e = {{0}};
    assert_int_equal(ds_jobgraph_parse(yaml, len, &g, &e), -1);
    assert_string_equal(e.msg, msg);
    if (name == NULL)
        assert_null(g.name);
    else
        assert_string_equal(g.name, name);
    assert_null(g.tasks);
    assert_int_equal(g.n_tasks, 0);
    ds_jobgraph_free(&g);
}

static void expect(const char *yaml, const char *msg, const char *name)
{
    expect_error(yaml, strlen(yaml), msg, name);
}

static void test_task_errors(void **state)
{
    (void)state;
    expect(HEAD "spec:\n  tasks:\n    - {name: a, runtime: 1s}\n    - {name: b, runtime: 2s}\n"
                "    - {name: c, runtime: 3x}\n",
           "spec.tasks[2].runtime: duration \"3x\": unknown unit \"x\" (use ns, us, ms, s, m or "
           "h)",
           "etl");
    expect(HEAD "spec:\n  tasks:\n    - {name: a, runtime: 1s}\n    - {name: b, runtime: 2s}\n"
                "    - {name: c, runtime: 3s}\n    - {name: a, runtime: 4s}\n",
           "spec.tasks[3].name: duplicate task name \"a\" (also spec.tasks[0].name)", "etl");
    expect(HEAD "spec:\n  tasks:\n    - {name: a, runtime: 1s}\n"
                "    - {name: b, runtime: 2s, dependsOn: [a, x]}\n",
           "spec.tasks[1].dependsOn[1]: unknown task \"x\"", "etl");
    expect(HEAD "spec:\n  tasks:\n    - {name: a, runtime: 1s, dependsOn: [a]}\n",
           "spec.tasks[0].dependsOn[0]: a task cannot depend on itself", "etl");
    expect(HEAD "spec:\n  tasks:\n    - {name: a, runtime: 1s, retries: 3}\n",
           "spec.tasks[0].retries: unknown field", "etl");
    expect(HEAD "spec:\n  tasks:\n    - {name: a, runtime: 1s, runtime: 2s}\n",
           "spec.tasks[0].runtime: duplicate field", "etl");
    expect(HEAD "spec:\n  tasks:\n    - {name: a}\n", "spec.tasks[0].runtime: required", "etl");
    expect(HEAD "spec:\n  tasks:\n    - {runtime: 1s}\n", "spec.tasks[0].name: required", "etl");
    expect(HEAD "spec:\n  tasks:\n    - {name: a, runtime: [1s]}\n",
           "spec.tasks[0].runtime: must be a string (got a list)", "etl");
    expect(HEAD "spec:\n  tasks:\n    - {name: a, runtime: }\n",
           "spec.tasks[0].runtime: must be a string (got null)", "etl");
    expect(HEAD "spec:\n  tasks:\n    - {name: a, runtime: 1s, dependsOn: a}\n",
           "spec.tasks[0].dependsOn: must be a list (got a string)", "etl");
    expect(HEAD "spec:\n  tasks:\n    - {name: a, runtime: 1s}\n"
                "    - {name: b, runtime: 1s, dependsOn: [a, {x: 1}]}\n",
           "spec.tasks[1].dependsOn[1]: must be a string (got a mapping)", "etl");
    expect(HEAD "spec:\n  tasks:\n    - {name: \"Bad Name\", runtime: 1s}\n",
           "spec.tasks[0].name: must be 1 to 63 letters, digits, '-', '_' or '.', beginning and "
           "ending with a letter or digit (got \"Bad Name\")",
           "etl");
    expect(HEAD "spec:\n  tasks:\n    - {name: a, runtime: 1s, dependsOn: [\"\"]}\n",
           "spec.tasks[0].dependsOn[0]: must be 1 to 63 letters, digits, '-', '_' or '.', "
           "beginning and ending with a letter or digit (got \"\")",
           "etl");
    expect(HEAD "spec:\n  tasks:\n    - a\n", "spec.tasks[0]: must be a mapping (got a string)",
           "etl");
}

static void test_spec_errors(void **state)
{
    (void)state;
    expect(HEAD "spec:\n  tasks: []\n", "spec.tasks: must list at least one task", "etl");
    expect(HEAD "spec:\n  tasks: {a: 1}\n", "spec.tasks: must be a list (got a mapping)", "etl");
    expect(HEAD "spec:\n  deadline: \"2026-11-22T10:00:00Z\"\n", "spec.tasks: required", "etl");
    expect(HEAD "spec:\n  deadline: \"2026-11-22T10:00:00Z\"\n  deadlineAfter: 10m\n"
                "  tasks: [{name: a, runtime: 1s}]\n",
           "spec: deadline and deadlineAfter are mutually exclusive", "etl");
    expect(HEAD "spec:\n  deadline: tomorrow\n  tasks: [{name: a, runtime: 1s}]\n",
           "spec.deadline: timestamp \"tomorrow\": expected RFC 3339 form "
           "YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)",
           "etl");
    expect(HEAD "spec:\n  deadlineAfter: -5s\n  tasks: [{name: a, runtime: 1s}]\n",
           "spec.deadlineAfter: duration \"-5s\": negative durations are not allowed", "etl");
    expect(HEAD "spec:\n  priority: 3\n  tasks: [{name: a, runtime: 1s}]\n",
           "spec.priority: unknown field", "etl");
    expect(HEAD "spec: []\n", "spec: must be a mapping (got a list)", "etl");
    expect(HEAD, "spec: required", "etl");
}

static void test_header_errors(void **state)
{
    (void)state;
    const char *spec = "spec:\n  tasks: [{name: a, runtime: 1s}]\n";
    char buf[512];
    snprintf(buf, sizeof buf, "apiVersion: v1\nkind: JobGraph\nmetadata: {name: etl}\n%s", spec);
    expect(buf, "apiVersion: must be \"dagsched.io/v1alpha1\" (got \"v1\")", "etl");
    snprintf(buf, sizeof buf,
             "apiVersion: dagsched.io/v1alpha1\nkind: Graph\nmetadata: {name: etl}\n%s", spec);
    expect(buf, "kind: must be \"JobGraph\" (got \"Graph\")", "etl");
    snprintf(buf, sizeof buf, "kind: JobGraph\nmetadata: {name: etl}\n%s", spec);
    expect(buf, "apiVersion: required", "etl");
    snprintf(buf, sizeof buf, "apiVersion: dagsched.io/v1alpha1\nkind: JobGraph\n%s", spec);
    expect(buf, "metadata: required", NULL);
    snprintf(buf, sizeof buf,
             "apiVersion: dagsched.io/v1alpha1\nkind: JobGraph\nmetadata: {namespace: x}\n%s",
             spec);
    expect(buf, "metadata.namespace: unknown field", NULL);
    snprintf(buf, sizeof buf,
             "apiVersion: dagsched.io/v1alpha1\nkind: JobGraph\nmetadata: {name: -etl}\n%s", spec);
    expect(buf,
           "metadata.name: must be 1 to 63 letters, digits, '-', '_' or '.', beginning and ending "
           "with a letter or digit (got \"-etl\")",
           NULL);
    /* An unknown top-level field is reported, but the job name is still known. */
    snprintf(buf, sizeof buf, HEAD "status: {}\n%s", spec);
    expect(buf, "status: unknown field", "etl");
    snprintf(buf, sizeof buf, "spec: {}\n" HEAD "kind: JobGraph\n");
    expect(buf, "kind: duplicate field", "etl");
    expect("[1, 2]", "document: must be a mapping (got a list)", NULL);
    expect("", "empty document", NULL);
    expect("# only a comment\n", "empty document", NULL);
    expect("{[a]: 1}", "line 1, column 2: mapping keys must be scalars", NULL);
    expect("{~: 1}", "document: field names must be strings", NULL);
}

static void test_yaml_errors(void **state)
{
    (void)state;
    expect(HEAD "spec: {tasks: [}\n",
           "line 4, column 16: invalid YAML: did not find expected node content (while parsing a "
           "flow node at line 4, column 16)",
           NULL);
    expect(HEAD "spec:\n  tasks: [{name: a, runtime: 1s}]\n---\nkind: JobGraph\n",
           "line 6, column 1: only one YAML document is allowed", NULL);
    /* An alias would let a small document stand for a huge one: anchors are refused where they
     * are written. */
    expect(HEAD "spec:\n  tasks:\n    - {name: a, runtime: &r 1s}\n    - {name: b, runtime: *r}\n",
           "line 6, column 26: YAML anchors are not supported (got &r)", NULL);
    /* Embedded NUL in a scalar. */
    expect(HEAD "spec:\n  tasks: [{name: a, runtime: \"1s\\0\"}]\n",
           "line 5, column 30: NUL characters are not allowed in scalars", NULL);
    /* Size bound. */
    size_t big = DS_JOBGRAPH_MAX_BYTES + 1;
    char *y = malloc(big);
    assert_non_null(y);
    memset(y, ' ', big);
    expect_error(y, big, "too large (got 1048577 bytes, at most 1048576)", NULL);
    free(y);
    ds_jobgraph g;
    ds_err e = {{0}};
    assert_int_equal(ds_jobgraph_parse(NULL, 0, &g, &e), -1);
    assert_string_equal(e.msg, "empty document");
}

/* The bounds every YAML document dagsched reads is loaded under: a "billion laughs" alias bomb
 * is refused at its first anchor, and nesting deeper than the schema at its limit, before the
 * document is walked. */
static void test_yaml_bounds(void **state)
{
    (void)state;
    expect(HEAD "spec:\n  deadlineAfter: 10m\n  tasks:\n"
                "    - &a {name: a, runtime: 1s}\n"
                "    - &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                "    - &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                "    - [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
           "line 7, column 7: YAML anchors are not supported (got &a)", NULL);
    size_t depth = 10000;
    char *y = malloc(strlen(HEAD) + 32 + 2 * depth);
    assert_non_null(y);
    size_t pos = (size_t)sprintf(y, HEAD "spec: {tasks: ");
    for (size_t i = 0; i < depth; i++)
        y[pos++] = '[';
    for (size_t i = 0; i < depth; i++)
        y[pos++] = ']';
    pos += (size_t)sprintf(y + pos, "}\n");
    expect_error(y, pos, "line 4, column 21: nesting deeper than 8 levels", NULL);
    free(y);
}

/* The document need not be NUL-terminated: only `len` bytes are read. */
static void test_length_bounded(void **state)
{
    (void)state;
    const char *y = HEAD "spec:\n  tasks: [{name: a, runtime: 1s}]\nGARBAGE: [";
    size_t len = strlen(y) - strlen("GARBAGE: [");
    char *copy = malloc(len);
    assert_non_null(copy);
    memcpy(copy, y, len);
    ds_jobgraph g;
    ds_err e = {{0}};
    assert_int_equal(ds_jobgraph_parse(copy, len, &g, &e), 0);
    assert_int_equal(g.n_tasks, 1);
    ds_jobgraph_free(&g);
    free(copy);
}

/* A list of DS_DAG_MAX_TASKS + 1 tasks is refused by its length, before its items are read (a
 * list of small scalars stays below the byte bound). */
static void test_task_count_bound(void **state)
{
    (void)state;
    size_t n = DS_DAG_MAX_TASKS + 1;
    char *y = malloc(strlen(HEAD) + 32 + 2 * n);
    assert_non_null(y);
    size_t pos = (size_t)sprintf(y, HEAD "spec:\n  tasks: [");
    for (size_t i = 0; i < n; i++) {
        y[pos++] = '1';
        y[pos++] = ',';
    }
    pos += (size_t)sprintf(y + pos, "]\n");
    assert_true(pos < DS_JOBGRAPH_MAX_BYTES);
    expect_error(y, pos, "spec.tasks: too many tasks (got 100001, at most 100000)", "etl");
    free(y);
}

/* Corrupted documents (bytes replaced, inserted or removed by a fixed pseudo-random sequence) are
 * accepted or rejected with a message, never crash or leak (this runs under ASan too). */
static void test_corrupted_documents(void **state)
{
    (void)state;
    const char *base = HEAD "spec:\n  deadlineAfter: 10m\n  tasks:\n"
                            "    - {name: extract, runtime: 90s}\n"
                            "    - name: transform\n      runtime: 3m\n"
                            "      dependsOn: [extract]\n";
    const char alphabet[] = "{}[],:-&*!|>'\"#%@` \n\tax0\\";
    size_t blen = strlen(base);
    char *doc = malloc(blen + 64);
    assert_non_null(doc);
    uint32_t seed = 12345;
    size_t accepted = 0, rejected = 0;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(doc, base, blen);
        size_t len = blen;
        int edits = 1 + iter % 4;
        for (int k = 0; k < edits; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            char c = alphabet[(seed >> 20) % (sizeof alphabet - 1)];
            switch ((seed >> 4) % 3) {
            case 0:
                doc[at] = c;
                break;
            case 1:
                memmove(doc + at + 1, doc + at, len - at);
                doc[at] = c;
                len++;
                break;
            default:
                if (len > 1) {
                    memmove(doc + at, doc + at + 1, len - at - 1);
                    len--;
                }
            }
        }
        ds_jobgraph g;
        ds_err e = {{0}};
        if (ds_jobgraph_parse(doc, len, &g, &e) == 0) {
            accepted++;
            assert_true(g.n_tasks >= 1);
        } else {
            rejected++;
            assert_true(e.msg[0] != '\0');
            assert_null(g.tasks);
        }
        ds_jobgraph_free(&g);
    }
    /* Both outcomes occur: the corruption is neither always harmless nor always fatal. */
    assert_true(accepted > 0);
    assert_true(rejected > 0);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_document),    cmocka_unit_test(test_deadline_after_and_none),
        cmocka_unit_test(test_task_errors),      cmocka_unit_test(test_spec_errors),
        cmocka_unit_test(test_header_errors),    cmocka_unit_test(test_yaml_errors),
        cmocka_unit_test(test_yaml_bounds),      cmocka_unit_test(test_length_bounded),
        cmocka_unit_test(test_task_count_bound), cmocka_unit_test(test_corrupted_documents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
