/* test_outlook.c: unit tests of a job's outlook in kubectl-dagsched (cli/outlook.h): a finished
 * job's makespan and deadline margin, a running job's ETA and the margin at that pace, the wait
 * for room of its ready tasks from the room forecast (lib/room.h) on a built cluster, the cases
 * where a wait cannot be forecast (a lower bound), a task that may use only some nodes, and the
 * cases where nothing is known. Every wait is computed by hand in the comments. Float checks fail
 * on NaN and infinity unless expected; clock times in UTC. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "outlook.h"

#define NOW 1000000.0 /* 1970-01-12 13:46:40 UTC */

static void near(double got, double want)
{
    assert_true(isfinite(got));
    assert_true(fabs(got - want) < 1e-9);
}

static void test_finished(void **state)
{
    (void)state;
    cli_outlook o;
    /* Created 100 s before it finished 30 s ago; deadline 48 s after the finish. */
    cli_outlook_of(NOW - 130, NOW - 30, NOW + 18, NOW, NULL, &o);
    assert_true(o.ended);
    near(o.finished, NOW - 30);
    near(o.makespan_s, 100);
    near(o.margin_s, 48);
    assert_true(isnan(o.eta));
    char buf[256];
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "finished 30s ago, makespan 1m40s; deadline met with 48s to spare");
    /* Missed by 62 s. */
    cli_outlook_of(NOW - 130, NOW - 30, NOW - 92, NOW, NULL, &o);
    near(o.margin_s, -62);
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "finished 30s ago, makespan 1m40s; deadline missed by 1m02s");
    /* No deadline. */
    cli_outlook_of(NOW - 130, NOW - 30, INFINITY, NOW, NULL, &o);
    assert_true(isnan(o.margin_s));
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "finished 30s ago, makespan 1m40s");
    /* Ended, but its finish is not known (every pod gone, no finish recorded). */
    cli_outlook_of(NOW - 130, INFINITY, NOW, NOW, NULL, &o);
    assert_true(o.ended);
    assert_true(isnan(o.makespan_s) && isnan(o.margin_s));
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "finished (when is not known)");
}

/* The outlook of a running job whose ETA rests on `path` alone (no ready task). */
static void path_only(double path, double deadline, cli_outlook *o)
{
    cli_eta b;
    cli_eta_of(NULL, NULL, NULL, 0, path, &b);
    cli_outlook_of(NOW - 60, NAN, deadline, NOW, &b, o);
}

static void test_running(void **state)
{
    (void)state;
    cli_outlook o;
    char buf[512];
    path_only(200, NOW + 240, &o);
    assert_false(o.ended);
    near(o.eta, NOW + 200);
    near(o.margin_s, 40);
    assert_true(isnan(o.finished) && isnan(o.makespan_s));
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "in 3m20s, at 13:50:00 (remaining critical path 3m20s); deadline met "
                             "with 40s to spare at that pace");
    path_only(200, NOW + 180, &o);
    near(o.margin_s, -20);
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "in 3m20s, at 13:50:00 (remaining critical path 3m20s); deadline "
                             "missed by 20s at that pace");
    cli_outlook_eta_cell(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "13:50:00");
    /* A day later: with its date. */
    path_only(86400, INFINITY, &o);
    cli_outlook_eta_cell(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "1970-01-13 13:46:40");
    /* No path known (an invalid job): nothing to say. */
    path_only(NAN, NOW + 180, &o);
    assert_true(isnan(o.eta) && isnan(o.margin_s));
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "-");
    cli_outlook_eta_cell(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "-");
}

/* ---- the wait for room */

#define M(cores)     ((int64_t)((cores)*1000)) /* milli-cores */
#define OUT_OF_REACH (INT64_MIN / 4)

/* Three nodes: n0 has 500m free and runs A (1 core, ends in 50 s); n1 is full and runs B (1
 * core, ends in 20 s); n2 is cordoned (out of reach) and runs C (4 cores, ends in 5 s), which
 * frees nothing usable. Pooled: 500m now, 500m at 5 s (C adds nothing), 1500m at 20 s, 2500m at
 * 50 s. */
static const ds_res FREE[3] = {
    {{M(0.5)}}, {{0}}, {{OUT_OF_REACH, OUT_OF_REACH, OUT_OF_REACH, OUT_OF_REACH}}};
static const ds_room_task RUNNING[3] = {
    {0, 50, {{M(1)}}},
    {1, 20, {{M(1)}}},
    {2, 5, {{M(4)}}},
};

static void room_of(cli_room *r, const ds_room_task *running, size_t n)
{
    *r = (cli_room){.free_ = FREE, .n_nodes = 3, .running = running, .n_running = n};
    ds_err err = {{0}};
    assert_int_equal(cli_room_index(r, &err), 0);
}

static cli_ready_task ready(const char *name, double path, double cores, double ahead_cores,
                            size_t n_ahead)
{
    cli_ready_task t = {.name = name, .path_s = path, .request_known = true, .n_ahead = n_ahead};
    t.request.v[DS_RES_CPU] = M(cores);
    t.ahead.v[DS_RES_CPU] = M(ahead_cores);
    return t;
}

static void test_wait_for_room(void **state)
{
    (void)state;
    cli_room r;
    room_of(&r, RUNNING, 3);
    /* The job's remaining critical path is 100 s. greet (1 core, 90 s to the job's end through
     * it) has 1 core before it in the release order: on its own it fits n1 when B ends (20 s);
     * with the core before it, the pooled room covers 2 cores at 50 s. Its wait is 50 s, so the
     * job ends at 50 + 90 = 140 s: 40 s later than its path. small (200m) fits n0 now. */
    cli_ready_task t[] = {ready("greet", 90, 1, 1, 1), ready("small", 30, 0.2, 0, 0)};
    cli_eta b;
    cli_eta_of(&r, NULL, t, 2, 100, &b);
    assert_false(b.lower_bound);
    assert_int_equal(b.n_ready, 2);
    assert_string_equal(b.wait_task, "greet");
    near(b.wait_s, 50);
    near(b.delay_s, 40);
    assert_int_equal(b.wait_ahead, 1);
    cli_outlook o;
    cli_outlook_of(NOW - 60, NAN, NOW + 150, NOW, &b, &o);
    near(o.eta, NOW + 140);
    near(o.margin_s, 10);
    char buf[512];
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "in 2m20s, at 13:49:00 (remaining critical path 1m40s + 40s for room "
                             "(greet waits 50s, 1 task(s) before it in the release order)); "
                             "deadline met with 10s to spare at that pace");
    /* On the critical path (100 s through it), the wait is the delay. */
    t[0].path_s = 100;
    cli_eta_of(&r, NULL, t, 2, 100, &b);
    cli_outlook_of(NOW - 60, NAN, INFINITY, NOW, &b, &o);
    near(o.eta, NOW + 150);
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "in 2m30s, at 13:49:10 (remaining critical path 1m40s + wait for room "
                             "50s (greet, 1 task(s) before it in the release order))");
    /* Nothing before it: it fits n1 at 20 s (pooled, 1500m then); 20 + 10 s through it ends
     * before the path: off the critical path. */
    cli_ready_task side = ready("side", 10, 1, 0, 0);
    cli_eta_of(&r, NULL, &side, 1, 100, &b);
    near(b.wait_s, 20);
    near(b.delay_s, 0);
    cli_outlook_of(NOW - 60, NAN, INFINITY, NOW, &b, &o);
    near(o.eta, NOW + 100);
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "in 1m40s, at 13:48:20 (remaining critical path 1m40s; wait for room "
                             "20s (side) off the critical path)");
    /* Only small: it fits now. */
    cli_eta_of(&r, NULL, &t[1], 1, 100, &b);
    assert_null(b.wait_task);
    near(b.delay_s, 0);
    cli_outlook_of(NOW - 60, NAN, INFINITY, NOW, &b, &o);
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "in 1m40s, at 13:48:20 (remaining critical path 1m40s; room free now "
                             "for its 1 ready task(s))");
    cli_room_free(&r);
}

static void test_wait_not_forecast(void **state)
{
    (void)state;
    cli_room r;
    room_of(&r, RUNNING, 3);
    /* 3 cores: n0 reaches 1500m at 50 s, n1 1000m at 20 s, the pool 2500m: never from the known
     * ends. The ETA is the path's, a lower bound. */
    cli_ready_task big = ready("big", 100, 3, 0, 0);
    cli_eta b;
    cli_eta_of(&r, NULL, &big, 1, 100, &b);
    assert_true(b.lower_bound);
    near(b.delay_s, 0);
    cli_outlook o;
    cli_outlook_of(NOW - 60, NAN, NOW + 130, NOW, &b, &o);
    near(o.eta, NOW + 100);
    char buf[512];
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "not before 13:48:20, in 1m40s (remaining critical path 1m40s; wait "
                             "for room not forecast: big: the running DAG tasks' expected ends "
                             "free too little room for it and the 0 task(s) before it); deadline "
                             "met with at most 30s to spare at that pace");
    cli_outlook_eta_cell(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, ">13:48:20");
    /* The same with a forecast wait beside it: greet's 50 s still counts (ends at 140 s). */
    cli_ready_task both[] = {ready("greet", 90, 1, 1, 1), big};
    cli_eta_of(&r, NULL, both, 2, 100, &b);
    assert_true(b.lower_bound);
    near(b.delay_s, 40);
    cli_outlook_of(NOW - 60, NAN, NOW + 130, NOW, &b, &o);
    near(o.margin_s, -10);
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_non_null(strstr(buf, "not before 13:49:00, in 2m20s (remaining critical path 1m40s + "
                                "40s for room (greet waits 50s"));
    assert_non_null(strstr(buf, "; deadline missed by at least 10s at that pace"));
    cli_room_free(&r);

    /* A running task on n1 whose end is not known: room may come from it. */
    const ds_room_task running[] = {RUNNING[0], RUNNING[1], RUNNING[2], {1, 0, {{M(2)}}}};
    room_of(&r, running, 4);
    cli_eta_of(&r, NULL, &big, 1, 100, &b);
    assert_true(b.lower_bound);
    assert_string_equal(b.why, "big: the room it needs depends on running tasks whose end is not "
                               "known");
    /* Its request not known (no pod yet), or the controller holds it for something else. */
    cli_ready_task unknown = ready("later", 100, 0, 0, 0);
    unknown.request_known = false;
    cli_eta_of(&r, NULL, &unknown, 1, 100, &b);
    assert_string_equal(b.why, "later: its request is not known before its pod exists");
    cli_ready_task held = ready("held", 100, 0.1, 0, 0);
    held.held = "held by maxConcurrentReleases";
    cli_eta_of(&r, NULL, &held, 1, 100, &b);
    assert_true(b.lower_bound);
    assert_string_equal(b.why, "held: held by maxConcurrentReleases");
    cli_room_free(&r);
    /* The cluster's room not read. */
    cli_eta_of(NULL, "nodes cannot be listed", &held, 1, 100, &b);
    assert_string_equal(b.why, "held: nodes cannot be listed");
    cli_outlook_of(NOW - 60, NAN, INFINITY, NOW, &b, &o);
    near(o.eta, NOW + 100);
}

/* A ready task counts only the nodes it may use (cli_room_only): the room the others have does
 * not shorten its wait. */
static void test_wait_on_its_nodes(void **state)
{
    (void)state;
    cli_room r, own;
    room_of(&r, RUNNING, 3);
    /* 400m fits n0 now (500m free). */
    cli_ready_task t = ready("t3", 100, 0.4, 0, 0);
    cli_eta b;
    cli_eta_of(&r, NULL, &t, 1, 100, &b);
    assert_false(b.lower_bound);
    assert_null(b.wait_task);
    near(b.delay_s, 0);
    /* n0 has a taint it does not tolerate: on n1 it fits when B ends (20 s), n2 stays out of
     * reach. The job ends at 20 + 100 s. */
    const bool eligible[3] = {false, true, true};
    ds_res free_[3];
    ds_err err = {{0}};
    assert_int_equal(cli_room_only(&r, eligible, free_, &own, &err), 0);
    assert_true(free_[0].v[DS_RES_CPU] < -M(1000000)); /* n0 out of reach */
    assert_true(free_[1].v[DS_RES_CPU] == 0);
    assert_true(r.free_[0].v[DS_RES_CPU] == M(0.5)); /* the base is left as it was */
    t.room = &own;
    cli_eta_of(&r, NULL, &t, 1, 100, &b);
    assert_false(b.lower_bound);
    assert_string_equal(b.wait_task, "t3");
    near(b.wait_s, 20);
    near(b.delay_s, 20);
    cli_outlook o;
    cli_outlook_of(NOW - 60, NAN, INFINITY, NOW, &b, &o);
    near(o.eta, NOW + 120);
    char buf[512];
    cli_outlook_text(&o, NOW, buf, sizeof buf);
    assert_string_equal(buf, "in 2m00s, at 13:48:40 (remaining critical path 1m40s + wait for room "
                             "20s (t3, 0 task(s) before it in the release order))");
    /* Beside it, a task without constraints still fits n0 now. */
    cli_ready_task both[] = {ready("plain", 100, 0.4, 0, 0), t};
    cli_eta_of(&r, NULL, both, 2, 100, &b);
    near(b.delay_s, 20);
    assert_string_equal(b.wait_task, "t3");
    cli_room_free(&own);
    /* No node it may use: its wait is not forecast. */
    const bool none[3] = {false, false, false};
    assert_int_equal(cli_room_only(&r, none, free_, &own, &err), 0);
    t.room = &own;
    cli_eta_of(&r, NULL, &t, 1, 100, &b);
    assert_true(b.lower_bound);
    assert_string_equal(b.why, "t3: the running DAG tasks' expected ends free too little room for "
                               "it and the 0 task(s) before it");
    cli_room_free(&own);
    cli_room_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_finished),          cmocka_unit_test(test_running),
        cmocka_unit_test(test_wait_for_room),     cmocka_unit_test(test_wait_not_forecast),
        cmocka_unit_test(test_wait_on_its_nodes),
    };
    if (setenv("TZ", "UTC", 1) != 0)
        return 1;
    tzset();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
