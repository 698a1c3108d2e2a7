/* test_util.h: helpers shared by the extender's unit tests (reading recorded request bodies from
 * tests/extender/data/). Include after cmocka.h. */
#ifndef DAGSCHED_EXT_TEST_UTIL_H
#define DAGSCHED_EXT_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#define TU_DATA_DIR "tests/extender/data/"

/* Read a recorded body (the tests run from the repository root); fails the test when missing. */
static inline char *tu_read_data(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", TU_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        fail_msg("cannot open %s", path);
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *nb = realloc(buf, cap);
            if (nb == NULL)
                fail_msg("out of memory reading %s", path);
            buf = nb;
        }
        size_t r = fread(buf + n, 1, 4096, f);
        n += r;
        if (r == 0)
            break;
    }
    fclose(f);
    /* Strip the trailing newline of a recorded file. */
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--;
    buf[n] = '\0';
    *len = n;
    return buf;
}

#endif
