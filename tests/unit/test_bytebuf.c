/* test_bytebuf.c: unit tests of ds_bytebuf: growth past the first allocation, the limit (exact
 * fit, one byte over, printf over it), the failed state and reset, out of memory (a request no
 * allocator grants), consume and shrink, room written in place and committed, the contents
 * handed over (take). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bytebuf.h"

/* The out-of-memory test asks for more than any allocator grants: under AddressSanitizer that is
 * a NULL return, as it is in the optimised build, rather than a report. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

static void test_append_and_grow(void **state)
{
    (void)state;
    ds_bytebuf b;
    ds_bytebuf_init(&b, 100000);
    assert_null(b.data);
    assert_int_equal(ds_bytebuf_append(&b, "", 0), 0);
    assert_non_null(b.data);
    assert_string_equal(b.data, "");
    char chunk[1000];
    memset(chunk, 'x', sizeof chunk);
    for (int i = 0; i < 10; i++)
        assert_int_equal(ds_bytebuf_append(&b, chunk, sizeof chunk), 0);
    assert_int_equal(b.len, 10000);
    assert_true(b.cap >= 10001);
    assert_int_equal(b.data[9999], 'x');
    assert_int_equal(b.data[10000], '\0');
    assert_int_equal(ds_bytebuf_printf(&b, "|%d|%s", 42, "end"), 0);
    assert_int_equal(b.len, 10007);
    assert_string_equal(b.data + 10000, "|42|end");
    assert_false(b.overflow);
    assert_false(b.failed);
    ds_bytebuf_free(&b);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
}

static void test_printf_grows_past_room(void **state)
{
    (void)state;
    ds_bytebuf b;
    ds_bytebuf_init(&b, DS_BYTEBUF_UNLIMITED);
    assert_int_equal(ds_bytebuf_printf(&b, "%s", "ab"), 0);
    size_t cap = b.cap;
    /* Longer than the room left: printed again after growing, nothing of the cut print left. */
    assert_int_equal(ds_bytebuf_printf(&b, "%*d", (int)cap + 10, 7), 0);
    assert_int_equal(b.len, 2 + cap + 10);
    assert_int_equal(b.data[2], ' ');
    assert_int_equal(b.data[b.len - 1], '7');
    assert_int_equal(b.data[b.len], '\0');
    ds_bytebuf_free(&b);
}

static void test_limit(void **state)
{
    (void)state;
    ds_bytebuf b;
    ds_bytebuf_init(&b, 8);
    assert_int_equal(ds_bytebuf_append(&b, "12345678", 8), 0); /* exactly the limit */
    assert_string_equal(b.data, "12345678");
    assert_int_equal(b.cap, 9); /* never more than limit + 1 */
    assert_int_equal(ds_bytebuf_append(&b, "9", 1), -1);
    assert_true(b.overflow);
    assert_true(b.failed);
    assert_string_equal(b.data, "12345678");
    /* Failed: even an empty append is refused until reset. */
    assert_int_equal(ds_bytebuf_append(&b, "", 0), -1);
    ds_bytebuf_reset(&b);
    assert_false(b.overflow);
    assert_false(b.failed);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    assert_int_equal(ds_bytebuf_printf(&b, "%s", "123456789"), -1);
    assert_true(b.overflow);
    assert_string_equal(b.data, ""); /* the cut print is undone */
    ds_bytebuf_reset(&b);
    assert_int_equal(ds_bytebuf_printf(&b, "%s", "1234"), 0);
    assert_int_equal(ds_bytebuf_printf(&b, "%s", "5678"), 0);
    assert_int_equal(ds_bytebuf_printf(&b, "%s", "9"), -1);
    assert_string_equal(b.data, "12345678");
    ds_bytebuf_free(&b);
    /* Free keeps the limit; a huge n does not wrap the limit check. */
    assert_int_equal(ds_bytebuf_append(&b, "x", SIZE_MAX), -1);
    ds_bytebuf_free(&b);
}

static void test_limit_zero(void **state)
{
    (void)state;
    ds_bytebuf b;
    ds_bytebuf_init(&b, 0);
    assert_int_equal(ds_bytebuf_append(&b, "", 0), 0);
    assert_string_equal(b.data, "");
    assert_int_equal(ds_bytebuf_append(&b, "a", 1), -1);
    assert_true(b.overflow);
    ds_bytebuf_free(&b);
}

static void test_out_of_memory(void **state)
{
    (void)state;
    ds_bytebuf b;
    ds_bytebuf_init(&b, DS_BYTEBUF_UNLIMITED);
    assert_int_equal(ds_bytebuf_append(&b, "abc", 3), 0);
    /* Half the address space: within the limit, refused by the allocator (never read). */
    static const char src[1];
    assert_int_equal(ds_bytebuf_append(&b, src, SIZE_MAX / 2), -1);
    assert_false(b.overflow);
    assert_true(b.failed);
    assert_int_equal(b.len, 3);
    assert_string_equal(b.data, "abc");
    assert_int_equal(ds_bytebuf_printf(&b, "%s", "d"), -1);
    ds_bytebuf_reset(&b);
    assert_int_equal(ds_bytebuf_printf(&b, "%s", "d"), 0);
    assert_string_equal(b.data, "d");
    ds_bytebuf_free(&b);
}

static void test_consume_and_shrink(void **state)
{
    (void)state;
    ds_bytebuf b;
    ds_bytebuf_init(&b, DS_BYTEBUF_UNLIMITED);
    ds_bytebuf_consume(&b, 5); /* nothing held: no effect */
    assert_null(b.data);
    char big[5000];
    memset(big, 'y', sizeof big);
    assert_int_equal(ds_bytebuf_append(&b, big, sizeof big), 0);
    assert_int_equal(ds_bytebuf_append(&b, "tail", 4), 0);
    ds_bytebuf_consume(&b, 4998);
    assert_string_equal(b.data, "yytail");
    size_t cap = b.cap;
    ds_bytebuf_shrink(&b, 64);
    assert_int_equal(b.cap, 64);
    assert_string_equal(b.data, "yytail");
    ds_bytebuf_shrink(&b, 4); /* the contents would not fit: kept */
    assert_int_equal(b.cap, 64);
    ds_bytebuf_shrink(&b, cap); /* never grows */
    assert_int_equal(b.cap, 64);
    ds_bytebuf_consume(&b, 100); /* more than held: empties */
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    ds_bytebuf_shrink(&b, 64); /* empty: freed */
    assert_null(b.data);
    assert_int_equal(b.cap, 0);
    assert_int_equal(ds_bytebuf_append(&b, "again", 5), 0);
    assert_string_equal(b.data, "again");
    ds_bytebuf_free(&b);
}

static void test_room_and_commit(void **state)
{
    (void)state;
    ds_bytebuf b;
    ds_bytebuf_init(&b, 8);
    char *r = ds_bytebuf_room(&b, 0); /* an empty buffer: allocated, nothing held */
    assert_non_null(r);
    assert_ptr_equal(r, b.data);
    assert_string_equal(b.data, "");
    r = ds_bytebuf_room(&b, 5);
    memcpy(r, "hello", 5);
    assert_int_equal(b.len, 0); /* written, not yet counted */
    ds_bytebuf_commit(&b, 3);
    assert_int_equal(b.len, 3);
    assert_string_equal(b.data, "hel");
    assert_int_equal(DS_BYTEBUF_LIT(&b, "ab"), 0);
    assert_string_equal(b.data, "helab");
    /* Past the limit: refused as an append would be. */
    assert_null(ds_bytebuf_room(&b, 4));
    assert_true(b.overflow);
    assert_true(b.failed);
    assert_string_equal(b.data, "helab");
    ds_bytebuf_reset(&b);
    r = ds_bytebuf_room(&b, 2);
    memcpy(r, "xy", 2);
    /* More than the room: the buffer fails, its contents unchanged. */
    ds_bytebuf_commit(&b, b.cap);
    assert_true(b.failed);
    assert_false(b.overflow);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    assert_null(ds_bytebuf_room(&b, 1)); /* failed: no room either */
    b.data[0] = 'q';                     /* a writer that wrote anyway */
    ds_bytebuf_commit(&b, 1);            /* refused too, the NUL back */
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    ds_bytebuf_free(&b);
    /* Room as allocation ahead: later appends within it never move the data. */
    ds_bytebuf_init(&b, DS_BYTEBUF_UNLIMITED);
    assert_non_null(ds_bytebuf_room(&b, 1000));
    assert_true(b.cap >= 1001);
    const char *at = b.data;
    char chunk[100];
    memset(chunk, 'z', sizeof chunk);
    for (int i = 0; i < 10; i++)
        assert_int_equal(ds_bytebuf_append(&b, chunk, sizeof chunk), 0);
    assert_ptr_equal(b.data, at);
    assert_int_equal(b.len, 1000);
    ds_bytebuf_free(&b);
}

static void test_take(void **state)
{
    (void)state;
    ds_bytebuf b;
    ds_bytebuf_init(&b, 16);
    size_t len = 99;
    char *s = ds_bytebuf_take(&b, &len); /* nothing appended: "" of its own */
    assert_non_null(s);
    assert_string_equal(s, "");
    assert_int_equal(len, 0);
    free(s);
    assert_int_equal(ds_bytebuf_printf(&b, "%s-%d", "abc", 12), 0);
    s = ds_bytebuf_take(&b, &len);
    assert_string_equal(s, "abc-12");
    assert_int_equal(len, 6);
    assert_null(b.data); /* handed over: the buffer is empty, with its limit */
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, 0);
    assert_int_equal(b.limit, 16);
    free(s);
    assert_int_equal(ds_bytebuf_append(&b, "0123456789abcdefX", 17), -1);
    s = ds_bytebuf_take(&b, &len); /* failed: nothing to hand over, the memory freed */
    assert_null(s);
    assert_int_equal(len, 0);
    assert_null(b.data);
    assert_false(b.failed);
    assert_false(b.overflow);
    assert_int_equal(ds_bytebuf_append(&b, "again", 5), 0);
    s = ds_bytebuf_take(&b, &len);
    assert_string_equal(s, "again");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_and_grow), cmocka_unit_test(test_printf_grows_past_room),
        cmocka_unit_test(test_limit),           cmocka_unit_test(test_limit_zero),
        cmocka_unit_test(test_out_of_memory),   cmocka_unit_test(test_consume_and_shrink),
        cmocka_unit_test(test_room_and_commit), cmocka_unit_test(test_take),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
