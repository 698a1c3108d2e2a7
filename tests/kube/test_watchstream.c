/* test_watchstream.c: the watch-stream parser fed a recorded stream split at every byte, one byte
 * at a time, in random chunks and in three pieces, and fed malformed and oversized input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kutil.h"
#include "readfile.h"
#include "watchstream.h"

#define FIXTURE "tests/kube/data/watch_pods.stream"

/* What a consumer saw, as "TYPE ns/name rv|..." (Status code for ERROR). */
typedef struct seen {
    char sig[4096];
    size_t len;
    int events;
    int parse_errors;
} seen;

static int on_event(void *user, const char *obj, size_t len)
{
    seen *s = user;
    kube_watch_event ev;
    ds_err err = {{0}};
    if (kube_watch_event_parse(obj, len, &ev, &err) != 0) {
        s->parse_errors++;
        return 0;
    }
    json_t *md = json_object_get(ev.object, "metadata");
    const char *ns = json_string_value(json_object_get(md, "namespace"));
    const char *name = json_string_value(json_object_get(md, "name"));
    char one[256];
    if (ev.type == KUBE_WATCH_ERROR)
        snprintf(one, sizeof one, "ERROR %lld|",
                 (long long)json_integer_value(json_object_get(ev.object, "code")));
    else
        snprintf(one, sizeof one, "%s %s/%s %s|", kube_watch_type_name(ev.type), ns ? ns : "-",
                 name ? name : "-", ev.resource_version);
    size_t n = strlen(one);
    if (s->len + n < sizeof s->sig) {
        memcpy(s->sig + s->len, one, n + 1);
        s->len += n;
    }
    s->events++;
    kube_watch_event_clear(&ev);
    return 0;
}

static const char *const expected = "ADDED batch/etl-1-a 101|"
                                    "ADDED batch/etl-1-b 102|"
                                    "MODIFIED batch/etl-1-a 103|"
                                    "MODIFIED batch/etl-1-a 104|"
                                    "BOOKMARK -/- 150|"
                                    "MODIFIED batch/etl-1-b 151|"
                                    "DELETED batch/etl-1-a 152|"
                                    "ERROR 410|";

static char *fixture;
static size_t fixture_len;

static int load_fixture(void **state)
{
    (void)state;
    ds_err err;
    if (rt_read_file(FIXTURE, 1 << 20, &fixture, &fixture_len, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static int free_fixture(void **state)
{
    (void)state;
    free(fixture);
    return 0;
}

/* Feed the fixture cut at the given offsets (sorted, within bounds) and check the result. */
static void feed_cuts(const size_t *cuts, size_t n_cuts)
{
    kube_json_splitter sp;
    kube_splitter_init(&sp, 0);
    seen s = {{0}, 0, 0, 0};
    ds_err err = {{0}};
    size_t prev = 0;
    for (size_t i = 0; i <= n_cuts; i++) {
        size_t end = i < n_cuts ? cuts[i] : fixture_len;
        if (kube_splitter_feed(&sp, fixture + prev, end - prev, on_event, &s, &err) != 0)
            fail_msg("feed failed at %zu: %s", prev, err.msg);
        prev = end;
    }
    assert_false(kube_splitter_pending(&sp));
    kube_splitter_free(&sp);
    assert_int_equal(s.parse_errors, 0);
    if (strcmp(s.sig, expected) != 0)
        fail_msg("cuts at %zu...: got %s", n_cuts ? cuts[0] : 0, s.sig);
}

static void test_whole(void **state)
{
    (void)state;
    feed_cuts(NULL, 0);
}

static void test_every_split_point(void **state)
{
    (void)state;
    for (size_t i = 0; i <= fixture_len; i++)
        feed_cuts(&i, 1);
}

static void test_one_byte_at_a_time(void **state)
{
    (void)state;
    size_t *cuts = malloc(fixture_len * sizeof *cuts);
    assert_non_null(cuts);
    for (size_t i = 0; i < fixture_len; i++)
        cuts[i] = i;
    feed_cuts(cuts, fixture_len);
    free(cuts);
}

static void test_random_chunks(void **state)
{
    (void)state;
    uint64_t rng = 12345;
    size_t *cuts = malloc(fixture_len * sizeof *cuts);
    assert_non_null(cuts);
    for (int run = 0; run < 500; run++) {
        size_t n = 0, pos = 0;
        /* Chunk sizes from 1 byte to ~2 KiB, mixing tiny and large. */
        size_t maxc = run % 2 ? 16 : 2048;
        for (;;) {
            pos += 1 + (size_t)(kutil_rand01(&rng) * (double)maxc);
            if (pos >= fixture_len)
                break;
            cuts[n++] = pos;
        }
        feed_cuts(cuts, n);
    }
    free(cuts);
}

static void test_three_pieces(void **state)
{
    (void)state;
    for (size_t i = 0; i < fixture_len; i += 37)
        for (size_t j = i; j < fixture_len; j += 41) {
            size_t cuts[2] = {i, j};
            feed_cuts(cuts, 2);
        }
}

/* Feed text whole and return the splitter's result; *events counts emitted objects. */
static int feed_text(const char *text, size_t max_object, int *events, ds_err *err)
{
    kube_json_splitter sp;
    kube_splitter_init(&sp, max_object);
    seen s = {{0}, 0, 0, 0};
    int rc = kube_splitter_feed(&sp, text, strlen(text), on_event, &s, err);
    *events = s.events + s.parse_errors;
    kube_splitter_free(&sp);
    return rc;
}

static void test_malformed(void **state)
{
    (void)state;
    int events;
    ds_err err = {{0}};
    assert_int_equal(feed_text("\n  x{}", 0, &events, &err), -1);
    assert_string_equal(err.msg, "watch stream: expected '{' between events at byte 3");
    assert_int_equal(feed_text("{\"a\":1}]", 0, &events, &err), -1);
    assert_string_equal(err.msg, "watch stream: expected '{' between events at byte 7");
    assert_int_equal(events, 1);
    assert_int_equal(feed_text("{\"a\":\"x\ny\"}", 0, &events, &err), -1);
    assert_string_equal(err.msg, "watch stream: control character inside a string at byte 7");
    char deep[400];
    memset(deep, '[', sizeof deep);
    deep[0] = '{';
    deep[sizeof deep - 1] = '\0';
    assert_int_equal(feed_text(deep, 0, &events, &err), -1);
    assert_string_equal(err.msg, "watch stream: event nested too deeply at byte 128");
    /* Oversized, whole in one chunk and spread over chunks. */
    assert_int_equal(feed_text("{\"a\":\"0123456789\"}", 10, &events, &err), -1);
    assert_string_equal(err.msg, "watch stream: event larger than the limit at byte 17");
    kube_json_splitter sp;
    kube_splitter_init(&sp, 10);
    seen s = {{0}, 0, 0, 0};
    assert_int_equal(kube_splitter_feed(&sp, "{\"a\":\"01", 8, on_event, &s, &err), 0);
    assert_true(kube_splitter_pending(&sp));
    assert_int_equal(kube_splitter_feed(&sp, "23456789\"}", 10, on_event, &s, &err), -1);
    assert_string_equal(err.msg, "watch stream: event larger than the limit at byte 17");
    /* Failed stays failed until reset. */
    assert_int_equal(kube_splitter_feed(&sp, "{}", 2, on_event, &s, &err), -1);
    assert_string_equal(err.msg, "watch stream: parser already failed");
    kube_splitter_reset(&sp);
    assert_int_equal(kube_splitter_feed(&sp, "{}", 2, on_event, &s, &err), 0);
    kube_splitter_free(&sp);
}

static void expect_event_error(const char *text, const char *message)
{
    kube_watch_event ev;
    ds_err err = {{0}};
    assert_int_equal(kube_watch_event_parse(text, strlen(text), &ev, &err), -1);
    assert_null(ev.object);
    assert_string_equal(err.msg, message);
}

static void test_event_errors(void **state)
{
    (void)state;
    expect_event_error("{\"type\":}", "watch event: invalid JSON at column 9: unexpected token "
                                      "near '}'");
    expect_event_error("{\"object\":{}}", "watch event: missing \"type\"");
    expect_event_error("{\"type\":\"UPSERTED\",\"object\":{}}",
                       "watch event: unknown type (got \"UPSERTED\")");
    expect_event_error("{\"type\":\"ADDED\",\"object\":[]}",
                       "watch event ADDED: \"object\" missing or not an object");
    expect_event_error("{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"x\"}}}",
                       "watch event ADDED: object has no metadata.resourceVersion");
    expect_event_error("{\"type\":\"ADDED\",\"type\":\"DELETED\",\"object\":{}}",
                       "watch event: invalid JSON at column 22: duplicate object key near "
                       "'\"type\"'");
    /* Objects inside an event split on a chunk boundary in the middle of an escape. */
    const char *ev = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"message\":\"a\\\"}\","
                     "\"code\":500}}";
    kube_json_splitter sp;
    kube_splitter_init(&sp, 0);
    seen s = {{0}, 0, 0, 0};
    ds_err err = {{0}};
    size_t cut = strchr(ev, '\\') - ev + 1;
    assert_int_equal(kube_splitter_feed(&sp, ev, cut, on_event, &s, &err), 0);
    assert_int_equal(kube_splitter_feed(&sp, ev + cut, strlen(ev) - cut, on_event, &s, &err), 0);
    assert_string_equal(s.sig, "ERROR 500|");
    kube_splitter_free(&sp);
}

/* An annotation value holding "\u0000" (which the API server accepts) does not make the event
 * unreadable. */
static void test_event_with_nul(void **state)
{
    (void)state;
    const char *text = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"x\","
                       "\"resourceVersion\":\"5\",\"annotations\":{\"a\":\"b\\u0000c\"}}}}";
    kube_watch_event ev;
    ds_err err = {{0}};
    assert_int_equal(kube_watch_event_parse(text, strlen(text), &ev, &err), 0);
    assert_string_equal(ev.resource_version, "5");
    kube_watch_event_clear(&ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole),
        cmocka_unit_test(test_every_split_point),
        cmocka_unit_test(test_one_byte_at_a_time),
        cmocka_unit_test(test_random_chunks),
        cmocka_unit_test(test_three_pieces),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_event_errors),
        cmocka_unit_test(test_event_with_nul),
    };
    return cmocka_run_group_tests(tests, load_fixture, free_fixture);
}
