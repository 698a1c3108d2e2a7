/* kube_test_util.h: helpers for the Kubernetes client tests: temporary directories and files,
 * decoding objects from JSON text, reading back a captured log. */
#ifndef DAGSCHED_KUBE_TEST_UTIL_H
#define DAGSCHED_KUBE_TEST_UTIL_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "objects.h"

/* Create a fresh temporary directory; the path is written into buf (size >= 64). */
static inline int ktest_mkdtemp(char *buf, size_t size)
{
    snprintf(buf, size, "/tmp/dskube-test-XXXXXX");
    return mkdtemp(buf) != NULL ? 0 : -1;
}

/* Write text to dir/name; returns 0 on success. The full path goes into path (size >= 512). */
static inline int ktest_write(const char *dir, const char *name, const char *text, char *path,
                              size_t path_size)
{
    snprintf(path, path_size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, f) == n ? 0 : -1;
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

/* Remove a directory and the files in it (one level). */
static inline void ktest_rmdir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
}

/* Decode API JSON text into a cached object (no GPU resource names); NULL, with the reason on
 * stderr, when the text or the object is invalid. */
static inline kube_meta *ktest_decode(kube_kind kind, const char *text)
{
    json_error_t jerr;
    json_t *j = json_loads(text, 0, &jerr);
    if (j == NULL) {
        fprintf(stderr, "bad test JSON: %s\n", jerr.text);
        return NULL;
    }
    kube_meta *m = NULL;
    ds_err err = {{0}};
    kube_decode_opts opts = {0};
    if (kube_obj_decode(kind, j, &opts, &m, &err) != 0)
        fprintf(stderr, "decode: %s\n", err.msg);
    json_decref(j);
    return m;
}

/* What the log wrote into f (set up with kube_log_setup) so far, NUL-terminated in buf. */
static inline void ktest_read_log(FILE *f, char *buf, size_t size)
{
    fflush(f);
    rewind(f);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
}

#endif
