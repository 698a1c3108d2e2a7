/* test_readfile.c: rt_read_file on real files: a file of exactly the limit, an empty one, one a
 * byte over it (by its size), a directory, a missing path, and files of /proc, whose size says 0
 * while they hold more: read whole by growing the buffer, or refused once past the limit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/test_files.h"
#include "readfile.h"

/* path read whole with the limit max: its text is want. */
static void reads(const char *path, size_t max, const char *want)
{
    char *out = NULL;
    size_t len = 99;
    ds_err err = {{0}};
    assert_int_equal(rt_read_file(path, max, &out, &len, &err), 0);
    assert_string_equal(out, want);
    assert_int_equal(len, strlen(want));
    free(out);
}

/* path refused with the limit max: the message is "PATH: why". */
static void refused(const char *path, size_t max, const char *why)
{
    char *out = NULL;
    size_t len = 99;
    ds_err err = {{0}};
    assert_int_equal(rt_read_file(path, max, &out, &len, &err), -1);
    assert_null(out);
    assert_int_equal(len, 0);
    char want[600];
    snprintf(want, sizeof want, "%s: %s", path, why);
    assert_string_equal(err.msg, want);
}

static void test_regular_files(void **state)
{
    (void)state;
    char dir[64] = "/tmp/ds-readfile-XXXXXX", path[512];
    assert_non_null(mkdtemp(dir));
    assert_int_equal(ds_test_write(dir, "eight", "12345678", path, sizeof path), 0);
    reads(path, 8, "12345678");
    refused(path, 7, "file too large (got 8 bytes, limit 7)");
    char eight[512];
    snprintf(eight, sizeof eight, "%s", path);
    assert_int_equal(ds_test_write(dir, "empty", "", path, sizeof path), 0);
    reads(path, 8, "");
    refused(dir, 8, "not a regular file");
    snprintf(path, sizeof path, "%s/missing", dir);
    refused(path, 8, "No such file or directory");
    assert_int_equal(unlink(eight), 0);
    snprintf(path, sizeof path, "%s/empty", dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
}

/* /proc/self/status: a regular file whose size is 0 and whose text is about a kilobyte. */
static void test_files_larger_than_their_size(void **state)
{
    (void)state;
    char *out = NULL;
    size_t len = 0;
    ds_err err = {{0}};
    assert_int_equal(rt_read_file("/proc/self/status", 1 << 20, &out, &len, &err), 0);
    assert_true(len > 256);
    assert_int_equal(strlen(out), len);
    assert_memory_equal(out, "Name:", 5);
    assert_non_null(strstr(out, "\nPid:"));
    free(out);
    refused("/proc/self/status", 100, "file too large (limit 100 bytes)");
}

/* A pipe, as standard input is: read to its end, or refused past the limit. */
static void test_descriptors(void **state)
{
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(write(p[1], "kind: SchedulingPolicy\n", 23), 23);
    close(p[1]);
    char *out = NULL;
    size_t len = 0;
    ds_err err = {{0}};
    assert_int_equal(rt_read_fd(p[0], "-", 100, &out, &len, &err), 0);
    assert_string_equal(out, "kind: SchedulingPolicy\n");
    assert_int_equal(len, 23);
    free(out);
    close(p[0]);
    assert_int_equal(pipe(p), 0);
    assert_int_equal(write(p[1], "0123456789", 10), 10);
    close(p[1]);
    assert_int_equal(rt_read_fd(p[0], "-", 9, &out, &len, &err), -1);
    assert_null(out);
    assert_string_equal(err.msg, "-: file too large (limit 9 bytes)");
    close(p[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regular_files),
        cmocka_unit_test(test_files_larger_than_their_size),
        cmocka_unit_test(test_descriptors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
