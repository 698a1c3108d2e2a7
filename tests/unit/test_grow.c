/* test_grow.c: unit tests of ds_grow: the first capacity, doubling with the contents kept, and the
 * refusals (a size that overflows, a zero element size or first capacity) that leave the array
 * and its capacity as they were. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "grow.h"

static void test_first_then_doubles(void **state)
{
    (void)state;
    int *a = NULL;
    size_t cap = 0;
    int *g = ds_grow(a, &cap, sizeof *a, 3);
    assert_non_null(g);
    assert_int_equal(cap, 3);
    a = g;
    for (int i = 0; i < 3; i++)
        a[i] = 10 + i;
    g = ds_grow(a, &cap, sizeof *a, 3);
    assert_non_null(g);
    assert_int_equal(cap, 6);
    a = g;
    for (int i = 0; i < 3; i++)
        assert_int_equal(a[i], 10 + i);
    a[5] = 15; /* the new room is usable (AddressSanitizer checks it) */
    g = ds_grow(a, &cap, sizeof *a, 3);
    assert_non_null(g);
    assert_int_equal(cap, 12);
    free(g);
}

static void test_overflow_refused(void **state)
{
    (void)state;
    char *a = malloc(4);
    assert_non_null(a);
    size_t cap = SIZE_MAX / 2 + 1; /* doubling overflows size_t */
    assert_null(ds_grow(a, &cap, 1, 8));
    assert_int_equal(cap, SIZE_MAX / 2 + 1);
    cap = SIZE_MAX / 16; /* doubles, but twice that many 16-byte elements overflow */
    assert_null(ds_grow(a, &cap, 16, 8));
    assert_int_equal(cap, SIZE_MAX / 16);
    free(a); /* still the caller's */
}

static void test_zero_sizes_refused(void **state)
{
    (void)state;
    size_t cap = 0;
    assert_null(ds_grow(NULL, &cap, 0, 8));
    assert_null(ds_grow(NULL, &cap, 8, 0));
    assert_int_equal(cap, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_then_doubles),
        cmocka_unit_test(test_overflow_refused),
        cmocka_unit_test(test_zero_sizes_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
