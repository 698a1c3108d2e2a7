/* test_strquote.c: unit tests of the quoting of untrusted input in error messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "strquote.h"

static void test_quote_plain_and_escapes(void **state)
{
    (void)state;
    char buf[DS_QUOTE_BUF];
    assert_string_equal(ds_quote("100m", 64, buf, sizeof buf), "\"100m\"");
    assert_string_equal(ds_quote("", 64, buf, sizeof buf), "\"\"");
    assert_string_equal(ds_quote("a\"b\\c", 64, buf, sizeof buf), "\"a\\\"b\\\\c\"");
    assert_string_equal(ds_quote("x\n\t\x7f\xc2\xb5", 64, buf, sizeof buf),
                        "\"x\\x0a\\x09\\x7f\\xc2\\xb5\"");
    assert_string_equal(ds_quote(NULL, 64, buf, sizeof buf), "(null)");
}

static void test_quote_limits(void **state)
{
    (void)state;
    char buf[DS_QUOTE_BUF];
    /* Input longer than max_in: first max_in bytes, then the ellipsis. */
    assert_string_equal(ds_quote("abcdef", 3, buf, sizeof buf), "\"abc\"...");
    assert_string_equal(ds_quote("abc", 3, buf, sizeof buf), "\"abc\"");
    /* Output buffer too small: cut at a whole escape, still terminated. */
    char small[10];
    assert_string_equal(ds_quote("abcdefghij", 64, small, sizeof small), "\"abcd\"...");
    assert_string_equal(ds_quote("\x01\x02", 64, small, sizeof small), "\"\\x01\"...");
    assert_string_equal(ds_quote("ab", 64, small, 6), "\"\"...");
    assert_string_equal(ds_quote("ab", 64, small, 5), "");
    assert_string_equal(ds_quote("ab", 64, NULL, 5), "");
    /* A 64-byte input of escapes fits DS_QUOTE_BUF only in part, without overflow. */
    char big[65];
    memset(big, 1, 64);
    big[64] = '\0';
    const char *q = ds_quote(big, 64, buf, sizeof buf);
    assert_true(strlen(q) < sizeof buf);
    assert_non_null(strstr(q, "\"..."));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quote_plain_and_escapes),
        cmocka_unit_test(test_quote_limits),
    };
    return cmocka_run_group_tests_name("strquote", tests, NULL, NULL);
}
