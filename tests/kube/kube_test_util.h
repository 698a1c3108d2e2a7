/* kube_test_util.h: helpers for the Kubernetes client tests (temporary files: test_files.h):
 * decoding objects from JSON text, reading back a captured log. */
#ifndef DAGSCHED_KUBE_TEST_UTIL_H
#define DAGSCHED_KUBE_TEST_UTIL_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/test_files.h"
#include "objects.h"

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
