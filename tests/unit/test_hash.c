/* test_hash.c: unit tests of lib/hash.h: FNV-1a's published test vectors, field separation, and
 * NULL fields counted as empty ones. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "hash.h"

static void test_vectors(void **state)
{
    (void)state;
    /* The FNV reference values for 64-bit FNV-1a. */
    assert_true(ds_fnv1a(DS_FNV1A_BASIS, "", 0) == 0xcbf29ce484222325ULL);
    assert_true(ds_fnv1a(DS_FNV1A_BASIS, "a", 1) == 0xaf63dc4c8601ec8cULL);
    assert_true(ds_fnv1a(DS_FNV1A_BASIS, "foobar", 6) == 0x85944171f73967e8ULL);
    /* In pieces as in one go. */
    assert_true(ds_fnv1a(ds_fnv1a(DS_FNV1A_BASIS, "foo", 3), "bar", 3) ==
                ds_fnv1a(DS_FNV1A_BASIS, "foobar", 6));
}

static void test_fields_are_separated(void **state)
{
    (void)state;
    const char *ab_c[] = {"ab", "c"}, *a_bc[] = {"a", "bc"}, *abc[] = {"abc"};
    assert_true(ds_fnv1a_fields(ab_c, 2) != ds_fnv1a_fields(a_bc, 2));
    assert_true(ds_fnv1a_fields(ab_c, 2) != ds_fnv1a_fields(abc, 1));
    assert_true(ds_fnv1a_fields(ab_c, 2) == ds_fnv1a(DS_FNV1A_BASIS,
                                                     "ab\xff"
                                                     "c\xff",
                                                     5));
    /* A field is its bytes then 0xff. */
    uint64_t h = ds_fnv1a(DS_FNV1A_BASIS, "ab\xff", 3);
    assert_true(ds_fnv1a_field(DS_FNV1A_BASIS, "ab") == h);
}

static void test_null_is_empty(void **state)
{
    (void)state;
    const char *with_null[] = {"ns", NULL}, *with_empty[] = {"ns", ""};
    assert_true(ds_fnv1a_fields(with_null, 2) == ds_fnv1a_fields(with_empty, 2));
    assert_true(ds_fnv1a_fields(NULL, 0) == DS_FNV1A_BASIS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_fields_are_separated),
        cmocka_unit_test(test_null_is_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
