/* test_room.c: unit tests of when room frees anyway (lib/room.h): the wait on some node for one
 * request, with tasks already gone, and the wait pooled over the nodes for the requests queued
 * ahead; unknown ends never count. Every test asserts exact times. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "room.h"

#define GI ((int64_t)1 << 30)

static ds_res cpu(int64_t m)
{
    return (ds_res){{m, GI, 0, 0}};
}

/* Two full 4-cpu nodes: node 0 runs 2 cpu ending in 100 s and 2 cpu ending in 300 s; node 1 runs
 * 1 cpu ending in 50 s, 3 cpu whose end is unknown. */
static const ds_room_task tasks[] = {
    {.node = 0, .end_s = 300, .request = {{2000, GI, 0, 0}}},
    {.node = 0, .end_s = 100, .request = {{2000, GI, 0, 0}}},
    {.node = 1, .end_s = 50, .request = {{1000, GI, 0, 0}}},
    {.node = 1, .end_s = 0, .request = {{3000, GI, 0, 0}}},
};
#define N_TASKS (sizeof tasks / sizeof tasks[0])

static void test_node_wait(void **state)
{
    (void)state;
    ds_res free_[2] = {cpu(0), cpu(0)};
    for (int n = 0; n < 2; n++)
        free_[n].v[DS_RES_MEMORY] = 8 * GI;
    ds_room_index ix;
    ds_err err = {{0}};
    assert_int_equal(ds_room_index_build(&ix, tasks, N_TASKS, free_, 2, &err), 0);
    ds_res r = cpu(1000);
    assert_double_near(ds_room_wait(&ix, tasks, NULL, free_, &r), 50, 0); /* node 1 first */
    r = cpu(2000);
    assert_double_near(ds_room_wait(&ix, tasks, NULL, free_, &r), 100, 0);
    r = cpu(3000); /* node 0 once both end; node 1's 3 cpu never end as far as is known */
    assert_double_near(ds_room_wait(&ix, tasks, NULL, free_, &r), 300, 0);
    r = cpu(5000);
    assert_double_inf(ds_room_wait(&ix, tasks, NULL, free_, &r), 1);
    /* Room free now. */
    free_[1] = cpu(2000);
    r = cpu(2000);
    assert_double_near(ds_room_wait(&ix, tasks, NULL, free_, &r), 0, 0);
    free_[1] = cpu(0);
    /* The 100 s task is gone (evicted): its cpu is free now, on node 0, and it ends no more. */
    bool gone[N_TASKS] = {false, true, false, false};
    free_[0] = cpu(2000);
    r = cpu(3000);
    assert_double_near(ds_room_wait(&ix, tasks, gone, free_, &r), 300, 0);
    r = cpu(2000);
    assert_double_near(ds_room_wait(&ix, tasks, gone, free_, &r), 0, 0);
    ds_room_index_free(&ix);
}

static void test_pool_wait(void **state)
{
    (void)state;
    ds_res free_[2] = {cpu(500), cpu(-1000)}; /* an over-committed node offers nothing */
    ds_room_index ix;
    ds_err err = {{0}};
    assert_int_equal(ds_room_index_build(&ix, tasks, N_TASKS, free_, 2, &err), 0);
    ds_res d = cpu(500);
    d.v[DS_RES_MEMORY] = 0;
    assert_double_near(ds_room_pool_wait(&ix, &d), 0, 0);
    /* Node 1's 1 cpu at 50 s only pays back what it owes: nothing is added. */
    d.v[DS_RES_CPU] = 501;
    assert_double_near(ds_room_pool_wait(&ix, &d), 100, 0);
    d.v[DS_RES_CPU] = 2500; /* 500 + 2000 at 100 s */
    assert_double_near(ds_room_pool_wait(&ix, &d), 100, 0);
    d.v[DS_RES_CPU] = 2501;
    assert_double_near(ds_room_pool_wait(&ix, &d), 300, 0);
    d.v[DS_RES_CPU] = 4500; /* 500 + 2000 + 2000: all known ends */
    assert_double_near(ds_room_pool_wait(&ix, &d), 300, 0);
    d.v[DS_RES_CPU] = 4501;
    assert_double_inf(ds_room_pool_wait(&ix, &d), 1);
    /* Memory counts too: 2 GiB free now (1 on each node), one more at each known end. */
    d = (ds_res){{0, 3 * GI, 0, 0}};
    assert_double_near(ds_room_pool_wait(&ix, &d), 50, 0);
    d.v[DS_RES_MEMORY] = 5 * GI;
    assert_double_near(ds_room_pool_wait(&ix, &d), 300, 0);
    d.v[DS_RES_MEMORY] = 6 * GI;
    assert_double_inf(ds_room_pool_wait(&ix, &d), 1);
    /* A preemptor whose room the known ends never free, while node 1 runs a task whose end is
     * not known: the room may yet come from it, so the wait is not forecast (not a number). */
    ds_res ahead = cpu(4000), own = cpu(1000);
    ahead.v[DS_RES_MEMORY] = 0;
    own.v[DS_RES_MEMORY] = 0;
    assert_true(isnan(ds_room_preemptor_wait(&ix, tasks, NULL, free_, &own, &ahead)));
    ahead.v[DS_RES_CPU] = 1000; /* 2000 by 100 s */
    assert_double_near(ds_room_preemptor_wait(&ix, tasks, NULL, free_, &own, &ahead), 100, 0);
    ds_room_index_free(&ix);
}

/* A node marked out of reach (a preemptor's ineligible node: a very negative free room) adds
 * nothing to the pool when its tasks end; its own room never reaches zero. */
/* The scene's index with node 0 full and node 1 out of reach (free_ receives the nodes' room). */
static void index_out_of_reach(ds_room_index *ix, ds_res free_[2])
{
    free_[0] = cpu(0);
    free_[1] = cpu(INT64_MIN / 4);
    free_[1].v[DS_RES_MEMORY] = INT64_MIN / 4;
    ds_err err = {{0}};
    assert_int_equal(ds_room_index_build(ix, tasks, N_TASKS, free_, 2, &err), 0);
}

static void test_pool_out_of_reach(void **state)
{
    (void)state;
    ds_res free_[2];
    ds_room_index ix;
    index_out_of_reach(&ix, free_);
    ds_res d = cpu(4000);
    d.v[DS_RES_MEMORY] = 0;
    assert_double_near(ds_room_pool_wait(&ix, &d), 300, 0); /* node 0's two ends */
    d.v[DS_RES_CPU] = 4001;                                 /* node 1's 1 cpu does not count */
    assert_double_inf(ds_room_pool_wait(&ix, &d), 1);
    /* Node 1's task of unknown end is out of reach too: every end within reach is known, and
     * the preemptor's room never comes. */
    ds_res none = cpu(0), own = cpu(4001);
    none.v[DS_RES_MEMORY] = 0;
    own.v[DS_RES_MEMORY] = 0;
    assert_double_inf(ds_room_preemptor_wait(&ix, tasks, NULL, free_, &own, &none), 1);
    ds_room_index_free(&ix);
}

/* The wait an eviction saves: the forecast, except a "never" that comes only from the tasks
 * ahead at dagsched's gate (not a number then); a "never" from kube-scheduler's queue alone
 * stays. Node 1 is out of reach, so every end within reach is known (node 0: 2 cpu at 100 s and
 * 2 cpu at 300 s, nothing free now). */
static void test_saved_wait(void **state)
{
    (void)state;
    ds_res free_[2];
    ds_room_index ix;
    index_out_of_reach(&ix, free_);
    ds_res own = cpu(1000), ahead = cpu(2000), gated = cpu(0);
    own.v[DS_RES_MEMORY] = ahead.v[DS_RES_MEMORY] = gated.v[DS_RES_MEMORY] = 0;
    /* A number: the forecast itself (3 cpu by 300 s). */
    assert_double_near(ds_room_saved_wait(&ix, tasks, NULL, free_, &own, &ahead, &gated), 300, 0);
    /* Never, with 4 cpu ahead in kube-scheduler's queue: stays never. */
    ahead.v[DS_RES_CPU] = 4000;
    assert_double_inf(ds_room_saved_wait(&ix, tasks, NULL, free_, &own, &ahead, &gated), 1);
    /* Never only because 3 of those 4 cpu wait at the gate: not a number. */
    gated.v[DS_RES_CPU] = 3000;
    assert_true(isnan(ds_room_saved_wait(&ix, tasks, NULL, free_, &own, &ahead, &gated)));
    /* The forecast itself is unchanged: never. */
    assert_double_inf(ds_room_preemptor_wait(&ix, tasks, NULL, free_, &own, &ahead), 1);
    /* More gated than ahead (a caller's rounding) counts as none queued. */
    gated.v[DS_RES_CPU] = 9000;
    assert_true(isnan(ds_room_saved_wait(&ix, tasks, NULL, free_, &own, &ahead, &gated)));
    ds_room_index_free(&ix);
}

/* Nothing indexed: nothing ever ends; a task on a node outside the index is left out. */
static void test_empty(void **state)
{
    (void)state;
    ds_res free_[1] = {cpu(0)};
    ds_room_task stray = {.node = 7, .end_s = 1, .request = {{4000, GI, 0, 0}}};
    ds_room_index ix;
    ds_err err = {{0}};
    assert_int_equal(ds_room_index_build(&ix, &stray, 1, free_, 1, &err), 0);
    ds_res r = cpu(1);
    assert_double_inf(ds_room_wait(&ix, &stray, NULL, free_, &r), 1);
    assert_double_inf(ds_room_pool_wait(&ix, &r), 1);
    ds_room_index_free(&ix);
    ds_room_index_free(&ix); /* freeing twice is harmless */
    assert_int_equal(ds_room_index_build(&ix, NULL, 0, NULL, 0, &err), 0);
    assert_double_inf(ds_room_wait(&ix, NULL, NULL, NULL, &r), 1);
    ds_room_index_free(&ix);
}

/* Many nodes: the answer is the minimum over nodes whatever their order, the same as a plain scan
 * of every node. */
static void test_matches_scan(void **state)
{
    (void)state;
    enum { NODES = 40, TASKS = 400 };
    ds_room_task *t = calloc(TASKS, sizeof *t);
    ds_res *free_ = calloc(NODES, sizeof *free_);
    assert_non_null(t);
    assert_non_null(free_);
    uint64_t s = 7;
    for (size_t i = 0; i < TASKS; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        t[i] = (ds_room_task){.node = (s >> 33) % NODES,
                              .end_s = (double)((s >> 20) % 500),
                              .request = cpu((int64_t)((s >> 40) % 4 + 1) * 250)};
    }
    for (size_t n = 0; n < NODES; n++)
        free_[n] = cpu((int64_t)(n % 3) * 100);
    ds_room_index ix;
    ds_err err = {{0}};
    assert_int_equal(ds_room_index_build(&ix, t, TASKS, free_, NODES, &err), 0);
    for (int64_t want = 300; want <= 3000; want += 300) {
        ds_res r = cpu(want);
        double best = INFINITY;
        for (size_t n = 0; n < NODES; n++) {
            /* plain scan: the earliest end by which the node's room covers the request */
            for (size_t i = 0; i < TASKS; i++) {
                if (t[i].node != n || !(t[i].end_s > 0))
                    continue;
                ds_res room = free_[n];
                for (size_t j = 0; j < TASKS; j++)
                    if (t[j].node == n && t[j].end_s > 0 && t[j].end_s <= t[i].end_s)
                        ds_res_add(&room, &t[j].request);
                if (ds_res_fits(&r, &room) && t[i].end_s < best)
                    best = t[i].end_s;
            }
        }
        double got = ds_room_wait(&ix, t, NULL, free_, &r);
        if (isinf(best))
            assert_double_inf(got, 1);
        else
            assert_double_near(got, best, 0);
    }
    ds_room_index_free(&ix);
    free(t);
    free(free_);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_wait),
        cmocka_unit_test(test_pool_wait),
        cmocka_unit_test(test_pool_out_of_reach),
        cmocka_unit_test(test_saved_wait),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_matches_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
