/* test_strmap.c: unit tests of ds_strmap: insert and look up, a present key keeps its first value,
 * keys as byte ranges (not NUL-terminated, empty, sharing prefixes), the capacity bound, and
 * ds_strmap_reserve keeping every key and value while growing (and refusing what cannot fit). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "strmap.h"

static void test_put_get(void **state)
{
    (void)state;
    ds_strmap m;
    assert_int_equal(ds_strmap_init(&m, 3), 0);
    size_t v = 99, old = 99;
    assert_int_equal(ds_strmap_put(&m, "node-a", 6, 0, NULL), 0);
    assert_int_equal(ds_strmap_put(&m, "node-b", 6, 1, NULL), 0);
    assert_int_equal(ds_strmap_put(&m, "node-a", 6, 7, &old), 1);
    assert_int_equal(old, 0);
    assert_int_equal(ds_strmap_get(&m, "node-a", 6, &v), 0);
    assert_int_equal(v, 0); /* the first value stays */
    assert_int_equal(ds_strmap_get(&m, "node-b", 6, &v), 0);
    assert_int_equal(v, 1);
    assert_int_equal(ds_strmap_get(&m, "node-c", 6, &v), -1);
    /* Byte ranges: a prefix is another key; the empty key is a key. */
    assert_int_equal(ds_strmap_get(&m, "node-ab", 6, &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(ds_strmap_get(&m, "node-a", 5, &v), -1);
    assert_int_equal(ds_strmap_put(&m, "", 0, 5, NULL), 0);
    assert_int_equal(ds_strmap_get(&m, "x", 0, &v), 0);
    assert_int_equal(v, 5);
    assert_int_equal(m.n, 3);
    ds_strmap_free(&m);
    assert_null(m.slots);
    assert_int_equal(ds_strmap_get(&m, "node-a", 6, &v), -1);
    assert_int_equal(ds_strmap_put(&m, "node-a", 6, 0, NULL), -1);
}

static void test_full(void **state)
{
    (void)state;
    ds_strmap m;
    assert_int_equal(ds_strmap_init(&m, 1), 0);
    assert_int_equal(m.max, 8); /* at least 16 slots, half of them usable */
    char keys[9][16];
    for (int i = 0; i < 8; i++) {
        snprintf(keys[i], sizeof keys[i], "k%d", i);
        assert_int_equal(ds_strmap_put(&m, keys[i], strlen(keys[i]), (size_t)i, NULL), 0);
    }
    snprintf(keys[8], sizeof keys[8], "k8");
    assert_int_equal(ds_strmap_put(&m, keys[8], 2, 8, NULL), -1);
    size_t old = 99;
    assert_int_equal(ds_strmap_put(&m, keys[3], 2, 30, &old), 1); /* present: still found */
    assert_int_equal(old, 3);
    ds_strmap_free(&m);
}

static void test_reserve(void **state)
{
    (void)state;
    ds_strmap m;
    assert_int_equal(ds_strmap_init(&m, 0), 0);
    enum { N = 5000 };
    static char keys[N][16];
    for (size_t i = 0; i < N; i++) {
        snprintf(keys[i], sizeof keys[i], "job-%zu", i);
        if (m.n == m.max)
            assert_int_equal(ds_strmap_reserve(&m, 2 * m.max), 0);
        assert_int_equal(ds_strmap_put(&m, keys[i], strlen(keys[i]), i * 3, NULL), 0);
    }
    assert_int_equal(m.n, N);
    assert_true(m.max >= N);
    for (size_t i = 0; i < N; i++) {
        size_t v = 0;
        assert_int_equal(ds_strmap_get(&m, keys[i], strlen(keys[i]), &v), 0);
        assert_int_equal(v, i * 3);
    }
    size_t v = 0;
    assert_int_equal(ds_strmap_get(&m, "job-5000", 8, &v), -1);
    size_t max = m.max;
    assert_int_equal(ds_strmap_reserve(&m, 10), 0); /* room already: unchanged */
    assert_int_equal(m.max, max);
    assert_int_equal(ds_strmap_reserve(&m, SIZE_MAX), -1); /* too large: unchanged */
    assert_int_equal(m.max, max);
    assert_int_equal(ds_strmap_get(&m, "job-4999", 8, &v), 0);
    assert_int_equal(v, 4999 * 3);
    ds_strmap_free(&m);
    assert_int_equal(ds_strmap_reserve(&m, 10), -1); /* freed */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get),
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_reserve),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
