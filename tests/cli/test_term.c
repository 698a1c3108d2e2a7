/* test_term.c: unit tests of the terminal rule of kubectl-dagsched (cli/term.h): control
 * characters, escape sequences, C1 controls and bytes that are not UTF-8 come out as "\xNN";
 * valid UTF-8, newlines and tabs pass; free-text fields keep to one line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "term.h"

static void expect(const char *in, size_t n, const char *want)
{
    char out[256];
    size_t len = cli_term_escape(in, n, out, sizeof out);
    assert_string_equal(out, want);
    assert_int_equal(len, strlen(want));
}

#define EXPECT(lit, want) expect(lit, sizeof(lit) - 1, want)

static void test_controls(void **state)
{
    (void)state;
    EXPECT("plain text", "plain text");
    EXPECT("a\nb\tc", "a\nb\tc");
    /* The title-setting OSC sequence of the issue, a colour, a carriage return, BEL, DEL. */
    EXPECT("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07");
    EXPECT("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m");
    EXPECT("row\rforged", "row\\x0dforged");
    EXPECT("\x7f\x01\x1f", "\\x7f\\x01\\x1f");
    EXPECT("nul\0after", "nul\\x00after");
}

static void test_utf8(void **state)
{
    (void)state;
    EXPECT("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
           "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    /* C1 controls: U+009B (CSI) and U+0085 (NEL). */
    EXPECT("\xc2\x9b"
           "31m",
           "\\xc2\\x9b31m");
    EXPECT("\xc2\x85", "\\xc2\\x85");
    EXPECT("\xc2\xa0", "\xc2\xa0"); /* U+00A0 is text */
    /* Not UTF-8: a lone continuation, an overlong form, a surrogate, a byte that never occurs,
     * a sequence cut short by another character, one cut at the end. */
    EXPECT("\x80", "\\x80");
    EXPECT("\xc0\xaf", "\\xc0\\xaf");
    EXPECT("\xed\xa0\x80", "\\xed\\xa0\\x80");
    EXPECT("\xff", "\\xff");
    EXPECT("\xe2\x82x", "\\xe2\\x82x");
    EXPECT("end\xe2\x82", "end\\xe2\\x82");
    EXPECT("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"); /* above U+10FFFF */
}

static void test_small_buffer(void **state)
{
    (void)state;
    char out[8];
    /* Cut at a whole escape, always terminated. */
    size_t n = cli_term_escape("ab\x1b\x1b", 4, out, sizeof out);
    assert_string_equal(out, "ab\\x1b");
    assert_int_equal(n, 6);
    assert_int_equal(cli_term_escape("x", 1, NULL, 0), 0);
}

static void test_oneline(void **state)
{
    (void)state;
    char buf[32];
    assert_string_equal(cli_oneline("a\nb\r\tc", buf, sizeof buf), "a\\nb\\r\\tc");
    assert_string_equal(cli_oneline(NULL, buf, sizeof buf), "");
    char small[6];
    assert_string_equal(cli_oneline("abcdefgh", small, sizeof small), "abc");
    assert_string_equal(cli_oneline("\n\n\n", small, sizeof small), "\\n\\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_controls),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_small_buffer),
        cmocka_unit_test(test_oneline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
