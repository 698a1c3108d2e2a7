/* test_quantity.c: unit tests of Kubernetes quantity parsing into milli-units and whole units
 * (rounding away from zero, exact arithmetic, int64 boundaries, rejected spellings). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "quantity.h"

/* RANGE: the result does not fit in int64 and must be refused as out of range. */
#define RANGE INT64_C(0x7eadbeefdeadbeef)

struct q_ok {
    const char *in;
    int64_t milli;
    int64_t value;
};

struct bad {
    const char *in;
    const char *msg;
};

static void assert_contains(const char *haystack, const char *needle)
{
    if (strstr(haystack, needle) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", haystack, needle);
}

static void check_one(const char *in, int64_t want, int milli)
{
    ds_err err = {{0}};
    int64_t got = 42;
    int rc =
        milli ? ds_quantity_parse_milli(in, &got, &err) : ds_quantity_parse_value(in, &got, &err);
    const char *what = milli ? "milli" : "value";
    if (want == RANGE) {
        if (rc != -1)
            fail_msg("%s(%s) = %lld, want out of range", what, in, (long long)got);
        assert_contains(err.msg, "value out of range");
        assert_true(got == 42);
        return;
    }
    if (rc != 0)
        fail_msg("%s(%s): unexpected error: %s", what, in, err.msg);
    if (got != want)
        fail_msg("%s(%s) = %lld, want %lld", what, in, (long long)got, (long long)want);
}

static void run_table(const struct q_ok *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        check_one(cases[i].in, cases[i].milli, 1);
        check_one(cases[i].in, cases[i].value, 0);
    }
}

static void test_common_forms(void **state)
{
    (void)state;
    static const struct q_ok cases[] = {
        {"0", 0, 0},
        {"-0", 0, 0},
        {"+0", 0, 0},
        {"0Gi", 0, 0},
        {"000", 0, 0},
        {"100m", 100, 1},
        {"250m", 250, 1},
        {"1", 1000, 1},
        {"1.5", 1500, 2},
        {"2", 2000, 2},
        {"2Gi", 2147483648000, 2147483648},
        {"1e3", 1000000, 1000},
        {"1E3", 1000000, 1000},
        {"500M", 500000000000, 500000000},
        {"0.1", 100, 1},
        {".5", 500, 1},
        {"+.5", 500, 1},
        {"+1", 1000, 1},
        {"-1", -1000, -1},
        {"5e-3", 5, 1},
        {"5e+0", 5000, 5},
        {"1Ki", 1024000, 1024},
        {"128Mi", 134217728000, 134217728},
        {"1.5Gi", 1610612736000, 1610612736},
        {"1Ti", 1099511627776000, 1099511627776},
        {"1Pi", 1125899906842624000, 1125899906842624},
        {"1Ei", RANGE, 1152921504606846976},
        {"8k", 8000000, 8000},
        {"7M", 7000000000, 7000000},
        {"6G", 6000000000000, 6000000000},
        {"5T", 5000000000000000, 5000000000000},
        {"2P", 2000000000000000000, 2000000000000000},
        {"1E", RANGE, 1000000000000000000},
        {"1e18", RANGE, 1000000000000000000},
        {"12n", 1, 1},
        {"1u", 1, 1},
        {"1000u", 1, 1},
        {"1001u", 2, 1},
        {"1.", 1000, 1},
        {"1.G", 1000000000000, 1000000000},
        {"100.035k", 100035000, 100035},
        {"1.3E+6", 1300000000, 1300000},
        {"0.5e-2", 5, 1},
        {"1.2e3", 1200000, 1200},
    };
    run_table(cases, sizeof cases / sizeof cases[0]);
}

static void test_rounding(void **state)
{
    (void)state;
    /* Non-whole results round away from zero in both directions (Kubernetes' int64 path). */
    static const struct q_ok cases[] = {
        {"1.0001", 1001, 2},
        {"1.0000", 1000, 1},
        {"0.0001", 1, 1},
        {"-0.0001", -1, -1},
        {"-1.5", -1500, -2},
        {"-100m", -100, -1},
        {"-12n", -1, -1},
        {"3.001n", 1, 1},
        {"1.1E-9", 1, 1},
        {"0.0000000001", 1, 1},
        {"999999n", 1, 1},
        {"1000001n", 2, 1},
        {"1500001u", 1501, 2},
        {"0.5Mi", 524288000, 524288},
        {"0.05Gi", 53687091200, 53687092}, /* 53687091.2 */
        {"100.035Ki", 102435840, 102436},  /* 102435.84 */
        {".001Ki", 1024, 2},               /* 1.024 */
        {"-.001Ki", -1024, -2},
        {"0.000000000001Ki", 1, 1}, /* 1.024e-12 */
        {"1e-1000000", 1, 1},
        {"-1e-2147483647", -1, -1},
        {"0e2147483647", 0, 0},
        {"0.000e99", 0, 0},
    };
    run_table(cases, sizeof cases / sizeof cases[0]);
}

static void test_int64_boundaries(void **state)
{
    (void)state;
    static const struct q_ok cases[] = {
        {"9223372036854775807", RANGE, INT64_MAX},
        {"9223372036854775807.0000", RANGE, INT64_MAX},
        {"9223372036854775806.1", RANGE, INT64_MAX},
        {"9223372036854775807.000000001", RANGE, RANGE},
        {"9223372036854775808", RANGE, RANGE},
        {"-9223372036854775808", RANGE, INT64_MIN},
        {"-9223372036854775807.5", RANGE, INT64_MIN},
        {"-9223372036854775809", RANGE, RANGE},
        {"9223372036854775807m", INT64_MAX, 9223372036854776},
        {"-9223372036854775808m", INT64_MIN, -9223372036854776},
        {"9223372036854775808m", RANGE, 9223372036854776},
        {"9223372036854775.807", INT64_MAX, 9223372036854776},
        {"9223372036854775.8061", INT64_MAX, 9223372036854776},
        {"9223372036854775.8071", RANGE, 9223372036854776},
        {"9223372036854775.808", RANGE, 9223372036854776},
        {"-9223372036854775.808", INT64_MIN, -9223372036854776},
        {"-9223372036854775.8079", INT64_MIN, -9223372036854776},
        {"-9223372036854775.8081", RANGE, -9223372036854776},
        {"9223372036854775807e-3", INT64_MAX, 9223372036854776},
        {"9.223372036854775807E", RANGE, INT64_MAX},
        {"9E", RANGE, 9000000000000000000},
        {"10E", RANGE, RANGE},
        {"1e19", RANGE, RANGE},
        {"7Ei", RANGE, 8070450532247928832},
        {"8191Pi", RANGE, 9222246136947933184},
        {"8192Pi", RANGE, RANGE},
        {"8Ei", RANGE, RANGE}, /* 2^63: Kubernetes caps it to 2^63-1, here it is an error */
        {"-8Ei", RANGE, INT64_MIN},
        {"9223372036854775807Ki", RANGE, RANGE},
        {"9999999999Ei", RANGE, RANGE},
        {"1e2147483647", RANGE, RANGE},
        {"8388607Ti", RANGE, 9223370937343148032}, /* (2^23-1) * 2^40 */
    };
    run_table(cases, sizeof cases / sizeof cases[0]);
}

static void test_long_digit_strings(void **state)
{
    (void)state;
    /* Longer than any machine integer: the arithmetic must stay exact. */
    static const struct q_ok cases[] = {
        {"00000000000000000000000000000000000000000000000000000000000001", 1000, 1},
        {"0.0000000000000000000000000000000000000000000000000000000000001", 1, 1},
        {"1000000000000000000000000000000000000000e-30", 1000000000000, 1000000000},
        {"123456789012345678901234567890123456789e-30", 123456789013, 123456790},
        {"0.999999999999999999999999999999999999999999999999999999999999Ei", RANGE,
         1152921504606846976},
        {"0.000000000000000000000000000000000000000000000000000000000001Ei", 1, 1},
    };
    run_table(cases, sizeof cases / sizeof cases[0]);
}

static void test_out_of_range_message(void **state)
{
    (void)state;
    ds_err err = {{0}};
    int64_t v = 0;
    assert_int_equal(ds_quantity_parse_value("9999999999Ei", &v, &err), -1);
    assert_string_equal(err.msg, "quantity \"9999999999Ei\": value out of range (does not fit in a "
                                 "64-bit integer)");
    assert_int_equal(ds_quantity_parse_value("-9223372036854775809", &v, &err), -1);
    assert_contains(err.msg, "value out of range (does not fit in a 64-bit integer)");
    assert_int_equal(ds_quantity_parse_milli("1E", &v, &err), -1);
    assert_contains(err.msg,
                    "quantity \"1E\": value out of range (does not fit in 64-bit milli-units)");
}

static void test_invalid(void **state)
{
    (void)state;
    static const struct bad cases[] = {
        {"", "quantity \"\": empty"},
        {"1.2.3", "quantity \"1.2.3\": unexpected '.' at offset 3"},
        {"Gi", "quantity \"Gi\": no number before the suffix"},
        {".Gi", "no number before the suffix"},
        {"1 Gi", "quantity \"1 Gi\": unexpected ' ' at offset 1"},
        {" 1", "unexpected ' ' at offset 0"},
        {"1 ", "unexpected ' ' at offset 1"},
        {"1i", "quantity \"1i\": unknown suffix \"i\" (use n, u, m, k, M, G, T, P, E, Ki, Mi, Gi"},
        {".5i", "unknown suffix \"i\""},
        {"-3.01i", "unknown suffix \"i\""},
        {"1ki", "unknown suffix \"ki\" (suffixes are case-sensitive: did you mean \"Ki\"?)"},
        {"1KI", "did you mean \"Ki\"?"},
        {"1gi", "did you mean \"Gi\"?"},
        {"1K", "unknown suffix \"K\" (suffixes are case-sensitive: did you mean \"k\"?)"},
        {"0.1mi", "did you mean \"Mi\"?"},
        {"1KiB", "unexpected 'B' at offset 3"},
        {"1Zi", "unexpected 'Z' at offset 1"},
        {"0.1am", "unexpected 'a' at offset 3"},
        {"aoeu", "unexpected 'a' at offset 0"},
        {"Inf", "unexpected 'I' at offset 0"},
        {"NaN", "unexpected 'N' at offset 0"},
        {"1e", "unknown suffix \"e\""},
        {"1e+", "exponent has no digits"},
        {"-3.01e-", "exponent has no digits"},
        {"1e1.5", "unexpected '.' at offset 3"},
        {"1e3k", "unexpected 'k' at offset 3"},
        {"1E3Ki", "unexpected 'K' at offset 3"},
        {"1e+-3", "unexpected '-' at offset 3"},
        {"1ee3", "unknown suffix \"ee3\""},
        {"1Ki3", "unknown suffix \"Ki3\""},
        {"1m-3", "unknown suffix \"m-3\""},
        {"1-", "unknown suffix \"-\""},
        {"1..5", "unexpected '.' at offset 2"},
        {"1.1.M", "unexpected '.' at offset 3"},
        {"1+1.0M", "unexpected '.' at offset 3"},
        {"++1", "unexpected '+' at offset 1"},
        {"1,5", "unexpected ',' at offset 1"},
        {"1_000", "unexpected '_' at offset 1"},
        {"0x10", "unexpected 'x' at offset 1"},
        {"1/2", "unexpected '/' at offset 1"},
        {"+", "quantity \"+\": no digits"},
        {"-", "no digits"},
        {".", "no digits"},
        {"-.", "no digits"},
        {"1e2147483648", "exponent out of range"},
        {"1e-2147483648", "exponent out of range"},
        {"1e99999999999999999999", "exponent out of range"},
        {"1\x01", "quantity \"1\\x01\": unexpected byte 0x01 at offset 1"},
        {"\xef\xbc\x91", "unexpected byte 0xef at offset 0"}, /* fullwidth digit one */
        {"1\xc2\xb5", "unexpected byte 0xc2 at offset 1"},    /* micro sign */
        {"11111111111111111111111111111111111111111111111111111111111111111",
         "longer than 64 characters"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int milli = 0; milli <= 1; milli++) {
            ds_err err = {{0}};
            int64_t got = 42;
            int rc = milli ? ds_quantity_parse_milli(cases[i].in, &got, &err)
                           : ds_quantity_parse_value(cases[i].in, &got, &err);
            if (rc != -1)
                fail_msg("%s: accepted as %lld", cases[i].in, (long long)got);
            assert_contains(err.msg, cases[i].msg);
            assert_true(got == 42);
        }
    }
}

static void test_length_limit_and_null(void **state)
{
    (void)state;
    char s[DS_QUANTITY_MAX_LEN + 2];
    memset(s, '0', DS_QUANTITY_MAX_LEN);
    s[DS_QUANTITY_MAX_LEN - 3] = '5';
    s[DS_QUANTITY_MAX_LEN - 2] = 'G';
    s[DS_QUANTITY_MAX_LEN - 1] = 'i';
    s[DS_QUANTITY_MAX_LEN] = '\0';
    int64_t v = 0;
    ds_err err = {{0}};
    assert_int_equal(ds_quantity_parse_value(s, &v, &err), 0); /* exactly the limit: "000...05Gi" */
    assert_true(v == INT64_C(5) * 1024 * 1024 * 1024);
    memmove(s + 1, s, DS_QUANTITY_MAX_LEN + 1);
    assert_int_equal(ds_quantity_parse_value(s, &v, &err), -1);
    assert_contains(err.msg, "longer than 64 characters");
    assert_contains(err.msg, "\"...");

    assert_int_equal(ds_quantity_parse_milli(NULL, &v, &err), -1);
    assert_string_equal(err.msg, "quantity: no value given");
    assert_int_equal(ds_quantity_parse_value(NULL, &v, NULL), -1); /* NULL err is fine */
    assert_int_equal(ds_quantity_parse_value("x", &v, NULL), -1);
    assert_int_equal(ds_quantity_parse_value("9Ei", &v, NULL), -1);
}

static void test_every_suffix_scales(void **state)
{
    (void)state;
    /* 3 with each suffix, both units, against powers computed independently. */
    static const struct {
        const char *suffix;
        int64_t milli; /* of "3<suffix>" */
        int64_t value;
    } cases[] = {
        {"n", 1, 1},
        {"u", 1, 1},
        {"m", 3, 1},
        {"", 3000, 3},
        {"k", 3000000, 3000},
        {"M", 3000000000, 3000000},
        {"G", 3000000000000, 3000000000},
        {"T", 3000000000000000, 3000000000000},
        {"P", 3000000000000000000, 3000000000000000},
        {"E", RANGE, 3000000000000000000},
        {"Ki", 3072000, 3072},
        {"Mi", 3145728000, 3145728},
        {"Gi", 3221225472000, 3221225472},
        {"Ti", 3298534883328000, 3298534883328},
        {"Pi", 3377699720527872000, 3377699720527872},
        {"Ei", RANGE, 3458764513820540928},
        {"e0", 3000, 3},
        {"e-9", 1, 1},
        {"e15", 3000000000000000000, 3000000000000000},
        {"E-3", 3, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char in[16];
        snprintf(in, sizeof in, "3%s", cases[i].suffix);
        check_one(in, cases[i].milli, 1);
        check_one(in, cases[i].value, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_common_forms),          cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_int64_boundaries),      cmocka_unit_test(test_long_digit_strings),
        cmocka_unit_test(test_out_of_range_message),  cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_length_limit_and_null), cmocka_unit_test(test_every_suffix_scales),
    };
    return cmocka_run_group_tests_name("quantity", tests, NULL, NULL);
}
