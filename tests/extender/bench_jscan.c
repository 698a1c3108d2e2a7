/* bench_jscan.c: the extender's JSON tokenizer (extender/jscan.h) against jansson on the request
 * kube-scheduler sends most, for `make bench-jscan` (no cluster).
 *
 * Builds an ExtenderArgs body with a small Pod and NAMES node names (nodeCacheCapable, as the
 * chart configures kube-scheduler), then, ROUNDS times each, in CPU time of this thread: jansson
 * parses it into a tree and the names are read out of it (json_loads, what the extender did
 * before jscan), and jscan tokenizes it and decodes every name. Prints the median per request of
 * both and their ratio (jansson / jscan), measured in the same run: machines are noisy, ratios
 * less so. A benchmark: it prints figures, it judges nothing.
 *
 * Usage: bench_jscan [NAMES ROUNDS] (defaults 5000 200) */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jscan.h"

static double cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The ExtenderArgs body: {"Pod":{...},"NodeNames":["kwok-node-0",...]}; NULL when out of memory. */
static char *body_with(size_t names, size_t *len)
{
    const char *head =
        "{\"Pod\":{\"metadata\":{\"name\":\"etl-load-x7k2p\",\"namespace\":\"batch\","
        "\"uid\":\"u-1\",\"labels\":{\"dagsched.io/job\":\"etl\",\"dagsched.io/"
        "task\":\"load\"}},\"spec\":{\"schedulerName\":\"dagsched\",\"containers\":"
        "[{\"name\":\"main\",\"resources\":{\"requests\":{\"cpu\":\"2\"}}}]}},"
        "\"NodeNames\":[";
    size_t cap = strlen(head) + names * 24 + 8;
    char *b = malloc(cap);
    if (b == NULL)
        return NULL;
    size_t at = (size_t)snprintf(b, cap, "%s", head);
    for (size_t i = 0; i < names; i++)
        at += (size_t)snprintf(b + at, cap - at, "%s\"kwok-node-%zu\"", i ? "," : "", i);
    at += (size_t)snprintf(b + at, cap - at, "]}");
    *len = at;
    return b;
}

/* jansson: the tree, then every name read out of it. Returns the names read, or 0 on error. */
static size_t with_jansson(const char *body, size_t len)
{
    json_error_t e;
    json_t *root = json_loadb(body, len, 0, &e);
    if (root == NULL)
        return 0;
    json_t *arr = json_object_get(root, "NodeNames");
    size_t n = 0, idx;
    json_t *v;
    json_array_foreach(arr, idx, v)
    {
        if (json_string_value(v) != NULL)
            n++;
    }
    json_decref(root);
    return n;
}

/* jscan: the tokens, then every name decoded. Returns the names read, or 0 on error. */
static size_t with_jscan(const char *body, size_t len)
{
    js_doc d;
    char err[JS_ERR_MAX];
    js_limits lim = {.max_depth = 100, .max_tokens = 4u << 20, .max_len = len};
    if (js_parse(&d, body, len, &lim, err) != 0)
        return 0;
    long arr = js_obj_get(&d, 0, "NodeNames");
    size_t n = 0;
    if (arr >= 0 && d.t[arr].type == JS_ARRAY) {
        char name[256];
        for (size_t t = (size_t)arr + 1; t < d.t[arr].next; t = d.t[t].next)
            if (js_str_decode(&d, t, name, sizeof name) >= 0)
                n++;
    }
    js_free(&d);
    return n;
}

int main(int argc, char **argv)
{
    size_t names = argc > 1 ? strtoul(argv[1], NULL, 10) : 5000;
    size_t rounds = argc > 2 ? strtoul(argv[2], NULL, 10) : 200;
    if (names == 0 || rounds == 0) {
        fprintf(stderr, "usage: bench_jscan [NAMES ROUNDS] (both > 0)\n");
        return 2;
    }
    size_t len;
    char *body = body_with(names, &len);
    double *tj = calloc(rounds, sizeof *tj), *ts = calloc(rounds, sizeof *ts);
    if (body == NULL || tj == NULL || ts == NULL) {
        fprintf(stderr, "bench_jscan: out of memory\n");
        return 1;
    }
    for (size_t r = 0; r < rounds; r++) { /* alternated, so that drift hits both alike */
        double t0 = cpu_now();
        size_t a = with_jansson(body, len);
        double t1 = cpu_now();
        size_t b = with_jscan(body, len);
        double t2 = cpu_now();
        if (a != names || b != names) {
            fprintf(stderr, "bench_jscan: read %zu (jansson) and %zu (jscan) of %zu names\n", a, b,
                    names);
            return 1;
        }
        tj[r] = t1 - t0;
        ts[r] = t2 - t1;
    }
    double mj = median(tj, rounds), ms = median(ts, rounds);
    printf("ExtenderArgs with %zu node names (%zu bytes), %zu rounds, CPU time per request "
           "(median)\n",
           names, len, rounds);
    printf("jansson (tree)     %10.1f us\n", mj * 1e6);
    printf("jscan (tokens)     %10.1f us\n", ms * 1e6);
    printf("ratio jansson/jscan %9.1fx\n", ms > 0 ? mj / ms : 0.0);
    free(body);
    free(tj);
    free(ts);
    return 0;
}
