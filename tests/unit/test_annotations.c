/* test_annotations.c: unit tests of label/annotation value parsing (task names, depends-on lists,
 * job key labels) and of the small containers the job model uses (string map, arena). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "arena.h"
#include "strmap.h"

static bool valid(const char *s)
{
    return ds_name_valid(s, strlen(s));
}

static void test_names(void **state)
{
    (void)state;
    assert_true(valid("a"));
    assert_true(valid("extract-2.b_c"));
    assert_true(valid("A9"));
    assert_false(valid(""));
    assert_false(valid("-a"));
    assert_false(valid("a."));
    assert_false(valid("a b"));
    assert_false(valid("a/b"));
    char n63[64], n64[65];
    memset(n63, 'x', 63);
    n63[63] = '\0';
    memset(n64, 'x', 64);
    n64[64] = '\0';
    assert_true(valid(n63));
    assert_false(valid(n64));
    assert_false(ds_name_valid(NULL, 0));
}

static void test_job_label(void **state)
{
    (void)state;
    const char *label;
    assert_string_equal(ds_job_label_value("etl", "wf", &label), "etl");
    assert_string_equal(label, DS_LABEL_JOB);
    assert_string_equal(ds_job_label_value(NULL, "wf", &label), "wf");
    assert_string_equal(label, "workflows.argoproj.io/workflow");
    assert_null(ds_job_label_value(NULL, NULL, &label));
    assert_null(label);
}

/* Parse s; on success write "name|name|..." into out. */
static int deps(const char *s, char *out, size_t outsize, ds_err *e)
{
    size_t max = ds_depends_on_max_entries(s);
    ds_span *sp = calloc(max, sizeof *sp);
    assert_non_null(sp);
    size_t n = 99;
    int rc = ds_depends_on_parse(s, sp, &n, e);
    out[0] = '\0';
    if (rc == 0) {
        assert_true(n <= max);
        size_t pos = 0;
        for (size_t k = 0; k < n; k++)
            pos += (size_t)snprintf(out + pos, outsize - pos, "%s%.*s", k > 0 ? "|" : "",
                                    (int)sp[k].len, s + sp[k].off);
    } else {
        assert_int_equal(n, 0);
    }
    free(sp);
    return rc;
}

static void test_depends_on(void **state)
{
    (void)state;
    char out[256];
    ds_err e = {{0}};
    assert_int_equal(deps("a,b", out, sizeof out, &e), 0);
    assert_string_equal(out, "a|b");
    assert_int_equal(deps("  extract ,\ttransform-1 ", out, sizeof out, &e), 0);
    assert_string_equal(out, "extract|transform-1");
    assert_int_equal(deps("a", out, sizeof out, &e), 0);
    assert_string_equal(out, "a");
    assert_int_equal(deps("", out, sizeof out, &e), 0);
    assert_string_equal(out, "");
    assert_int_equal(deps("   ", out, sizeof out, &e), 0);
    assert_string_equal(out, "");
    size_t n = 7;
    assert_int_equal(ds_depends_on_parse(NULL, NULL, &n, &e), 0);
    assert_int_equal(n, 0);

    assert_int_equal(deps("a,,b", out, sizeof out, &e), -1);
    assert_string_equal(e.msg, "entry 2 is empty (got \"a,,b\")");
    assert_int_equal(deps("a, ", out, sizeof out, &e), -1);
    assert_string_equal(e.msg, "entry 2 is empty (got \"a, \")");
    assert_int_equal(deps(",a", out, sizeof out, &e), -1);
    assert_string_equal(e.msg, "entry 1 is empty (got \",a\")");
    assert_int_equal(deps("a, b c", out, sizeof out, &e), -1);
    assert_string_equal(e.msg, "entry 2: task name must be 1 to 63 letters, digits, '-', '_' or "
                               "'.', beginning and ending with a letter or digit (got \"b c\")");
    assert_int_equal(deps("a;b", out, sizeof out, &e), -1);
    assert_string_equal(e.msg, "entry 1: task name must be 1 to 63 letters, digits, '-', '_' or "
                               "'.', beginning and ending with a letter or digit (got \"a;b\")");
    assert_int_equal(deps("a\nb", out, sizeof out, &e), -1);
    assert_string_equal(e.msg,
                        "entry 1: task name must be 1 to 63 letters, digits, '-', '_' or "
                        "'.', beginning and ending with a letter or digit (got \"a\\x0ab\")");
}

static void test_depends_on_bounds(void **state)
{
    (void)state;
    size_t len = DS_DEPENDS_ON_MAX_LEN + 1;
    char *s = malloc(len + 1);
    assert_non_null(s);
    for (size_t i = 0; i < len; i++)
        s[i] = i % 2 == 0 ? 'a' : ',';
    s[len] = '\0';
    char out[16];
    ds_err e = {{0}};
    assert_int_equal(deps(s, out, sizeof out, &e), -1);
    assert_string_equal(e.msg, "too long (more than 65536 bytes)");
    /* Exactly at the bound: "a,a,...,a,aa", 32768 entries. */
    s[DS_DEPENDS_ON_MAX_LEN - 1] = 'a';
    s[DS_DEPENDS_ON_MAX_LEN] = '\0';
    size_t max = ds_depends_on_max_entries(s);
    assert_int_equal(max, DS_DEPENDS_ON_MAX_LEN / 2);
    ds_span *sp = calloc(max, sizeof *sp);
    assert_non_null(sp);
    size_t n;
    assert_int_equal(ds_depends_on_parse(s, sp, &n, &e), 0);
    assert_int_equal(n, DS_DEPENDS_ON_MAX_LEN / 2);
    assert_int_equal(sp[n - 1].off, DS_DEPENDS_ON_MAX_LEN - 2);
    assert_int_equal(sp[n - 1].len, 2);
    free(sp);
    free(s);
}

static void test_strmap(void **state)
{
    (void)state;
    ds_strmap m;
    assert_int_equal(ds_strmap_init(&m, 1000), 0);
    char keys[1000][16];
    for (size_t i = 0; i < 1000; i++) {
        snprintf(keys[i], sizeof keys[i], "key-%zu", i);
        assert_int_equal(ds_strmap_put(&m, keys[i], strlen(keys[i]), i, NULL), 0);
    }
    size_t v, existing = 0;
    assert_int_equal(ds_strmap_put(&m, "key-7", 5, 99, &existing), 1);
    assert_int_equal(existing, 7);
    for (size_t i = 0; i < 1000; i++) {
        assert_int_equal(ds_strmap_get(&m, keys[i], strlen(keys[i]), &v), 0);
        assert_int_equal(v, i);
    }
    assert_int_equal(ds_strmap_get(&m, "key-1000", 8, &v), -1);
    /* Keys are compared by length too: "key-1" is a prefix of "key-10". */
    assert_int_equal(ds_strmap_get(&m, "key-10", 5, &v), 0);
    assert_int_equal(v, 1);
    ds_strmap_free(&m);
    assert_int_equal(ds_strmap_get(&m, "key-1", 5, &v), -1);

    /* A full map refuses new keys instead of degrading. */
    assert_int_equal(ds_strmap_init(&m, 0), 0);
    size_t accepted = 0;
    for (size_t i = 0; i < 1000 && ds_strmap_put(&m, keys[i], strlen(keys[i]), i, NULL) == 0; i++)
        accepted++;
    assert_int_equal(accepted, 8); /* capacity 16, at most half full */
    ds_strmap_free(&m);
}

static void test_arena(void **state)
{
    (void)state;
    ds_arena a = {0};
    char *s = ds_arena_strdup(&a, "hello");
    assert_string_equal(s, "hello");
    char *p = ds_arena_printf(&a, "%s-%d", s, 42);
    assert_string_equal(p, "hello-42");
    assert_string_equal(ds_arena_strndup(&a, "abcdef", 3), "abc");
    /* Large and many allocations; all zeroed and distinct. */
    unsigned char *big = ds_arena_alloc(&a, 1 << 20);
    assert_non_null(big);
    for (size_t i = 0; i < (1u << 20); i += 4096)
        assert_int_equal(big[i], 0);
    memset(big, 0xff, 1 << 20);
    for (int i = 0; i < 10000; i++) {
        int *x = ds_arena_calloc(&a, 3, sizeof *x);
        assert_non_null(x);
        assert_int_equal(x[0] | x[1] | x[2], 0);
        x[2] = i;
        assert_true(((uintptr_t)x % 16) == 0);
    }
    assert_string_equal(s, "hello");
    assert_null(ds_arena_alloc(&a, 0));
    assert_null(ds_arena_calloc(&a, SIZE_MAX / 2, 4));
    ds_arena_free(&a);
    assert_null(a.head);
}

/* Whether a depends-on value names upstream tasks: blank is a root, malformed may name some. */
static void test_depends_on_declared(void **state)
{
    (void)state;
    assert_false(ds_depends_on_declared(NULL));
    assert_false(ds_depends_on_declared(""));
    assert_false(ds_depends_on_declared(" \t "));
    assert_true(ds_depends_on_declared("a"));
    assert_true(ds_depends_on_declared("  a, b"));
    assert_true(ds_depends_on_declared(",,"));
    char *blank = malloc(DS_DEPENDS_ON_MAX_LEN + 2);
    assert_non_null(blank);
    memset(blank, ' ', DS_DEPENDS_ON_MAX_LEN + 1);
    blank[DS_DEPENDS_ON_MAX_LEN + 1] = '\0'; /* too long: malformed */
    assert_true(ds_depends_on_declared(blank));
    blank[DS_DEPENDS_ON_MAX_LEN] = '\0';
    assert_false(ds_depends_on_declared(blank));
    free(blank);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_job_label),
        cmocka_unit_test(test_depends_on),
        cmocka_unit_test(test_depends_on_bounds),
        cmocka_unit_test(test_depends_on_declared),
        cmocka_unit_test(test_strmap),
        cmocka_unit_test(test_arena),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
