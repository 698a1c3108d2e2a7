/* test_xml_escape.c: unit tests of ds_xml_escape: entities, control bytes dropped, NULL, and a
 * short buffer that cuts before an entity rather than inside it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "xml_escape.h"

static void test_entities(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(ds_xml_escape("a<b>&\"c\"", b, sizeof b), "a&lt;b&gt;&amp;&quot;c&quot;");
    assert_string_equal(ds_xml_escape("tab\there\nline", b, sizeof b), "tabhereline");
    assert_string_equal(ds_xml_escape(NULL, b, sizeof b), "");
    assert_string_equal(ds_xml_escape("plain-name.1", b, sizeof b), "plain-name.1");
}

static void test_short_buffer(void **state)
{
    (void)state;
    char b[8];
    /* "ab&lt;" needs 6 bytes + NUL; "ab&lt;&amp;" does not fit: cut before the second entity. */
    assert_string_equal(ds_xml_escape("ab<&x", b, sizeof b), "ab&lt;");
    char one[1];
    assert_string_equal(ds_xml_escape("abc", one, sizeof one), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entities),
        cmocka_unit_test(test_short_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
