/* test_job_room.c: unit tests of the job rule of preemption (lib/job_room.h): a job's blocked
 * tasks grouped by level, and whether the room that frees anyway covers each level by its latest
 * start, with the requests queued ahead and the preemptor's own room passed on; and in victim
 * selection, a job whose blocked work cannot get room in time evicts nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/ds_assert.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "job_room.h"
#include "victim.h"

#define GI ((int64_t)1 << 30)

static ds_res cpu(int64_t m)
{
    return (ds_res){{m, GI, 0, 0}};
}

/* a -> {b, c} -> d; a waiting, b and c blocked (slack 40 s and 25 s), d blocked (slack 80 s). */
static void build_diamond(ds_dag *d)
{
    const char *up_a[] = {"a"};
    const char *up_bc[] = {"b", "c"};
    ds_task_spec specs[] = {
        {"a", 10, NULL, 0}, {"b", 10, up_a, 1}, {"c", 10, up_a, 1}, {"d", 10, up_bc, 2}};
    ds_err err = {{0}};
    assert_int_equal(ds_dag_build(d, specs, 4, &err), 0);
}

static void diamond_state(ds_task_status st[4], ds_task_eval ev[4], ds_res req[4])
{
    memset(st, 0, 4 * sizeof *st);
    memset(ev, 0, 4 * sizeof *ev);
    st[0].state = DS_TASK_WAITING;
    st[1].state = st[2].state = st[3].state = DS_TASK_BLOCKED;
    ev[0].t_allow_s = 10;
    ev[1].t_allow_s = 40;
    ev[2].t_allow_s = 25;
    ev[3].t_allow_s = 80;
    for (int i = 0; i < 4; i++)
        req[i] = cpu(1000 * (i + 1));
}

static void test_level_needs(void **state)
{
    (void)state;
    ds_dag d;
    build_diamond(&d);
    ds_task_status st[4];
    ds_task_eval ev[4];
    ds_res req[4];
    diamond_state(st, ev, req);
    ds_level_need out[3];
    assert_int_equal(ds_job_level_needs(&d, st, ev, req, out), 2);
    assert_int_equal(out[0].level, 2);
    assert_int_equal(out[0].demand.v[DS_RES_CPU], 2000 + 3000);
    assert_int_equal(out[0].demand.v[DS_RES_MEMORY], 2 * GI);
    assert_double_near(out[0].start_by_s, 25, 0); /* the smaller slack of b and c */
    assert_int_equal(out[1].level, 3);
    assert_int_equal(out[1].demand.v[DS_RES_CPU], 4000);
    assert_double_near(out[1].start_by_s, 80, 0);

    /* Running, waiting and finished tasks need no further room; nor does one without deadline. */
    st[1].state = DS_TASK_RUNNING;
    ev[2].t_allow_s = INFINITY;
    assert_int_equal(ds_job_level_needs(&d, st, ev, req, out), 1);
    assert_int_equal(out[0].level, 3);
    st[3].state = DS_TASK_SUCCEEDED;
    assert_int_equal(ds_job_level_needs(&d, st, ev, req, out), 0);
    assert_int_equal(ds_job_level_needs(NULL, st, ev, req, out), 0);
    ds_dag_free(&d);
}

/* One full 8-cpu node: 4 cpu end in 20 s, 4 cpu in 100 s. */
static void build_index(ds_room_index *ix, ds_room_task tasks[2], ds_res *free_)
{
    tasks[0] = (ds_room_task){.node = 0, .end_s = 20, .request = cpu(4000)};
    tasks[1] = (ds_room_task){.node = 0, .end_s = 100, .request = cpu(4000)};
    *free_ = (ds_res){{0, 64 * GI, 0, 0}};
    ds_err err = {{0}};
    assert_int_equal(ds_room_index_build(ix, tasks, 2, free_, 1, &err), 0);
}

static void test_room_in_time(void **state)
{
    (void)state;
    ds_room_task tasks[2];
    ds_res free_;
    ds_room_index ix;
    build_index(&ix, tasks, &free_);
    ds_res none = {{0}}, own = cpu(2000);
    ds_level_need need[2] = {{.level = 2, .demand = cpu(4000), .start_by_s = 30},
                             {.level = 3, .demand = cpu(6000), .start_by_s = 200}};
    /* Level 2: 4 cpu less the preemptor's 2 (passed on) free at 20 s, +5 s to start: by 30 s.
     * Level 3: 6 less 2 at 100 s, by 200 s. */
    assert_true(ds_job_room_in_time(&ix, &none, &own, 1, need, 2, 5));
    /* Starting takes 11 s: level 2 starts at 31 s, too late. */
    assert_false(ds_job_room_in_time(&ix, &none, &own, 1, need, 2, 11));
    /* 4 cpu queued ahead: level 2's 4 + 4 - 2 cpu come at 100 s, after 30 s. */
    ds_res ahead = cpu(4000);
    assert_false(ds_job_room_in_time(&ix, &ahead, &own, 1, need, 2, 5));
    /* Level 3 alone: ahead 4 + 6 - own 2 = 8 cpu, at 100 s, before 200 s. */
    assert_true(ds_job_room_in_time(&ix, &ahead, &own, 1, need + 1, 1, 5));
    /* The preemptor's room passes on only to later levels: at its own level it does not. */
    ds_level_need same = {.level = 1, .demand = cpu(6000), .start_by_s = 50};
    assert_false(ds_job_room_in_time(&ix, &none, &own, 1, &same, 1, 0));
    same.level = 2;
    assert_true(ds_job_room_in_time(&ix, &none, &own, 1, &same, 1, 0));
    /* More than the node ever frees: never in time; nothing needed: in time. */
    need[1].demand = cpu(64000);
    assert_false(ds_job_room_in_time(&ix, &none, &own, 1, need + 1, 1, 0));
    assert_true(ds_job_room_in_time(&ix, &none, &own, 1, need, 0, 0));
    /* A level already behind (negative slack) cannot be in time. */
    ds_level_need late = {.level = 2, .demand = cpu(0), .start_by_s = -1};
    assert_false(ds_job_room_in_time(&ix, &none, &own, 1, &late, 1, 0));
    ds_room_index_free(&ix);
}

/* Victim selection: an urgent root task of a diamond, a full node of batch work. With the job
 * rule, the eviction is made only if the blocked level after it gets room in time. */
static void test_victims_follow_job_rule(void **state)
{
    (void)state;
    ds_dag d;
    build_diamond(&d);
    const ds_dag *jobs[] = {&d};
    ds_preempt_params p = {.epsilon_s = 30,
                           .epoch_s = 10,
                           .delta = 1.0,
                           .rho = 1.5,
                           .min_run_s = 60,
                           .max_victims_per_preemptor = 1,
                           .max_evictions = 10,
                           .payoff = true,
                           .job_room = true};
    /* Two batch tasks on the one 4-cpu node; one ends in 500 s, the other's end is unknown. */
    ds_running_task r[] = {
        {.job = DS_NO_TASK,
         .priority = 0.1,
         .t_allow_s = INFINITY,
         .ran_s = 100,
         .t_rem_s = 500,
         .request = cpu(2000),
         .node = 0,
         .evictable = true},
        {.job = DS_NO_TASK,
         .priority = 0.1,
         .t_allow_s = INFINITY,
         .ran_s = 100,
         .t_rem_s = 0,
         .request = cpu(2000),
         .node = 0,
         .evictable = true},
    };
    ds_node_free n[] = {{.free_ = {{0, 64 * GI, 0, 0}}, .evictions_left = 1}};
    ds_level_need need = {.level = 2, .demand = cpu(2000), .start_by_s = 40};
    ds_waiting_task w = {.job = 0,
                         .task = 0,
                         .priority = 5,
                         .t_allow_s = 10,
                         .t_rem_s = 10,
                         .request = cpu(2000),
                         .level = 1,
                         .job_needs = &need,
                         .n_job_needs = 1};
    ds_decision out[4];
    ds_err err = {{0}};
    /* Level 2 needs 2 cpu beyond the preemptor's own by 40 s: the node frees 2 cpu only at 500 s.
     */
    need.demand = cpu(4000);
    assert_int_equal(ds_select_victims(&w, 1, r, 2, n, 1, jobs, 1, &p, out, 4, &err), 0);
    /* Without the job rule, the eviction is made. */
    p.job_room = false;
    assert_int_equal(ds_select_victims(&w, 1, r, 2, n, 1, jobs, 1, &p, out, 4, &err), 1);
    /* Level 2 needs no more than the preemptor's room, which passes on: the eviction is made. */
    p.job_room = true;
    need.demand = cpu(2000);
    assert_int_equal(ds_select_victims(&w, 1, r, 2, n, 1, jobs, 1, &p, out, 4, &err), 1);
    assert_int_equal(out[0].running, 0);
    /* A caller that says it has needs but passes none is refused. */
    w.job_needs = NULL;
    assert_int_equal(ds_select_victims(&w, 1, r, 2, n, 1, jobs, 1, &p, out, 4, &err), -1);
    ds_dag_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_level_needs),
        cmocka_unit_test(test_room_in_time),
        cmocka_unit_test(test_victims_follow_job_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
