/* fuzz_json.h: the check both extender fuzz targets apply to every answer they make the extender
 * write: it must be valid JSON for jansson and for the extender's own strict tokenizer. Valid JSON
 * that jansson cannot represent is accepted (an echoed Node may carry it): "\u0000" inside an
 * object key, integers beyond int64, and reals beyond the range of a double ("1e999"). Header-only
 * because each fuzz target is a single translation unit. */
#ifndef DAGSCHED_TESTS_FUZZ_JSON_H
#define DAGSCHED_TESTS_FUZZ_JSON_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jscan.h"
#include "protocol.h"

static int fuzz_jansson_limit(const char *text)
{
    return strstr(text, "NUL byte in object key") != NULL ||
           strstr(text, "too big integer") != NULL || strstr(text, "real number overflow") != NULL;
}

/* jansson seeds its object hashing at random; a fixed seed keeps a fuzz run reproducible. */
static void fuzz_json_init(void)
{
    json_object_seed(1);
}

/* Aborts (a finding for libFuzzer) with the reason on stderr when `out` is not valid JSON. */
static void fuzz_check_json(const char *who, const char *out, size_t n)
{
    json_error_t e;
    json_t *j = json_loadb(out, n, JSON_ALLOW_NUL, &e);
    if (j == NULL && !fuzz_jansson_limit(e.text)) {
        fprintf(stderr, "%s: jansson rejects the answer: %s (line %d, column %d)\n", who, e.text,
                e.line, e.column);
        abort();
    }
    json_decref(j);
    js_doc d;
    char err[JS_ERR_MAX];
    js_limits lim = {.max_depth = EXT_MAX_DEPTH + 4, .max_tokens = n + 16, .max_len = n + 1};
    if (js_parse(&d, out, n, &lim, err) != 0) {
        fprintf(stderr, "%s: the extender's tokenizer rejects the answer: %s\n", who, err);
        abort();
    }
    js_free(&d);
}

#endif
