/* test_timefmt.c: unit tests of Go-style durations and RFC 3339 timestamps (valid values computed
 * by hand, invalid inputs with their error messages). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "timefmt.h"

struct dur_ok {
    const char *in;
    double seconds;
};

struct bad {
    const char *in;
    const char *msg; /* expected substring of the error message */
};

static void assert_contains(const char *haystack, const char *needle)
{
    if (strstr(haystack, needle) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", haystack, needle);
}

static void assert_seconds(const char *in, double got, double want)
{
    /* Relative 1e-15 (plus 1e-18 absolute): the parse is exact in ns, only the final double
     * conversion rounds. */
    if (fabs(got - want) > fabs(want) * 1e-15 + 1e-18)
        fail_msg("%s: got %.17g, want %.17g", in, got, want);
}

static void test_duration_valid(void **state)
{
    (void)state;
    static const struct dur_ok cases[] = {
        {"0", 0},
        {"+0", 0},
        {"0s", 0},
        {"5s", 5},
        {"+5s", 5},
        {"30s", 30},
        {"1478s", 1478},
        {"5.0s", 5},
        {"5.6s", 5.6},
        {"5.s", 5},
        {".5s", 0.5},
        {"1.004s", 1.004},
        {"1.0040s", 1.004},
        {"100.00100s", 100.001},
        {"10ns", 10e-9},
        {"11us", 11e-6},
        {"12\xc2\xb5s", 12e-6}, /* micro sign */
        {"12\xce\xbcs", 12e-6}, /* Greek mu */
        {"13ms", 0.013},
        {"250ms", 0.25},
        {"15m", 900},
        {"16h", 57600},
        {"1.5h", 5400},
        {"3h30m", 12600},
        {"1m30s", 90},
        {"10.5s4m", 250.5},
        {"0m", 0},
        {"1h2m3s4ms5us6ns", 3723.004005006},
        {"39h9m14.425s", 140954.425},
        {"52763797000ns", 52.763797},
        {"0.100000000000000000000h", 360},
        {"9223372036854775807ns", 9223372036.854775807},
        {"9223372036.854775807s", 9223372036.854775807},
        {"2562047h47m16.854775807s", 9223372036.854775807},
        {"0.000000001s", 1e-9},
        {"0.0000000009s", 0}, /* below 1 ns, truncated like Go */
        /* Leading zeros in a long fraction (the numerator keeps growing, the scale past 10^19). */
        {"47.08371946058713412734\xce\xbcs", 47083e-9},
        {"1.000000000000000000000000000001h", 3600},
        {"0.00000000000000000000000000000000001h", 0},
        {"0.00000000000000000000000000000000000000000000000000000000001h", 0},
        /* Digits past the 19th significant one are dropped, as Go does. */
        {"0.12345678901234567890123456789s", 0.123456789},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ds_err err = {{0}};
        double got = -1;
        if (ds_duration_parse(cases[i].in, &got, &err) != 0)
            fail_msg("%s: unexpected error: %s", cases[i].in, err.msg);
        assert_seconds(cases[i].in, got, cases[i].seconds);
    }
}

static void test_duration_exact(void **state)
{
    (void)state;
    /* Fractions are exact in integer nanoseconds: 0.3333333333333333333h is 1199999999999 ns plus
     * less than 1 ns, so 20m minus 1 ns after truncation, not rounded up to 20m. */
    double got = 0;
    assert_int_equal(ds_duration_parse("0.3333333333333333333h", &got, NULL), 0);
    assert_true(got < 1200.0);
    assert_true(got > 1200.0 - 2e-9);
    /* 1.1s is 1 s + 100000000 ns exactly, the same double as the literal 1.1. */
    assert_int_equal(ds_duration_parse("1.1s", &got, NULL), 0);
    assert_true(got == 1.1);
    assert_int_equal(ds_duration_parse("0.1s", &got, NULL), 0);
    assert_true(got == 0.1);
}

static void test_duration_invalid(void **state)
{
    (void)state;
    static const struct bad cases[] = {
        {"", "duration \"\": empty"},
        {"-5s", "duration \"-5s\": negative durations are not allowed"},
        {"-0", "negative durations are not allowed"},
        {"+", "duration \"+\": no number after the sign"},
        {"3", "duration \"3\": missing unit"},
        {"00", "missing unit"},
        {"1.5", "missing unit"},
        {"s", "duration \"s\": expected a number at offset 0, found 's'"},
        {"5s ", "unknown unit \"s \""},
        {" 5s", "expected a number at offset 0"},
        {".s", "duration \".s\": a '.' must have digits next to it"},
        {"+.s", "a '.' must have digits next to it"},
        {"1.2.3s", "duration \"1.2.3s\": missing unit"},
        {"1d", "duration \"1d\": unknown unit \"d\" (use ns, us, ms, s, m or h)"},
        {"1 s", "unknown unit \" s\""},
        {"1sec", "unknown unit \"sec\""},
        {"1S", "unknown unit \"S\""},
        {"1H", "unknown unit \"H\""},
        {"1h-5m", "unknown unit \"h-\""},
        {"1e3s", "unknown unit \"e\""},
        {"1h\x01", "unknown unit \"h\\x01\""},
        {"9223372036854775808ns", "value out of range (largest is 2562047h47m16.854775807s)"},
        {"9223372036.854775808s", "value out of range"},
        {"2562048h", "value out of range"},
        {"2562047h48m", "value out of range"},
        {"99999999999999999999s", "value out of range"},
        {"9223372036854775807ns1ns", "value out of range"},
        {"1111111111111111111111111111111111111111111111111111111111111111s",
         "longer than 64 characters"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ds_err err = {{0}};
        double got = 42;
        if (ds_duration_parse(cases[i].in, &got, &err) != -1)
            fail_msg("%s: accepted as %g", cases[i].in, got);
        assert_contains(err.msg, cases[i].msg);
        assert_true(got == 42); /* output untouched on error */
    }
    /* NULL input and NULL err are both safe. */
    double got = 0;
    ds_err err = {{0}};
    assert_int_equal(ds_duration_parse(NULL, &got, &err), -1);
    assert_string_equal(err.msg, "duration: no value given");
    assert_int_equal(ds_duration_parse("bogus", &got, NULL), -1);
}

static void test_duration_max_len(void **state)
{
    (void)state;
    char s[DS_DURATION_MAX_LEN + 2];
    /* Exactly DS_DURATION_MAX_LEN characters: "0000...0001s" is accepted. */
    memset(s, '0', DS_DURATION_MAX_LEN);
    s[DS_DURATION_MAX_LEN - 2] = '1';
    s[DS_DURATION_MAX_LEN - 1] = 's';
    s[DS_DURATION_MAX_LEN] = '\0';
    double got = 0;
    ds_err err = {{0}};
    assert_int_equal(ds_duration_parse(s, &got, &err), 0);
    assert_true(got == 1.0);
    /* One more character is refused, and the message shows a cut-down copy. */
    memmove(s + 1, s, DS_DURATION_MAX_LEN + 1);
    assert_int_equal(ds_duration_parse(s, &got, &err), -1);
    assert_contains(err.msg, "longer than 64 characters");
    assert_contains(err.msg, "...");
}

struct fmt_case {
    double seconds;
    const char *out;
};

static void test_duration_format(void **state)
{
    (void)state;
    static const struct fmt_case cases[] = {
        {0, "0s"},
        {1, "1s"},
        {90, "1m30s"},
        {0.25, "250ms"},
        {7200, "2h0m0s"},
        {3723.5, "1h2m3.5s"},
        {59.999, "59.999s"},
        {60, "1m0s"},
        {1.5e-6, "1.5\xc2\xb5s"},
        {5e-9, "5ns"},
        {0.0015, "1.5ms"},
        {1e-3, "1ms"},
        {2.000000001, "2.000000001s"},
        {-90, "-1m30s"},
        {140954.425, "39h9m14.425s"},
        {9223372036.0, "2562047h47m16s"},
        {4e-10, "0s"},
        {6e-10, "1ns"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
        {NAN, "NaN"},
        {3600.0 * 1e7, "10000000h"}, /* beyond Go's range: whole hours */
        /* Past 15 significant digits a double's ns are noise and are rounded off. */
        {1000000.123456789, "277h46m40.12345679s"},
        {999999.123456789, "277h46m39.123456789s"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        ds_duration_format(cases[i].seconds, buf, sizeof buf);
        if (strcmp(buf, cases[i].out) != 0)
            fail_msg("format(%.17g) = \"%s\", want \"%s\"", cases[i].seconds, buf, cases[i].out);
    }
}

static void test_duration_format_buffer(void **state)
{
    (void)state;
    char buf[8];
    memset(buf, 'x', sizeof buf);
    ds_duration_format(3723.5, buf, 4);
    assert_string_equal(buf, "1h2");
    assert_int_equal(buf[5], 'x');
    ds_duration_format(90, buf, 1);
    assert_string_equal(buf, "");
    buf[0] = 'x';
    ds_duration_format(90, buf, 0); /* nothing written */
    assert_int_equal(buf[0], 'x');
    ds_duration_format(90, NULL, 10); /* safe */
}

static void test_duration_round_trip(void **state)
{
    (void)state;
    static const char *const texts[] = {"1m30s",        "250ms", "2h0m0s", "1h2m3.5s",
                                        "1.5\xc2\xb5s", "5ns",   "0s",     "39h9m14.425s"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        double s = -1;
        char buf[64];
        assert_int_equal(ds_duration_parse(texts[i], &s, NULL), 0);
        ds_duration_format(s, buf, sizeof buf);
        assert_string_equal(buf, texts[i]);
    }
}

struct ts_ok {
    const char *in;
    double epoch;
};

static void test_timestamp_valid(void **state)
{
    (void)state;
    /* Epochs by hand: days since 1970-01-01 = 365 * years + leap days + day of year. */
    static const struct ts_ok cases[] = {
        {"1970-01-01T00:00:00Z", 0},
        {"1970-01-01t00:00:00z", 0},
        {"1970-01-01T00:00:00+00:00", 0},
        {"1970-01-01T00:00:00-00:00", 0},
        {"1970-01-01T00:00:01Z", 1},
        {"1969-12-31T23:59:59Z", -1},
        {"1970-01-02T00:00:00Z", 86400},
        {"1970-01-01T01:00:00+01:00", 0},
        {"1970-01-01T00:00:00.5Z", 0.5},
        {"1970-01-01T00:00:00.123456789123Z", 0.123456789}, /* digits past ns dropped */
        /* 56 years with 14 leap days (1972-2024) = 20454 days to 2026-01-01; Nov 22 is day 325;
         * 10:00+02:00 is 08:00Z: 20779 * 86400 + 28800. */
        {"2026-11-22T10:00:00+02:00", 1795334400},
        {"2026-11-22T08:00:00Z", 1795334400},
        {"2026-11-22T12:00:00.5+04:00", 1795334400.5},
        /* 54 years, 13 leap days = 19723 days; Feb 29 is day 59: 19782 * 86400 + 43200. */
        {"2024-02-29T12:00:00Z", 1709208000},
        /* 30 years, 7 leap days = 10957; + 59 days; 23:59:59 local is 05:29:59 next day UTC. */
        {"2000-02-29T23:59:59-05:30", 951888599},
        {"2024-03-01T00:00:00Z", 1709251200},
        {"2023-12-31T23:59:59Z", 1704067199},
        {"0000-01-01T00:00:00Z", -62167219200},
        {"0001-01-01T00:00:00Z", -62135596800},
        {"9999-12-31T23:59:59Z", 253402300799},
        {"2026-01-01T00:00:00+23:59", 1767225600 - 86340},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ds_err err = {{0}};
        double got = -7;
        if (ds_timestamp_parse(cases[i].in, &got, &err) != 0)
            fail_msg("%s: unexpected error: %s", cases[i].in, err.msg);
        if (fabs(got - cases[i].epoch) > 1e-6)
            fail_msg("%s: got %.9f, want %.9f", cases[i].in, got, cases[i].epoch);
    }
}

static void test_timestamp_invalid(void **state)
{
    (void)state;
    static const struct bad cases[] = {
        {"", "timestamp \"\": empty"},
        {"2026-11-22", "timestamp \"2026-11-22\": expected RFC 3339 form"},
        {"2026-11-22T10:00:00", "missing time zone (append Z or an offset such as +02:00)"},
        {"2026-11-22T10:00Z", "expected RFC 3339 form"},
        {"2026-11-22 10:00:00Z", "expected RFC 3339 form"},
        {"2026-11-22X10:00:00Z", "expected RFC 3339 form"},
        {"26-11-22T10:00:00Z", "expected RFC 3339 form"},
        {"2026-1-22T10:00:00Z", "expected RFC 3339 form"},
        {"2026-11-22T1:00:00Z", "expected RFC 3339 form"},
        {"+026-11-22T10:00:00Z", "expected RFC 3339 form"},
        {"2026-11-2aT10:00:00Z", "expected RFC 3339 form"},
        {"2026-00-01T00:00:00Z", "month 0 out of range 1-12"},
        {"2026-13-01T00:00:00Z", "month 13 out of range 1-12"},
        {"2026-01-00T00:00:00Z", "day 0 out of range 1-31 for 2026-01"},
        {"2026-01-32T00:00:00Z", "day 32 out of range 1-31 for 2026-01"},
        {"2026-04-31T00:00:00Z", "day 31 out of range 1-30 for 2026-04"},
        {"2023-02-29T00:00:00Z", "day 29 out of range 1-28 for 2023-02"},
        {"1900-02-29T00:00:00Z", "day 29 out of range 1-28 for 1900-02"},
        {"2100-02-29T00:00:00Z", "day 29 out of range 1-28"},
        {"2024-02-30T00:00:00Z", "day 30 out of range 1-29 for 2024-02"},
        {"2026-11-22T24:00:00Z", "hour 24 out of range 0-23"},
        {"2026-11-22T10:60:00Z", "minute 60 out of range 0-59"},
        {"2026-12-31T23:59:60Z", "second 60 (leap second) is not supported"},
        {"2026-11-22T10:00:61Z", "second out of range 0-59"},
        {"2026-11-22T10:00:00+24:00", "offset hour 24 out of range 0-23"},
        {"2026-11-22T10:00:00+02:60", "offset minute 60 out of range 0-59"},
        {"2026-11-22T10:00:00+0200", "expected RFC 3339 form"},
        {"2026-11-22T10:00:00+02", "expected RFC 3339 form"},
        {"2026-11-22T10:00:00+2:00", "expected RFC 3339 form"},
        {"2026-11-22T10:00:00+02:00 ", "expected RFC 3339 form"},
        {"2026-11-22T10:00:00Z ", "expected RFC 3339 form"},
        {" 2026-11-22T10:00:00Z", "expected RFC 3339 form"},
        {"2026-11-22T10:00:00ZZ", "expected RFC 3339 form"},
        {"2026-11-22T10:00:00.Z", "a '.' must be followed by fractional-second digits"},
        {"2026-11-22T10:00:00,5Z", "expected RFC 3339 form"},
        {"2026-11-22T10:00:00UTC", "expected RFC 3339 form"},
        {"2026-11-22T10:00:00.000000000000000000000000000000000000000000000Z",
         "longer than 64 characters"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ds_err err = {{0}};
        double got = 42;
        if (ds_timestamp_parse(cases[i].in, &got, &err) != -1)
            fail_msg("%s: accepted as %f", cases[i].in, got);
        assert_contains(err.msg, cases[i].msg);
        assert_true(got == 42);
    }
    ds_err err = {{0}};
    double got = 0;
    assert_int_equal(ds_timestamp_parse(NULL, &got, &err), -1);
    assert_string_equal(err.msg, "timestamp: no value given");
    assert_int_equal(ds_timestamp_parse("x", &got, NULL), -1);
}

static void test_timestamp_every_day(void **state)
{
    (void)state;
    /* Walk 1968-01-01 .. 2104-12-31 day by day: each valid date is exactly one day after the
     * previous one, which checks the month lengths and leap years against the epoch arithmetic. */
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    double prev = 0;
    int first = 1;
    for (int y = 1968; y <= 2104; y++) {
        int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        for (int m = 1; m <= 12; m++) {
            int n = mdays[m - 1] + (m == 2 && leap);
            for (int d = 1; d <= n + 1; d++) {
                char s[40];
                snprintf(s, sizeof s, "%04d-%02d-%02dT00:00:00Z", y, m, d);
                double e = 0;
                int rc = ds_timestamp_parse(s, &e, NULL);
                if (d == n + 1) {
                    if (rc != -1)
                        fail_msg("%s accepted", s);
                    continue;
                }
                if (rc != 0)
                    fail_msg("%s rejected", s);
                if (!first && e != prev + 86400)
                    fail_msg("%s: %f is not one day after %f", s, e, prev);
                if (y == 1970 && m == 1 && d == 1)
                    assert_true(e == 0);
                prev = e;
                first = 0;
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duration_valid),      cmocka_unit_test(test_duration_exact),
        cmocka_unit_test(test_duration_invalid),    cmocka_unit_test(test_duration_max_len),
        cmocka_unit_test(test_duration_format),     cmocka_unit_test(test_duration_format_buffer),
        cmocka_unit_test(test_duration_round_trip), cmocka_unit_test(test_timestamp_valid),
        cmocka_unit_test(test_timestamp_invalid),   cmocka_unit_test(test_timestamp_every_day),
    };
    return cmocka_run_group_tests_name("timefmt", tests, NULL, NULL);
}
