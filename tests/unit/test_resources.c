/* test_resources.c: unit tests of the resource vector (saturation, fit, kinds, normalisation). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include "resources.h"

static void test_kinds(void **state)
{
    (void)state;
    const char *gpus[] = {"nvidia.com/gpu", "amd.com/gpu"};
    assert_int_equal(ds_res_kind("cpu", gpus, 2), DS_RES_CPU);
    assert_int_equal(ds_res_kind("memory", gpus, 2), DS_RES_MEMORY);
    assert_int_equal(ds_res_kind("ephemeral-storage", gpus, 2), DS_RES_EPHEMERAL);
    assert_int_equal(ds_res_kind("amd.com/gpu", gpus, 2), DS_RES_GPU);
    assert_int_equal(ds_res_kind("gpu", gpus, 2), -1);
    assert_int_equal(ds_res_kind("hugepages-2Mi", gpus, 2), -1);
    assert_int_equal(ds_res_kind(NULL, gpus, 2), -1);
    assert_string_equal(ds_res_name(DS_RES_EPHEMERAL), "ephemeral-storage");
    assert_string_equal(ds_res_name(99), "unknown");
}

static void test_saturation(void **state)
{
    (void)state;
    ds_res a = {{INT64_MAX - 1, 5, INT64_MIN + 1, 0}};
    ds_res b = {{10, 5, 0, 0}};
    ds_res_add(&a, &b);
    assert_true(a.v[DS_RES_CPU] == INT64_MAX);
    assert_int_equal(a.v[DS_RES_MEMORY], 10);
    ds_res c = {{0, 0, 10, 0}};
    ds_res_sub(&a, &c);
    assert_true(a.v[DS_RES_EPHEMERAL] == INT64_MIN);
}

static void test_fits(void **state)
{
    (void)state;
    ds_res free_ = {{1000, 2048, 0, 0}};
    ds_res ok = {{1000, 2048, 0, 0}};
    ds_res too_much_cpu = {{1001, 1, 0, 0}};
    ds_res gpu = {{1, 1, 0, 1}};
    assert_true(ds_res_fits(&ok, &free_));
    assert_false(ds_res_fits(&too_much_cpu, &free_));
    assert_false(ds_res_fits(&gpu, &free_));
    ds_res zero = {{0, 0, 0, 0}};
    assert_true(ds_res_is_zero(&zero));
    assert_false(ds_res_is_zero(&ok));
}

static void test_normalise(void **state)
{
    (void)state;
    ds_res x = {{500, 1024, 7, 1}};
    ds_res cap = {{2000, 4096, 0, 4}};
    double out[DS_RES_N];
    ds_res_normalise(&x, &cap, out);
    assert_double_near(out[DS_RES_CPU], 0.25, 1e-12);
    assert_double_near(out[DS_RES_MEMORY], 0.25, 1e-12);
    assert_double_near(out[DS_RES_EPHEMERAL], 0.0, 1e-12);
    assert_double_near(out[DS_RES_GPU], 0.25, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),
        cmocka_unit_test(test_saturation),
        cmocka_unit_test(test_fits),
        cmocka_unit_test(test_normalise),
    };
    return cmocka_run_group_tests_name("resources", tests, NULL, NULL);
}
