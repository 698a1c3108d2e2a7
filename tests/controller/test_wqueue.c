/* test_wqueue.c: unit tests of the controller's write queue (wqueue.h): coalescing of writes with
 * the same pod and kind, the bound and its dropped count, and the token-bucket rate on an injected
 * clock. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "../common/ds_assert.h"
#include "wqueue.h"

static ctl_wq_write ann(const char *name, const char *kind, const char *value)
{
    ctl_wq_write w;
    memset(&w, 0, sizeof w);
    w.ns = "ns";
    w.name = name;
    w.uid = name;
    w.kind = kind;
    w.n_kv = 1;
    w.kv[0] = "dagsched.io/priority";
    w.kv[1] = value;
    return w;
}

static void test_coalesce(void **state)
{
    (void)state;
    ctl_wq q;
    assert_int_equal(ctl_wq_init(&q, 10, 0, 0), 0);
    ctl_wq_write a1 = ann("a", "publish", "0.1"), b = ann("b", "publish", "0.2");
    ctl_wq_write a2 = ann("a", "publish", "0.3"), aw = ann("a", "waiting", "upstream");
    assert_int_equal(ctl_wq_push(&q, &a1, 1), CTL_WQ_ADDED);
    assert_int_equal(ctl_wq_push(&q, &b, 2), CTL_WQ_ADDED);
    aw.event_reason = "Waiting";
    aw.event_msg = "first reason";
    assert_int_equal(ctl_wq_push(&q, &aw, 3), CTL_WQ_ADDED); /* another kind: its own write */
    assert_int_equal(ctl_wq_push(&q, &a2, 4), CTL_WQ_COALESCED);
    ctl_wq_write aw2 = ann("a", "waiting", "no room"); /* no Event of its own */
    assert_int_equal(ctl_wq_push(&q, &aw2, 5), CTL_WQ_COALESCED);
    assert_int_equal(q.n, 3);
    assert_int_equal(q.coalesced, 2);
    ctl_wq_item it;
    /* a keeps its place in line, with the newer value and its first enqueue time */
    assert_int_equal(ctl_wq_pop(&q, 10, &it, NULL), 1);
    assert_string_equal(it.name, "a");
    assert_string_equal(it.kind, "publish");
    assert_string_equal(it.kv[1], "0.3");
    assert_double_near(it.enqueued_at, 1, 1e-9);
    ctl_wq_item_free(&it);
    assert_int_equal(ctl_wq_pop(&q, 10, &it, NULL), 1);
    assert_string_equal(it.name, "b");
    ctl_wq_item_free(&it);
    assert_int_equal(ctl_wq_pop(&q, 10, &it, NULL), 1);
    assert_string_equal(it.kind, "waiting");
    assert_string_equal(it.kv[1], "no room");
    assert_non_null(it.event_reason); /* the Event still to be posted is kept */
    assert_string_equal(it.event_msg, "first reason");
    ctl_wq_item_free(&it);
    assert_int_equal(ctl_wq_pop(&q, 10, &it, NULL), 0);
    /* a popped key is no longer coalesced: it is queued again */
    assert_int_equal(ctl_wq_push(&q, &a1, 11), CTL_WQ_ADDED);
    ctl_wq_free(&q);
}

/* The caller's strings are copied: changing them after the push changes nothing queued. */
static void test_owns_copies(void **state)
{
    (void)state;
    ctl_wq q;
    assert_int_equal(ctl_wq_init(&q, 4, 0, 0), 0);
    char name[16], value[16];
    snprintf(name, sizeof name, "pod-1");
    snprintf(value, sizeof value, "0.5");
    ctl_wq_write w = ann(name, "publish", value);
    w.n_kv = 2;
    w.kv[2] = "dagsched.io/waiting-reason";
    w.kv[3] = NULL; /* removes the annotation */
    assert_int_equal(ctl_wq_push(&q, &w, 0), CTL_WQ_ADDED);
    snprintf(name, sizeof name, "pod-2");
    snprintf(value, sizeof value, "0.9");
    ctl_wq_item it;
    assert_int_equal(ctl_wq_pop(&q, 0, &it, NULL), 1);
    assert_string_equal(it.name, "pod-1");
    assert_string_equal(it.kv[1], "0.5");
    assert_null(it.kv[3]);
    assert_int_equal(it.n_kv, 2);
    ctl_wq_item_free(&it);
    ctl_wq_free(&q);
}

static void test_bound(void **state)
{
    (void)state;
    ctl_wq q;
    assert_int_equal(ctl_wq_init(&q, 3, 0, 0), 0);
    char name[16];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "p%d", i);
        ctl_wq_write w = ann(name, "publish", "1");
        assert_int_equal(ctl_wq_push(&q, &w, i), i < 3 ? CTL_WQ_ADDED : CTL_WQ_DROPPED);
    }
    assert_int_equal(q.n, 3);
    assert_int_equal(q.dropped, 2);
    /* a full queue still takes a newer value for a queued key */
    ctl_wq_write w = ann("p1", "publish", "2");
    assert_int_equal(ctl_wq_push(&q, &w, 6), CTL_WQ_COALESCED);
    /* the ring wraps: pop one, push one, the order stays first in, first out */
    ctl_wq_item it;
    assert_int_equal(ctl_wq_pop(&q, 7, &it, NULL), 1);
    assert_string_equal(it.name, "p0");
    ctl_wq_item_free(&it);
    w = ann("p9", "publish", "1");
    assert_int_equal(ctl_wq_push(&q, &w, 8), CTL_WQ_ADDED);
    const char *want[] = {"p1", "p2", "p9"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ctl_wq_pop(&q, 9, &it, NULL), 1);
        assert_string_equal(it.name, want[i]);
        ctl_wq_item_free(&it);
    }
    /* clear frees what is left and counts it as dropped */
    w = ann("x", "publish", "1");
    assert_int_equal(ctl_wq_push(&q, &w, 10), CTL_WQ_ADDED);
    assert_int_equal(ctl_wq_clear(&q), 1);
    assert_int_equal(q.dropped, 3);
    ctl_wq_free(&q);
}

static void test_cancel(void **state)
{
    (void)state;
    ctl_wq q;
    assert_int_equal(ctl_wq_init(&q, 3, 0, 0), 0);
    ctl_wq_item it;
    /* wrap the ring first, so that the removal moves items across its end */
    ctl_wq_write w = ann("p0", "publish", "1");
    assert_int_equal(ctl_wq_push(&q, &w, 0), CTL_WQ_ADDED);
    assert_int_equal(ctl_wq_pop(&q, 0, &it, NULL), 1);
    ctl_wq_item_free(&it);
    const char *names[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        w = ann(names[i], CTL_WQ_KIND_WAITING, "upstream");
        assert_int_equal(ctl_wq_push(&q, &w, 1), CTL_WQ_ADDED);
    }
    assert_int_equal(ctl_wq_cancel(&q, "ns", "b", CTL_WQ_KIND_PUBLISH), 0); /* other kind */
    assert_int_equal(ctl_wq_cancel(&q, "ns", "b", CTL_WQ_KIND_WAITING), 1);
    assert_int_equal(ctl_wq_cancel(&q, "ns", "b", CTL_WQ_KIND_WAITING), 0);
    assert_int_equal(q.n, 2);
    assert_int_equal(q.dropped, 0);
    w = ann("d", CTL_WQ_KIND_WAITING, "upstream"); /* the freed slot is usable */
    assert_int_equal(ctl_wq_push(&q, &w, 2), CTL_WQ_ADDED);
    const char *want[] = {"a", "c", "d"};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(ctl_wq_pop(&q, 3, &it, NULL), 1);
        assert_string_equal(it.name, want[i]);
        ctl_wq_item_free(&it);
    }
    ctl_wq_free(&q);
}

static void test_rate(void **state)
{
    (void)state;
    ctl_wq q;
    assert_int_equal(ctl_wq_init(&q, 100, 2.0, 100.0), 0); /* 2/s, burst 2 */
    char name[16];
    for (int i = 0; i < 10; i++) {
        snprintf(name, sizeof name, "p%d", i);
        ctl_wq_write w = ann(name, "publish", "1");
        assert_int_equal(ctl_wq_push(&q, &w, 100.0), CTL_WQ_ADDED);
    }
    ctl_wq_item it;
    double wait = -1;
    /* the bucket starts full: two writes at once, then none until a token is back */
    assert_int_equal(ctl_wq_pop(&q, 100.0, &it, &wait), 1);
    ctl_wq_item_free(&it);
    assert_int_equal(ctl_wq_pop(&q, 100.0, &it, &wait), 1);
    ctl_wq_item_free(&it);
    assert_int_equal(ctl_wq_pop(&q, 100.0, &it, &wait), 2);
    assert_double_near(wait, 0.5, 1e-9);
    assert_int_equal(ctl_wq_pop(&q, 100.25, &it, &wait), 2);
    assert_double_near(wait, 0.25, 1e-9);
    assert_int_equal(ctl_wq_pop(&q, 100.5, &it, &wait), 1);
    ctl_wq_item_free(&it);
    /* over 3 more seconds: 6 writes, never more (the bucket holds at most 2) */
    int taken = 0;
    for (int k = 1; k <= 61; k++) /* every 50 ms up to 103.5, then 103.52 */
        while (ctl_wq_pop(&q, k <= 60 ? 100.5 + 0.05 * k : 103.52, &it, NULL) == 1) {
            ctl_wq_item_free(&it);
            taken++;
        }
    assert_int_equal(taken, 6);
    assert_int_equal(q.n, 1);
    /* a long idle time fills the bucket only to its burst */
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "q%d", i);
        ctl_wq_write w = ann(name, "publish", "1");
        assert_int_equal(ctl_wq_push(&q, &w, 200.0), CTL_WQ_ADDED);
    }
    taken = 0;
    while (ctl_wq_pop(&q, 1000.0, &it, NULL) == 1) {
        ctl_wq_item_free(&it);
        taken++;
    }
    assert_int_equal(taken, 2);
    /* a clock that goes back neither adds nor removes tokens */
    assert_int_equal(ctl_wq_pop(&q, 900.0, &it, &wait), 2);
    assert_int_equal(ctl_wq_pop(&q, 1000.5, &it, NULL), 1);
    ctl_wq_item_free(&it);
    ctl_wq_free(&q);
}

static void test_unlimited_and_invalid(void **state)
{
    (void)state;
    ctl_wq q;
    assert_int_equal(ctl_wq_init(&q, 1000, 0, 0), 0);
    char name[16];
    for (int i = 0; i < 500; i++) {
        snprintf(name, sizeof name, "p%d", i);
        ctl_wq_write w = ann(name, "publish", "1");
        assert_int_equal(ctl_wq_push(&q, &w, 0), CTL_WQ_ADDED);
    }
    ctl_wq_item it;
    int taken = 0;
    while (ctl_wq_pop(&q, 0, &it, NULL) == 1) {
        ctl_wq_item_free(&it);
        taken++;
    }
    assert_int_equal(taken, 500);
    ctl_wq_write w = ann("p", "publish", "1");
    w.n_kv = 0;
    assert_int_equal(ctl_wq_push(&q, &w, 0), CTL_WQ_INVALID);
    w.n_kv = CTL_WQ_MAX_KV + 1;
    assert_int_equal(ctl_wq_push(&q, &w, 0), CTL_WQ_INVALID);
    w = ann("p", "publish", "1");
    w.event_reason = "Waiting"; /* an Event needs its message */
    assert_int_equal(ctl_wq_push(&q, &w, 0), CTL_WQ_INVALID);
    w = ann(NULL, "publish", "1");
    assert_int_equal(ctl_wq_push(&q, &w, 0), CTL_WQ_INVALID);
    assert_int_equal(q.n, 0);
    ctl_wq_free(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coalesce), cmocka_unit_test(test_owns_copies),
        cmocka_unit_test(test_bound),    cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_rate),     cmocka_unit_test(test_unlimited_and_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
