/* test_node_speed.c: unit tests of the node speed rule g(k) (lib/node_speed.h): the speed label
 * when it holds a number > 0, else Eq. 1, and 1.0 when that is not a number > 0. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "node_speed.h"

static void test_label_parse(void **state)
{
    (void)state;
    assert_true(ds_speed_label_parse("2") == 2.0);
    assert_true(ds_speed_label_parse("0.5") == 0.5);
    assert_true(isnan(ds_speed_label_parse(NULL)));
    assert_true(isnan(ds_speed_label_parse("")));
    assert_true(isnan(ds_speed_label_parse("0")));
    assert_true(isnan(ds_speed_label_parse("-1")));
    assert_true(isnan(ds_speed_label_parse("fast")));
    assert_true(isnan(ds_speed_label_parse("2x")));
    assert_true(isnan(ds_speed_label_parse("inf")));
    assert_true(isnan(ds_speed_label_parse("nan")));
    assert_true(isnan(ds_speed_label_parse("1e999")));
}

static void test_label_wins(void **state)
{
    (void)state;
    ds_policy pol;
    ds_policy_defaults(&pol);
    /* A label of 1.5 on a node half the largest: the label, not Eq. 1. */
    assert_true(ds_node_speed_label("1.5", 8, 16, 16, 32, &pol) == 1.5);
    assert_true(ds_node_speed(1.5, 8, 16, 16, 32, &pol) == 1.5);
}

static void test_eq1_fallback(void **state)
{
    (void)state;
    ds_policy pol;
    ds_policy_defaults(&pol);
    pol.theta_cpu = 0.5;
    pol.theta_memory = 0.5;
    /* Half the cpu and the full memory of the largest node: 0.5 * 0.5 + 0.5 * 1 = 0.75. */
    assert_true(fabs(ds_node_speed_label(NULL, 8, 32, 16, 32, &pol) - 0.75) < 1e-12);
    assert_true(fabs(ds_node_speed_label("bad", 8, 32, 16, 32, &pol) - 0.75) < 1e-12);
    assert_true(fabs(ds_node_speed(NAN, 8, 32, 16, 32, &pol) - 0.75) < 1e-12);
    assert_true(fabs(ds_node_speed(0, 8, 32, 16, 32, &pol) - 0.75) < 1e-12);
}

static void test_clamped_to_reference(void **state)
{
    (void)state;
    ds_policy pol;
    ds_policy_defaults(&pol);
    /* No cpu and no memory while the largest node has some: Eq. 1 gives 0; the speed is 1.0. */
    assert_true(ds_node_speed_label(NULL, 0, 0, 16, 32, &pol) == 1.0);
    assert_true(ds_node_speed(-3, 0, 0, 16, 32, &pol) == 1.0);
    /* No node has any: Eq. 1 says 1.0. */
    assert_true(ds_node_speed_label(NULL, 0, 0, 0, 0, &pol) == 1.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_label_parse),
        cmocka_unit_test(test_label_wins),
        cmocka_unit_test(test_eq1_fallback),
        cmocka_unit_test(test_clamped_to_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
